#!/bin/sh
# concurrent.sh DB [RESTART] - the history store under concurrent writers
# (tests/cli/history-concurrent*): 8 writers each add 4 commits (c1..c4,
# the same for all), each add two files of two machines (m1, m2), the even
# writers in the order m1 m2, the odd ones m2 m1; a 9th writer adds 60
# results per commit and is killed (SIGKILL) at the start of its 4th add;
# with RESTART (a command), the server is restarted as after a crash once
# every writer has stored two commits. A writer whose add fails while the
# server is down waits for it (a lock the restart holds) and adds again.
# Prints what must hold: every add stored once, the killed writer's
# commits whole or absent, no result without its figures, no message but
# "stored" (and "cannot connect" while the server was down), no password.
# Run in an empty directory; TACHY's tachy first in PATH.
set -u
db=$1 restart=${2:-}
N=4
export GIT_DIR=/nonexistent
src="$TOP/tests/data/results/not-run.json"
w=1
while [ $w -le 8 ]; do
	mkdir "w$w"
	for m in m1 m2; do
		sed -e "s/\"bench1\"/\"$m\"/" -e "s/\"name\": \"\\([a-z]*\\)\"/\"name\": \"w$w-\\1\"/" \
			"$src" >"w$w/$m.json"
	done
	w=$((w + 1))
done
mkdir k && (cd k && i=1 && while [ $i -le 60 ]; do
	sh "$TOP"/tests/data/history/gen.sh "k-b$i" 1 0 0 "b$i-" && i=$((i + 1)); done)
mkfifo ready kfifo
: >restart.lock
exec 3<>ready 4<>kfifo

writer() {
	w=$1
	cd "w$w" || exit 1
	if [ $((w % 2)) = 0 ]; then set -- m1.json m2.json; else set -- m2.json m1.json; fi
	i=1
	while [ $i -le $N ]; do
		tries=1
		until tachy history add --db "$db" --commit "c$i" "$@" 2>>err; do
			[ $tries -lt 5 ] || { echo "writer $w: add c$i failed $tries times" >>../lost; break; }
			tries=$((tries + 1))
			flock -s ../restart.lock true
		done
		[ $i = 2 ] && echo "$w" >../ready
		i=$((i + 1))
	done
}

killed() {
	cd k || exit 1
	i=1
	while [ $i -le 4 ]; do
		tachy history add --db "$db" --commit "c$i" --machine mk b*.json 2>>err &
		echo $! >pid
		echo "$i" >../kfifo
		wait $! || break
		i=$((i + 1))
	done
}

w=1
while [ $w -le 8 ]; do
	writer $w &
	w=$((w + 1))
done
killed 2>/dev/null &
n=0
while [ $n -lt 4 ] && read -r line <&4; do
	n=$((n + 1))
	[ $n = 4 ] && kill -9 "$(cat k/pid)" 2>/dev/null
done
if [ -n "$restart" ]; then
	n=0
	while [ $n -lt 8 ] && read -r line <&3; do n=$((n + 1)); done
	flock -o restart.lock sh -c "$restart" && echo "server restarted while 8 writers were adding"
fi
wait

cat w*/err k/err 2>/dev/null | grep -v 'results stored in' |
	grep -v "cannot connect: connection to server on socket .* failed" >unexpected
echo "unexpected messages: $(wc -l <unexpected)"
head -n 5 unexpected
echo "adds lost: $(cat lost 2>/dev/null | wc -l)"
cat w*/err k/err 2>/dev/null | grep -c Secret | sed 's/$/ messages with the password/'
tachy history list --db "$db" >list || exit 1
# benchmark machine commits runs: each writer's 2 benchmarks x 2 machines, 4 commits of 6 runs
awk 'NR > 1 && $1 ~ /^w[1-8]-/ { n++; if ($3 == 4 && $4 == 24) ok++ }
	END { print n " series of the 8 writers, " ok " with every commit once" }' list
# the killed writer: 60 benchmarks, all with the same commits (a commit
# is whole or absent), at least the 3 it finished
awk '$1 ~ /^k-b/ { n++; c[$3]++ }
	END { k = 0; lo = 99; for (x in c) { k++; if (x + 0 < lo) lo = x + 0 }
		print "killed writer: " n " benchmarks, " (k == 1 ? "every commit whole" : "a commit half-stored") \
			", " (lo >= 3 ? "at least 3 commits" : lo " commits") }' list
