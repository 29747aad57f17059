#!/bin/sh
# record-hostile.sh [BASE_TACHY] - what a hostile binary costs `tachy record
# -g` (issue 34): time, peak RSS (/usr/bin/time) and what was left in the
# cache, for (1) a small program with a 1.5 GB zlib bomb section
# (.debug_bomb, 1.5 MB on disk) beside its own compressed DWARF, and (2) a
# 600 MB binary (a big .data) with one small compressed section. BASE_TACHY
# (e.g. main's build in a scratch copy) is measured in the same run, each
# program recorded by both in turn, with a cold cache each time.
set -u
cd "$(dirname "$0")/.."
T=$PWD/tachy
BASE=${1:-}
out=$PWD/bench/out/hostile
command -v python3 >/dev/null 2>&1 || { echo "record-hostile.sh: python3 missing, skipped"; exit 0; }
[ -x /usr/bin/time ] || { echo "record-hostile.sh: /usr/bin/time missing (apt-get install time), skipped"; exit 0; }
# BENCH_SMOKE=1 (make bench-smoke): a 15 MB bomb, a 6 MB binary, a short spin.
bomb=1500000000 big=600 spin=300000000
[ "${BENCH_SMOKE:-0}" = 1 ] && bomb=15000000 big=6 spin=3000000
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
cat > bomb.c <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void spin(void)
{
	for (unsigned long i = 0; i < SPIN; i++)
		sink += i * 2654435761u ^ (i >> 7);
}
int main(void) { spin(); return 0; }
C
cc -O1 -g -gz=zlib -DSPIN=$spin -o bomb bomb.c || exit 1
python3 "$OLDPWD/tests/fixtures/hostile/addsec.py" bomb .debug_bomb $bomb || exit 1
# the same work, 600 MB of initialized data beside it, one 0x243-byte section
sed 's/^volatile unsigned long sink;/volatile unsigned long sink; char big[BIG << 20] = {1};/' bomb.c > big.c
cc -O1 -g -DSPIN=$spin -DBIG=$big -o big big.c || exit 1
python3 "$OLDPWD/tests/fixtures/hostile/addsec.py" big .debug_small 0x243 || exit 1
printf 'files: bomb %s bytes, big %s bytes\n' "$(stat -c %s bomb)" "$(stat -c %s big)"
one() { # NAME TACHY PROG
	rm -rf cache
	/usr/bin/time -f '%e %M' -o time.txt env TACHY_CACHE_DIR=$PWD/cache "$2" record -g -q \
		-o p.prof -- "./$3" 2> rec.err
	st=$?
	printf '%-6s %-5s exit %s: %6s s, peak RSS %7s KB, cache %s\n' "$1" "$3" "$st" \
		$(cat time.txt) "$(du -sh cache 2>/dev/null | cut -f1)"
}
for prog in bomb big; do
	[ -n "$BASE" ] && one base "$BASE" $prog
	one branch "$T" $prog
done
