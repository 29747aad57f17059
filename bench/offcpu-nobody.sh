#!/bin/sh
# offcpu-nobody.sh - off-CPU time in the right function without root
# (BENCHMARKS.md, tachy record --off-cpu / --wall): a program that computes
# 0.80 s, sleeps 0.70 s in nanosleep and blocks 0.45 s in read()
# (tests/data/offcpu-phases.c) recorded with --wall -g, RUNS rounds, each
# round as root (the kernel's chain at every switch-out) then as nobody
# (user space only: chains read from /proc while the waits last). Each
# function's share of the profile (its total: the stacks it is on) against
# the program's own clock in the same run; the worst of the rounds.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
RUNS=${RUNS:-5}
[ -x build/std/tachy ] || { echo "offcpu-nobody: build tachy first (make)"; exit 1; }
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1 && id nobody >/dev/null 2>&1 ||
	{ echo "offcpu-nobody: run as root, with runuser and a user nobody"; exit 1; }
d=$(mktemp -d /tmp/tachy-offcpu-nobody.XXXXXX)
trap 'rm -rf "$d"' EXIT
cp build/std/tachy "$d/tachy"
cc -O2 -o "$d/phases" tests/data/offcpu-phases.c || exit 1
mkdir "$d/out"
chmod 755 "$d" "$d/tachy" "$d/phases"
chown nobody "$d/out"
i=1
while [ "$i" -le "$RUNS" ]; do
	for who in root nobody; do
		run=
		[ "$who" = nobody ] && run="runuser -u nobody --"
		$run "$d/tachy" record --wall -g -q -o "$d/out/$who.prof" -- "$d/phases" > "$d/own-$who-$i" || exit 1
		$run "$d/tachy" report --folded "$d/out/$who.prof" > "$d/folded-$who-$i" || exit 1
		$run "$d/tachy" report "$d/out/$who.prof" | grep '^Chains:' > "$d/chains-$who-$i"
	done
	i=$((i + 1))
done
python3 - "$d" "$RUNS" <<'PY'
import re, sys
d, runs = sys.argv[1], int(sys.argv[2])
names = ('compute_phase', 'sleep_phase', 'read_phase')
worst = {}
for who in ('root', 'nobody'):
    rows = []
    for i in range(1, runs + 1):
        own = {k: float(v) for k, v in re.findall(r'(\w+_phase) ([0-9.]+)%', open(f'{d}/own-{who}-{i}').read())}
        tot, share = 0, dict.fromkeys(names, 0)
        for line in open(f'{d}/folded-{who}-{i}'):
            stack, w = line.rstrip('\n').rsplit(' ', 1)
            tot += int(w)
            frames = stack.split(';')
            for k in names:
                if k in frames:
                    share[k] += int(w)
        share = {k: 100.0 * v / tot for k, v in share.items()}
        ch = open(f'{d}/chains-{who}-{i}').read().strip()
        m = re.search(r'([0-9.]+)% of the off-CPU time', ch)
        own_ch = m.group(1) + '%' if m else '100% (every interval)'
        print(f'{who} run {i}: ' + ', '.join(f'{k} {share[k]:.1f}% (own {own[k]:.1f}%, {share[k] - own[k]:+.1f})' for k in names) + f'; off-CPU time with its own chain {own_ch}')
        rows.append(max(abs(share[k] - own[k]) for k in names))
    worst[who] = max(rows)
for who in ('root', 'nobody'):
    print(f'{who}: largest distance to the own clock over {runs} runs: {worst[who]:.1f} points (target <= 4)')
PY
