#!/bin/sh
# fresh-root.sh [REPO] - README's quick start tried on a fresh Debian 12.
#
# Makes a minimal Debian 12 (debootstrap --variant=minbase bookworm, plus git,
# make and ca-certificates only) and, in copies of it:
#   root:  a clone in /root (mode 700), `make demo`, `make test`, then
#          `CI=true bash .ci/run`;
#   user:  a new user (no root, no sudo) with a clone in its home: `make demo`
#          (no compiler yet: deps.sh names what to install and how), then root
#          runs the command deps.sh printed, then the user's `make demo` and
#          `make test` (what needs a missing peer skips).
# REPO (default: this repository) is cloned with git, so only what is
# committed is tried. Prints each step's time and result, and ends with a
# table of them; exit 0 when every step did what README says.
# Needs root, debootstrap and the network (the mirror is the one in
# /etc/apt/sources.list(.d), or FRESH_MIRROR). FRESH_DIR (default
# /var/tmp/tachy-fresh) holds the roots; the minbase root is kept in
# FRESH_DIR/base and used again (FRESH_NEW_BASE=1 makes it again).
# FRESH_ONLY=root or FRESH_ONLY=user tries one of the two (base: only
# makes the base root).
# The roots are removed at the end unless FRESH_KEEP=1.
set -u
me=fresh-root
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
dir=${FRESH_DIR:-/var/tmp/tachy-fresh}
only=${FRESH_ONLY:-}
suite=bookworm

die() { echo "$me: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null 2>&1 || die "needs debootstrap: apt-get install -y debootstrap"
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "$repo is not a git repository"

# The mirror this machine uses for Debian (one-line or deb822 sources).
mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' |
		grep -v security | head -n 1)
fi
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { print $2 }' | grep -v security | head -n 1)
fi
mirror=${mirror:-http://deb.debian.org/debian}

summary=""
failed=0
expect_fail=""
# step NAME COMMAND...: runs COMMAND, timed; its output goes to stdout.
step() {
	name=$1
	shift
	echo "=== $me: $name ($(date -u +%H:%M:%S))"
	t0=$(date +%s)
	"$@"
	st=$?
	t=$(($(date +%s) - t0))
	res=ok
	if [ -n "$expect_fail" ]; then
		if [ $st = 0 ]; then res="exit 0, expected a failure"; failed=1; else res="exit $st: $expect_fail"; fi
		expect_fail=""
	elif [ $st != 0 ]; then
		res="exit $st"
		failed=1
	fi
	echo "=== $me: $name: ${t}s, $res"
	summary="$summary$(printf '%-34s %6ss  %s' "$name" "$t" "$res")
"
	return $st
}

# logged FILE COMMAND...: COMMAND's output in FILE too.
logged() {
	f=$1
	shift
	"$@" >"$f" 2>&1
	s=$?
	cat "$f"
	return $s
}

mounted=""
made=""
mount_root() {
	r=$1
	mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" && mount --make-rslave "$r/sys" &&
		mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" ||
		die "cannot mount /proc, /sys, /dev in $r"
	mounted="$mounted $r"
}
# Ends what was left running in a root (a server a test started), then
# unmounts it.
unmount_root() {
	r=$1
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	umount -R "$r/proc" "$r/sys" "$r/dev" 2>/dev/null
}
cleanup() {
	for r in $mounted; do unmount_root "$r"; done
	if [ "${FRESH_KEEP:-0}" != 1 ]; then
		for r in $made; do rm -rf "$r"; done
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# in ROOT COMMAND: COMMAND run by sh, as root, in a fresh login's
# environment (no locale set, as on a new machine).
in_root() {
	chroot "$1" env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c "$2"
}
as_user() {
	chroot "$1" runuser -u tester -- env -i HOME=/home/tester TERM=dumb \
		PATH=/usr/local/bin:/usr/bin:/bin sh -c "$2"
}

make_base() {
	rm -rf "$dir/base.new"
	debootstrap --variant=minbase --include=git,make,ca-certificates "$suite" \
		"$dir/base.new" "$mirror" && mv "$dir/base.new" "$dir/base"
}
mkdir -p "$dir" || die "cannot make $dir"
if [ "${FRESH_NEW_BASE:-0}" = 1 ] || [ ! -d "$dir/base" ]; then
	rm -rf "$dir/base"
	step "debootstrap minbase $suite" make_base || die "debootstrap failed (mirror $mirror)"
fi

# A copy of the base root, with a clone of REPO at CLONE (inside it), and no
# service started by a package's installation (as in a container).
new_root() {
	r=$dir/$1
	rm -rf "$r" && cp -a "$dir/base" "$r" || die "cannot copy the base root to $r"
	made="$made $r"
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" && chmod 755 "$r/usr/sbin/policy-rc.d"
	mount_root "$r"
}

try_root() {
	r=$dir/root
	new_root root
	git clone -q "$repo" "$r/root/tachy" || die "cannot clone $repo"
	step "root: make demo" in_root "$r" 'cd /root/tachy && make demo'
	step "root: make test" in_root "$r" 'cd /root/tachy && make test'
	step "root: CI=true bash .ci/run" in_root "$r" 'cd /root/tachy && CI=true bash .ci/run'
	unmount_root "$r"
}

try_user() {
	r=$dir/user
	new_root user
	in_root "$r" 'useradd -m -s /bin/sh tester' || die "cannot add a user"
	git clone -q "$repo" "$r/home/tester/tachy" || die "cannot clone $repo"
	in_root "$r" 'chown -R tester:tester /home/tester/tachy'
	# Without a compiler make demo must stop, naming the packages and the
	# command root runs; root then runs that command, as printed.
	out=$dir/user-demo-1.out
	expect_fail="as expected, no compiler"
	step "user: make demo (no compiler)" logged "$out" as_user "$r" 'cd ~/tachy && make demo'
	cmd=$(sed -n 's/^deps\.sh: .*as root, run: //p' "$out" | head -n 1)
	if [ -n "$cmd" ]; then
		step "root: $(echo "$cmd" | cut -c1-26)..." in_root "$r" "$cmd"
	else
		echo "$me: deps.sh did not print a command for root to run"
		summary="${summary}user: no command for root printed       FAIL
"
		failed=1
	fi
	step "user: make demo" as_user "$r" 'cd ~/tachy && make demo'
	step "user: make test" as_user "$r" 'cd ~/tachy && make test'
	unmount_root "$r"
}

[ "$only" = base ] && exit 0
echo "$me: $repo at $(git -C "$repo" rev-parse --short HEAD), mirror $mirror, in $dir"
[ "$only" = user ] || try_root
[ "$only" = root ] || try_user
echo "=== $me: summary"
printf '%s' "$summary"
exit $failed
