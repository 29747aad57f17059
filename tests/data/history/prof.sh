#!/bin/sh
# prof.sh NAME K SEED - a tachy export (on stdout) of one benchmark NAME with
# 12 runs and their per-run profiles (tachy.profile), made up and the same
# on every awk: work_f has 2K samples a run (one more every other run),
# work_g about 10 and rare_h one every fourth run, at 2.004 ms a sample;
# the wall time is what they stand for plus 4 ms, with a 1% noise that
# SEED varies. K = 1 against K = 4 plants a slowdown of 12 ms in work_f.
name=$(printf '%s' "$1" | sed 's/["\\]/\\&/g')
NAME=$name awk -v k="$2" -v seed="$3" 'BEGIN {
	name = ENVIRON["NAME"]
	n = 12
	for (i = 0; i < n; i++) {
		f[i] = 2 * k + i % 2
		g[i] = 10 + (i * 7 + seed) % 3
		h[i] = i % 4 == 0
		s[i] = f[i] + g[i] + h[i]
		u = ((i * 1103515245 + seed * 2654435761 + 12345) % 10007) / 10007 - 0.5
		t[i] = (s[i] * 2.004 + 4) / 1000 * (1 + 0.02 * u)
	}
	printf "{\"results\": [{\"command\": \"%s\", \"times\": [", name
	for (i = 0; i < n; i++)
		printf "%s%.9f", i ? ", " : "", t[i]
	printf "], \"tachy\": {\"name\": \"%s\", \"runs\": [", name
	for (i = 0; i < n; i++)
		printf "%s{\"wall_ns\": %d, \"user_ns\": 0, \"system_ns\": 0, \"round\": %d}", i ? ", " : "", t[i] * 1e9, i
	printf "]}}],\n\"tachy\": {\"schema\": 1, \"profile\": {\"hz\": 499, \"callchain\": true, "
	printf "\"user_only\": true, \"lost\": 0, \"cost_ms\": 1.5,\n\"symbols\": [[\"main\", \"/bin/prog\"], "
	printf "[\"work_f\", \"/bin/prog\"], [\"work_g\", \"/bin/prog\"], [\"rare_h\", \"/lib/libc.so.6\"]],\n\"runs\": [["
	for (i = 0; i < n; i++) {
		printf "%s[%d, %.3f, 0, 0, %d, 1, %d, %d, 2, %d, %d", i ? ",\n" : "", s[i], s[i] * 2.004, s[i], f[i], f[i], g[i], g[i]
		if (h[i])
			printf ", 3, 1, 1"
		printf "]"
	}
	printf "]]}}}\n"
}'
