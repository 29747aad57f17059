#!/bin/sh
# deps.sh GROUP... - install what tachy's targets need, from Debian's packages.
# Groups: build (optional libraries), test (peers the tests compare against,
# golang-go for go tool pprof, the reference reader of report --pprof, and
# postgresql for the history store's tests against a real server, clang and
# libclang-rt-14-dev for make fuzz),
# bench (peers the benchmarks measure). Only missing packages are installed:
# with apt-get when root, with sudo otherwise; where neither works, the
# packages and the command to install them are printed and the script
# carries on (build: the features that need a missing library say "not
# built with X", and `make NO_OPTIONAL=1` builds the core with libc and libm
# only; test, bench: the tests that need a missing peer skip with a message).
set -u

pkgs_build="pkg-config libjansson-dev libelf-dev libdw-dev libpfm4-dev zlib1g-dev liblzma-dev libdebuginfod-dev libsqlite3-dev libpq-dev"
# (TACHY_DEPS_BUILD replaces the build group: tests/cli/deps-no-root)
pkgs_build=${TACHY_DEPS_BUILD:-$pkgs_build}
pkgs_test="ministat hyperfine linux-perf multitime python3 python3-numpy python3-scipy binutils chromium golang-go librsvg2-bin xz-utils postgresql sqlite3 clang libclang-rt-14-dev nodejs"
pkgs_bench="ministat hyperfine linux-perf multitime time sqlite3"

want=""
hard=0 # build: say that the core builds without them
for g in "$@"; do
	case "$g" in
	build) want="$want $pkgs_build"; hard=1 ;;
	test) want="$want $pkgs_test" ;;
	bench) want="$want $pkgs_bench" ;;
	*) echo "deps.sh: unknown group '$g' (build, test, bench)" >&2; exit 2 ;;
	esac
done

command -v dpkg-query >/dev/null 2>&1 || {
	echo "deps.sh: not a Debian system; install the equivalents of:$want" >&2
	exit 0
}

missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# speedscope's page (the report --speedscope viewer test), pinned, from npm
# into build/npm: only where node and npm are, and only once.
npm_test() {
	case " $want " in *" chromium "*) ;; *) return 0 ;; esac
	[ -f build/npm/node_modules/speedscope/package.json ] &&
		grep -q '"version": "1.25.0"' build/npm/node_modules/speedscope/package.json && return 0
	command -v npm >/dev/null 2>&1 || return 0
	npm install --silent --no-audit --no-fund --prefix build/npm speedscope@1.25.0 >/dev/null 2>&1 ||
		echo "deps.sh: could not install speedscope from npm (its viewer test skips)" >&2
}

[ -z "$missing" ] && { npm_test; exit 0; }

if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo"
else
	echo "deps.sh: missing packages (Debian):$missing" >&2
	if command -v sudo >/dev/null 2>&1; then
		echo "deps.sh: to install them: sudo apt-get install -y$missing" >&2
	else
		echo "deps.sh: to install them, as root: apt-get install -y$missing" >&2
	fi
	# Without root the build goes on: the Makefile finds what is there, and
	# the features whose library is missing say "not built with X".
	[ $hard = 1 ] && echo "deps.sh: going on without them: 'make NO_OPTIONAL=1' builds" \
		"the core (run, stat) with libc and libm only" >&2
	exit 0
fi

echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Install what is available; a package the archive lacks must not stop the rest.
if ! $SUDO apt-get install -y -qq $missing >/dev/null 2>&1; then
	$SUDO apt-get update -qq >/dev/null 2>&1
	if ! $SUDO apt-get install -y -qq $missing >/dev/null 2>&1; then
		for p in $missing; do
			$SUDO apt-get install -y -qq "$p" >/dev/null 2>&1 ||
				echo "deps.sh: could not install $p" >&2
		done
	fi
fi
npm_test
exit 0
