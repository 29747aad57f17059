#!/bin/sh
# stripped-rows.sh [REPS] - the "Stripped code" figure of issue 12: how many
# flat-profile rows (self time) cover 95% of the samples of Debian's stripped
# xz -6 -T1 recorded with call chains (tachy -g: CFI unwinding; perf
# --call-graph dwarf),
# tachy against perf (perf report --sort sym) on the same input, the two
# recorders interleaved, REPS times (default 3).
set -eu
TACHY=${TACHY:-./tachy}
reps=${1:-3}
tmp=$(mktemp -d /tmp/stripped-rows.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
seq 1 "${SEQ_N:-1500000}" > "$tmp/in"
rows95() { # cumulative-percent column -> rows until 95%
	awk -v col="$1" '{ s += $col; n++; if (s >= 95) { print n; exit } }'
}
i=0
while [ $i -lt "$reps" ]; do
	i=$((i + 1))
	"$TACHY" record -q -F 999 -g -o "$tmp/t.prof" -- xz -6 -T1 -c "$tmp/in" > /dev/null
	t=$("$TACHY" report --limit 1000000 "$tmp/t.prof" | awk '/^ *[0-9.]+ +[0-9.]+ /' | rows95 1)
	tn=$("$TACHY" report --limit 1000000 "$tmp/t.prof" | awk '/^ *[0-9.]+ +[0-9.]+ /' | wc -l)
	perf record -q -F 999 --call-graph dwarf -o "$tmp/p.data" -- xz -6 -T1 -c "$tmp/in" > /dev/null 2>&1
	p=$(perf report -q -i "$tmp/p.data" --no-children -g none --sort sym --stdio 2> /dev/null | awk '/%/ {sub("%","",$1); print $1}' | rows95 1)
	pn=$(perf report -q -i "$tmp/p.data" --no-children -g none --sort sym --stdio 2> /dev/null | grep -c '%')
	echo "run $i: tachy $t rows of $tn cover 95%; perf $p rows of $pn; ratio $(echo "$t $p" | awk '{printf "%.3f", $1 / $2}')"
done
