#!/bin/sh
# smoke.sh - every bench/*.sh in a mode that takes seconds (make bench-smoke,
# run by .ci/run): tiny sizes, one round, BENCH_SMOKE=1 in the environment
# (scripts with fixed sizes shrink them on it). The figures are printed, not
# judged: a benchmark fails here only when it no longer builds or runs. A
# benchmark that needs what this machine lacks (root, perf, a peer) says
# "skipped" and exits 0, as it does under make bench.
# Usage: bench/smoke.sh [NAME...] (default: every bench/*.sh)
set -u
cd "$(dirname "$0")/.."
BENCH_SMOKE=1
TACHY_CACHE_DIR=${TACHY_CACHE_DIR:-$PWD/bench/out/cache}
export BENCH_SMOKE TACHY_CACHE_DIR
mkdir -p bench/out
# The arguments and environment of each script's smoke run; a script missing
# here fails (a new benchmark must say how it runs small).
args() {
	case $1 in
	calls-cost) echo "ROUNDS=1 CALLS=500" ;;
	clocks) echo "" ;;
	counters-overhead) echo "COST_ROUNDS=1 COST_N=20 CPU_REPS=1 : 1 20" ;;
	gate-aa) echo ": 2 3" ;;
	gate-cpu) echo ": 1 3 1000000" ;;
	instructions) echo "" ;;
	instr-cost) echo ": 2" ;;
	instr-history) echo ": 4 3" ;;
	jit-node) echo "RUNS=1" ;;
	record-complete) echo "RUNS=1" ;;
	record-drain) echo "ROUNDS=1 N=20000000" ;;
	rust-names) echo "ROUNDS=600" ;;
	instr-planted) echo ": 1" ;;
	record-hostile) echo "" ;;
	record-start) echo "REPS=2" ;;
	runprof-match) echo ": 1 4 200000 3" ;;
	history) echo "" ;;
	history-study) echo ": 1" ;;
	offcpu-chains) echo "" ;;
	offcpu-cost) echo "WORK=3000 ROUNDS=500 RUNS=1 KRUNS=1" ;;
	offcpu-nobody) echo "RUNS=1" ;;
	offcpu) echo "RUNS=1" ;;
	record-floor) echo "RUNS=1 CPU_N=20000000 NOFP_N=5000000" ;;
	record-overhead) echo "RUNS=1 CPU_N=20000000 MMAP_N=2000 NOFP_N=5000000" ;;
	record-system) echo "SECS=1 ROUNDS=1 NFILES=2 MEMSECS=1" ;;
	record-unwind) echo "ONLY=nofp NOFP_N=20000000" ;;
	perfdata) echo "" ;;
	report-speed) echo "REPS=1 SAMPLES=50000" ;;
	rss-methods) echo ": 1 20" ;;
	run-overhead) echo ": 1 20" ;;
	runprof-cost) echo ": 1 2 200000" ;;
	runprof-power) echo ": 1 1 20000 4 24" ;;
	sample-cost) echo "ROUNDS=1 N=20000000" ;;
	stat) echo "N=2000 REPS=1 SMALL_RUNS=2" ;;
	stripped-rows) echo "SEQ_N=100000 : 1" ;;
	validation) echo "" ;;
	*) return 1 ;;
	esac
}
names=${*:-$(for f in bench/*.sh; do b=${f##*/}; b=${b%.sh}; case $b in run-all | smoke) ;; *) echo "$b" ;; esac; done)}
pass=0 fail=0 failed=
# The bench programs run by no script: their own smoke arguments.
if [ $# = 0 ]; then
	for p in "runprof-fdr-sim 8 100 8 95" "resolve-replay bench/out/smoke-replay.prof 2000 /bin/true"; do
		echo "== build/std/bench/$p"
		# shellcheck disable=SC2086
		if build/std/bench/$p > "bench/out/smoke-${p%% *}.log" 2>&1; then
			pass=$((pass + 1))
			tail -n 3 "bench/out/smoke-${p%% *}.log" | sed 's/^/   /'
		else
			fail=$((fail + 1)) failed="$failed ${p%% *}"
			tail -n 30 "bench/out/smoke-${p%% *}.log" | sed 's/^/   /'
		fi
	done
fi
for n in $names; do
	if ! spec=$(args "$n"); then
		echo "== $n: no smoke arguments in bench/smoke.sh"
		fail=$((fail + 1)) failed="$failed $n"
		continue
	fi
	envs=${spec%%:*}
	argv=
	case $spec in *:*) argv=${spec#*:} ;; esac
	echo "== $n ($envs sh bench/$n.sh$argv)"
	start=$(date +%s)
	# shellcheck disable=SC2086
	if env $envs sh "bench/$n.sh" $argv > "bench/out/smoke-$n.log" 2>&1; then
		pass=$((pass + 1))
		tail -n 4 "bench/out/smoke-$n.log" | sed 's/^/   /'
	else
		fail=$((fail + 1)) failed="$failed $n"
		tail -n 30 "bench/out/smoke-$n.log" | sed 's/^/   /'
		echo "== $n FAILED"
	fi
	echo "   ($(($(date +%s) - start)) s)"
done
echo "bench smoke: $pass ran, $fail failed${failed:+:$failed}"
[ $fail = 0 ]
