# mk.sh FILE WALL USER SYSTEM TASKCLOCK INSTRUCTIONS [COUNTERS]: a tachy
# export of one benchmark 'bench', 20 runs, each figure a deterministic
# +-10% spread (instructions +-0.5%) around a base value times its factor;
# the runs' order in the spread is shifted by the factors, so two files of
# factor 1 differ run by run but not in what they hold. COUNTERS 0: no
# counters (the CPU time is then user + system only).
awk -v wf="$2" -v uf="$3" -v sf="$4" -v tf="$5" -v inf="$6" -v counters="${7:-1}" 'BEGIN {
	shift = int((wf + uf + sf + tf + inf) * 1000) % 20
	times = ""; runs = ""
	for (r = 0; r < 20; r++) {
		u = (((r + shift) * 7919 + 13) % 101) / 101 - 0.5
		v = (((r + shift) * 104729 + 7) % 97) / 97 - 0.5
		wall = 10000000 * wf * (1 + 0.2 * u)
		user = 6000000 * uf * (1 + 0.2 * v)
		sys = 2000000 * sf * (1 + 0.2 * u)
		tc = 8000000 * tf * (1 + 0.2 * v)
		ins = 20000000 * inf * (1 + 0.01 * v)
		times = times (r ? ", " : "") sprintf("%.9f", wall / 1e9)
		runs = runs (r ? ", " : "") sprintf("{\"wall_ns\": %d, \"user_ns\": %d, \"system_ns\": %d, \"round\": %d", wall, user, sys, r)
		if (counters)
			runs = runs sprintf(", \"counters\": {\"task-clock\": %d, \"instructions\": %d, \"cycles\": %d}", tc, ins, 30000000 * (1 + 0.2 * u))
		runs = runs "}"
	}
	desc = "{\"supported\": true, \"unit\": \"\", \"scaled\": false, \"running_share\": 1.0}"
	tdesc = "{\"supported\": true, \"unit\": \"ns\", \"scaled\": false, \"running_share\": 1.0}"
	printf "{\"results\": [{\"command\": \"bench\", \"times\": [%s], \"tachy\": {\"name\": \"bench\", \"runs\": [%s], \"left_out\": 0", times, runs
	if (counters)
		printf ", \"counters\": {\"task-clock\": %s, \"instructions\": %s, \"cycles\": %s}", tdesc, desc, desc
	printf "}}], \"tachy\": {\"schema\": 1}}\n"
}' > "$1"
