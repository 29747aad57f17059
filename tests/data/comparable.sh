#!/bin/sh
# comparable.sh LEVEL LOAD [HOST [KERNEL [WAIT [NIVCSW [SEED]]]]] - a tachy
# export of one benchmark "prog" with 10 runs around LEVEL seconds and the
# facts comparable.c judges planted: the load average LOAD at the start
# (with as many busy processes, rounded), HOST (default bench1), KERNEL
# (default 6.1.0-13-amd64), 2 CPUs, the share WAIT (default 0) of each
# run's wall time spent waiting for a CPU, NIVCSW involuntary context
# switches a run (default 1). A deterministic 1% noise (SEED, default 1).
level=$1 load=$2 host=${3:-bench1} kernel=${4:-6.1.0-13-amd64} wait=${5:-0} ncs=${6:-1} seed=${7:-1}
awk -v level="$level" -v load="$load" -v host="$host" -v kernel="$kernel" -v wait="$wait" \
    -v ncs="$ncs" -v seed="$seed" 'BEGIN {
	t = ""; runs = ""
	for (r = 0; r < 10; r++) {
		u = ((seed * 1103515245 + r * 2654435761 + 12345) % 10007) / 10007 - 0.5
		w = level * (1 + 0.02 * u)
		cpu = w * (1 - wait)
		t = t (r ? ", " : "") sprintf("%.9f", w)
		runs = runs (r ? ", " : "") sprintf("{\"wall_ns\": %d, \"user_ns\": %d, \"system_ns\": 0, \"nivcsw\": %d, \"round\": %d}", w * 1e9, cpu * 1e9, ncs, r)
	}
	printf "{\"results\": [{\"command\": \"prog\", \"times\": [%s], ", t
	printf "\"tachy\": {\"name\": \"prog\", \"command\": \"./prog\", \"runs\": [%s]}}],\n", runs
	printf " \"tachy\": {\"schema\": 1, \"environment\": {\"hostname\": \"%s\", ", host
	printf "\"cpu_model\": \"Intel(R) Xeon(R) E-2278G CPU @ 3.40GHz\", \"cores\": 2, "
	printf "\"kernel\": \"%s\", \"load_average\": %s, \"busy_processes\": %d}}}\n", kernel, load, load + 0.5
}'
