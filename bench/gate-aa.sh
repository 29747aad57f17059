#!/bin/sh
# gate-aa.sh - the A/A gate study (issue 24): how often does the regression
# gate trip on two identical commands, on this (noisy, shared) machine?
#   TRIALS trials (default 200) of
#     tachy run -r RUNS --fail-if-slower 5 --export-json t.json CMD CMD
#   (RUNS default 10, CMD default 'true'; interleaved rounds, Mann-Whitney,
#   95%). Counted per trial: the gate's exit 3 (proven slower by more than
#   5%: the interval's low bound beyond +5%), and, from the same trial's
#   JSON, the point-estimate gate tachy had before (verdict "slower" and the
#   estimate beyond +5%), the peer figure of the same runs. Also the share of
#   plain "slower" verdicts (no 5% margin: bounded by 2.5% at 95% if the
#   test's error rate holds). The load average is printed beside.
# Usage: bench/gate-aa.sh [TRIALS] [RUNS] [CMD]
set -eu
cd "$(dirname "$0")/.."
trials=${1:-200} runs=${2:-10} cmd=${3:-true}
out=bench/out/gate-aa
rm -rf "$out"; mkdir -p "$out"
[ -x ./tachy ] || make -j2 all >/dev/null
echo "-- A/A gate: $trials trials of tachy run -r $runs --fail-if-slower 5 '$cmd' '$cmd'"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0 trips=0
while [ "$i" -lt "$trials" ]; do
	st=0
	./tachy run -r "$runs" --style none --fail-if-slower 5 --export-json "$out/t$i.json" \
		"$cmd" "$cmd" >/dev/null 2>"$out/err$i" || st=$?
	case $st in
	0) ;;
	3) trips=$((trips + 1)) ;;
	*) echo "trial $i: exit $st"; cat "$out/err$i"; exit 1 ;;
	esac
	i=$((i + 1))
done
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$trials" "$trips" <<'PY'
import json, sys
out, n, trips = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
old = slower = 0
for i in range(n):
    c = [c for c in json.load(open("%s/t%d.json" % (out, i)))["tachy"]["comparisons"] if c["figure"] == "wall"][0]
    slower += c["verdict"] == "slower"
    old += c["verdict"] == "slower" and c["change_pct"] > 5
print("   gate (proven > 5%%): %d of %d trials tripped = %.1f%% (target <= 5%%)" % (trips, n, 100.0 * trips / n))
print("   point-estimate gate (before): %d of %d = %.1f%%" % (old, n, 100.0 * old / n))
print("   verdict 'slower' at all: %d of %d = %.1f%%" % (slower, n, 100.0 * slower / n))
PY
