#!/bin/sh
# smoke.sh SECONDS TARGET... - run each libFuzzer target over a copy of its
# seed corpus (tests/fuzz/corpus/NAME/, NAME from build/fuzz/fuzz-NAME) for
# FUZZ_RUNS inputs (default 20000) from a fixed seed, so that the same tree
# fuzzes the same inputs every time (a smoke test that could fail by chance
# would be a flaky test), and at most SECONDS; fails, naming the target and
# keeping its crash file, when one crashes. `make fuzz` without the smoke
# explores freely.
set -u
secs=$1
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
work="$top/build/fuzz/smoke"
bad=""
for t in "$@"; do
	name=${t##*/fuzz-}
	rm -rf "$work/$name"
	mkdir -p "$work/$name/corpus" "$work/$name/crashes"
	[ -d "$top/tests/fuzz/corpus/$name" ] &&
		cp -r "$top/tests/fuzz/corpus/$name/." "$work/$name/corpus/"
	if "$t" -seed=1 -runs="${FUZZ_RUNS:-20000}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$work/$name/crashes/" "$work/$name/corpus" \
		>"$work/$name/log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/$name/log" | tail -n 1)
		echo "fuzz $name: ok (${runs:-?} inputs, seed 1)"
	else
		echo "fuzz $name: FAILED; crash files in $work/$name/crashes/"
		grep -E 'ERROR|SUMMARY|runtime error' "$work/$name/log" | head -n 5
		bad="$bad $name"
	fi
done
[ -z "$bad" ] || { echo "fuzz-smoke: failed:$bad"; exit 1; }
echo "fuzz-smoke: $# targets ok"
