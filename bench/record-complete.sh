#!/bin/sh
# record-complete.sh - the end line's share of complete chains of
# `tachy record -g` (its own count: the unwinder's verdict, a runtime's
# roots, and the samples inside an execve call as complete as the chain of
# the call the exec probe gave them, collect-exec.c) on three C programs,
# RUNS times each (default 5), beside two busy loops:
#   gzip: Debian's gzip -9 (built without frame pointers: CFI) on 4 MB
#   stripped: an -O1 PIE loop, stripped (_start and main named by elfsyms.c)
#   exec: tests/cli/record-exec-probe/ep.c, 300 vfork+execve and
#     posix_spawn of itself (about a fifth of its samples inside an execve
#     call; as root the exec probe gives them their call's chain, without it
#     (TACHY_NO_EXEC_PROBE=1, or not root) they stay incomplete)
# Prints each run's share and the lowest. TACHY=path picks the binary
# (default build/std/tachy: `make all` first).
set -u
cd "$(dirname "$0")/.." || exit 1
TACHY=${TACHY:-$PWD/build/std/tachy}
RUNS=${RUNS:-5}
command -v cc >/dev/null 2>&1 || { echo "record-complete: skipped: no C compiler (apt-get install gcc)"; exit 0; }
command -v gzip >/dev/null 2>&1 || { echo "record-complete: skipped: no gzip"; exit 0; }
out=$(mktemp -d) || exit 1
b1="" b2=""
trap 'kill $b1 $b2 2>/dev/null; rm -rf "$out"' EXIT INT TERM
awk 'BEGIN { srand(7); for (i = 0; i < 200000; i++) printf "%d %s\n", int(rand() * 100000), "line of text to squeeze" }' >"$out/in.txt"
cat >"$out/spin.c" <<'C'
__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0, i;
	for (i = 0; i < n; i++)
		s = s * 31 + (i ^ (s >> 7));
	return s;
}
int main(void)
{
	return (int)(work(200000000ul) & 1);
}
C
cc -O1 -pie -fPIE -o "$out/spin" "$out/spin.c" && strip "$out/spin" || exit 1
cc -O2 -o "$out/ep" tests/cli/record-exec-probe/ep.c || exit 1
sh -c 'while :; do :; done' & b1=$!
sh -c 'while :; do :; done' & b2=$!
for w in gzip stripped exec; do
	case $w in
	gzip) set -- gzip -9 -c "$out/in.txt" ;;
	stripped) set -- "$out/spin" ;;
	exec) set -- "$out/ep" ;;
	esac
	low=
	i=1
	while [ $i -le "$RUNS" ]; do
		"$TACHY" record -F 1999 -g -o "$out/p.tprof" -- "$@" >/dev/null 2>"$out/err"
		pct=$(sed -n 's/.* \([0-9.]*\)% of \([0-9]*\) chains complete.*/\1 \2/p' "$out/err")
		p=${pct% *}
		printf '%-8s run %2d: %5s%% of %s chains complete\n' $w $i "${p:-?}" "${pct:+${pct#* }}"
		low=$(awk -v a="${low:-101}" -v b="${p:-0}" 'BEGIN { print (b < a ? b : a) }')
		i=$((i + 1))
	done
	echo "$w: lowest $low% of $RUNS runs"
done
