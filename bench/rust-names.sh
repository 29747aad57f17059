#!/bin/sh
# rust-names.sh - the names of a Rust program's hot functions as tachy
# report shows them against perf report's, for the legacy scheme (rustc's
# default) and v0 (-C symbol-mangling-version=v0). Each tool records the
# same binary; the functions of the program's own file at 1% or more in
# either profile are listed side by side, and each at 3% or more in one
# must appear under the same name in the other (ROUNDS=600: 3% is a dozen
# samples or more in both; missing there means named differently).
# Needs rustc (Debian's rustc) and perf (linux-perf).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
ROUNDS=${ROUNDS:-600}
out="$TOP/bench/out/rust-names"
mkdir -p "$out"
[ -x "$T" ] || { echo "rust-names: build tachy first (make)"; exit 1; }
command -v rustc >/dev/null 2>&1 || { echo "rust-names: skipped: rustc is not installed (apt-get install rustc)"; exit 0; }
command -v perf >/dev/null 2>&1 || { echo "rust-names: skipped: perf is not installed (apt-get install linux-perf)"; exit 0; }

# NAME<TAB>PERCENT of the program's own functions, from each tool's flat
# profile (perf: "  12.34%  comm  dso  [.] name"; tachy: "  12.34 ... name  dso").
perf_names() {
	perf report -i "$1" --stdio --sort dso,sym 2>/dev/null |
		awk -v d="$2" '$1 ~ /%$/ && $2 == d && $3 == "[.]" {
			p = $1; sub(/%$/, "", p); $1 = $2 = $3 = ""; sub(/^ +/, ""); print $0 "\t" p }'
}
tachy_names() {
	"$T" report "$1" | awk -v d="$2" '$1 ~ /^[0-9.]+$/ && $NF == d {
		p = $1; $1 = $2 = $3 = $4 = $5 = $6 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print $0 "\t" p }'
}

fail=0
for scheme in legacy v0; do
	flag=""
	[ $scheme = v0 ] && flag="-C symbol-mangling-version=v0"
	bin="$out/names-$scheme"
	rm -f "$out/$scheme.missing"
	rustc -O -C force-frame-pointers=yes $flag -o "$bin" bench/rust-names.rs || exit 1
	perf record -q -F 999 -o "$out/$scheme.perf" -- "$bin" "$ROUNDS" >/dev/null 2>&1 ||
		{ echo "rust-names: perf record failed (perf_event_paranoid?)"; exit 1; }
	"$T" record -q -F 999 -o "$out/$scheme.tprof" -- "$bin" "$ROUNDS" >/dev/null || exit 1
	perf_names "$out/$scheme.perf" "names-$scheme" | sort >"$out/$scheme.perf.txt"
	tachy_names "$out/$scheme.tprof" "names-$scheme" | sort >"$out/$scheme.tachy.txt"
	echo "== $scheme ($(rustc --version)): the program's functions at 1% or more in either profile"
	printf '%-8s %-8s %s\n' perf% tachy% name
	cut -f1 "$out/$scheme.perf.txt" "$out/$scheme.tachy.txt" | sort -u | while IFS= read -r n; do
		p=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$out/$scheme.perf.txt")
		t=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$out/$scheme.tachy.txt")
		big=$(awk -v p="${p:-0}" -v t="${t:-0}" 'BEGIN { print (p >= 1 || t >= 1) }')
		[ "$big" = 1 ] || continue
		printf '%-8s %-8s %s\n' "${p:--}" "${t:--}" "$n"
		sure=$(awk -v p="${p:-0}" -v t="${t:-0}" 'BEGIN { print (p >= 3 || t >= 3) }')
		[ "$sure" = 0 ] || { [ -n "$p" ] && [ -n "$t" ]; } || echo "MISSING in one tool: $n" >>"$out/$scheme.missing"
	done
	if [ -s "$out/$scheme.missing" ]; then
		echo "$scheme: names DIFFER:"; cat "$out/$scheme.missing"; rm -f "$out/$scheme.missing"; fail=1
	else
		echo "$scheme: every name at 3% or more is the same in both"
	fi
done
exit $fail
