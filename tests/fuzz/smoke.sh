#!/bin/sh
# smoke.sh SECONDS TARGET... - run each libFuzzer target SECONDS over a copy
# of its seed corpus (tests/fuzz/corpus/NAME/, NAME from build/fuzz/fuzz-NAME);
# fails, naming the target and keeping its crash file, when one crashes.
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
	if "$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$work/$name/crashes/" "$work/$name/corpus" \
		>"$work/$name/log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/$name/log" | tail -n 1)
		echo "fuzz $name: ok (${runs:-?} inputs in ${secs} s)"
	else
		echo "fuzz $name: FAILED; crash files in $work/$name/crashes/"
		grep -E 'ERROR|SUMMARY|runtime error' "$work/$name/log" | head -n 5
		bad="$bad $name"
	fi
done
[ -z "$bad" ] || { echo "fuzz-smoke: failed:$bad"; exit 1; }
echo "fuzz-smoke: $# targets ok"
