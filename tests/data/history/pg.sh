#!/bin/sh
# pg.sh start DIR | restart DIR | stop DIR - a throwaway PostgreSQL server for the tests:
# initdb in DIR/data as an unprivileged user (nobody when run as root,
# else the caller), listening on a Unix socket in DIR only (no TCP), with
# trust authentication for the user "tachy". start prints the URI to use
# and waits at most 30 s for the server; restart stops it at once (as a
# crash would) and starts it again; stop stops it at once. Without a
# server to run, start says why on stderr and fails.
set -u
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { [ "$cmd" = stop ] && exit 0; echo "no PostgreSQL server (as root: apt-get install postgresql)" >&2; exit 1; }
# (a directory the server's user can be in: not the caller's, maybe mode 700)
cd "$dir" || exit 1
as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}
case "$cmd" in
start)
	[ "$(id -u)" = 0 ] && chown nobody "$dir"
	as "$bin/initdb" -D "$dir/data" -U tachy -A trust --no-sync --locale=C -E UTF8 \
		>"$dir/initdb.log" 2>&1 || { echo "initdb failed: $(tail -n 1 "$dir/initdb.log")" >&2; exit 1; }
	as timeout 40 "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
		-o "-k $dir -c listen_addresses= -F" start >/dev/null 2>&1 ||
		{ echo "the server did not start: $(tail -n 1 "$dir/server.log" 2>/dev/null)" >&2; exit 1; }
	echo "postgresql:///postgres?host=$dir&user=tachy"
	;;
restart)
	# as after a crash: no shutdown checkpoint, recovery on start
	as timeout 70 "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -m immediate \
		-o "-k $dir -c listen_addresses= -F" restart >/dev/null 2>&1 ||
		{ echo "the server did not restart: $(tail -n 1 "$dir/server.log" 2>/dev/null)" >&2; exit 1; }
	;;
stop)
	[ -f "$dir/data/postmaster.pid" ] &&
		as timeout 30 "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1
	exit 0
	;;
esac
