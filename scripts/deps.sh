#!/bin/sh
# deps.sh GROUP... - install what tachy's targets need, from Debian's packages.
# Groups: build (the C compiler, libc's headers, make, pkg-config and the
# optional libraries), test (peers the tests compare against, g++ for the
# C++ demangling test, golang-go for go tool pprof, the reference reader of
# report --pprof, postgresql for the history store's tests against a real
# server, clang and libclang-rt-14-dev for make fuzz, libc6-dbg for libc's
# names in call chains, npm for speedscope's page, rustc for Rust's names
# in a profile), ci (clang-format for
# make fmt-check), bench (peers the benchmarks measure). Only missing
# packages are installed: with apt-get when root, with sudo otherwise
# (apt-get update first when the package lists are empty or a week old,
# apt-get's progress shown); where neither works, the packages and the
# command for root that installs them are printed and the script carries
# on (build: the features that need a missing library say "not built with
# X", and `make NO_OPTIONAL=1` builds the core with libc and libm only;
# test, bench: the tests that need a missing peer skip with a message).
# Without a C compiler nothing can be built: then it exits 1.
set -u

pkgs_cc="gcc libc6-dev make"
pkgs_build="$pkgs_cc pkg-config libjansson-dev libelf-dev libdw-dev libpfm4-dev zlib1g-dev liblzma-dev libdebuginfod-dev libsqlite3-dev libpq-dev libiberty-dev"
# (TACHY_DEPS_BUILD replaces the build group: tests/cli/deps-no-root)
pkgs_build=${TACHY_DEPS_BUILD:-$pkgs_build}
pkgs_test="g++ valgrind ministat hyperfine linux-perf multitime python3 python3-numpy python3-scipy binutils chromium golang-go librsvg2-bin xz-utils postgresql sqlite3 clang libclang-rt-14-dev libc6-dbg nodejs npm rustc"
pkgs_ci="clang-format"
pkgs_bench="ministat hyperfine linux-perf multitime time sqlite3 valgrind xz-utils gzip python3"

want=""
cc_needed=0
for g in "$@"; do
	case "$g" in
	build) want="$want $pkgs_build"; cc_needed=1 ;;
	test) want="$want $pkgs_test" ;;
	ci) want="$want $pkgs_ci" ;;
	bench) want="$want $pkgs_bench" ;;
	*) echo "deps.sh: unknown group '$g' (build, test, ci, bench)" >&2; exit 2 ;;
	esac
done

# No compiler at the end: nothing builds, say so and stop make.
no_cc() {
	[ $cc_needed = 1 ] || return 0
	command -v "${CC:-cc}" >/dev/null 2>&1 && return 0
	echo "deps.sh: no C compiler (${CC:-cc}): tachy cannot be built without one" >&2
	exit 1
}

command -v dpkg-query >/dev/null 2>&1 || {
	echo "deps.sh: not a Debian system; install the equivalents of:$want" >&2
	no_cc
	exit 0
}

installed() {
	case "$1" in
	npm) command -v npm >/dev/null 2>&1 && return 0 ;; # (nodesource's nodejs has it)
	esac
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	installed "$p" || missing="$missing $p"
done

# speedscope's page (the report --speedscope viewer test), pinned, from npm
# into build/npm: only for the test group, and only once.
npm_test() {
	case " $want " in *" npm "*) ;; *) return 0 ;; esac
	[ -f build/npm/node_modules/speedscope/package.json ] &&
		grep -q '"version": "1.25.0"' build/npm/node_modules/speedscope/package.json && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "deps.sh: npm is not installed: speedscope's page is not (report-speedscope-viewer skips)" >&2
		return 0
	fi
	echo "deps.sh: installing speedscope 1.25.0 from npm into build/npm"
	mkdir -p build
	npm install --no-audit --no-fund --prefix build/npm speedscope@1.25.0 >build/npm-install.log 2>&1 &&
		rm -f build/npm-install.log ||
		echo "deps.sh: could not install speedscope from npm (report-speedscope-viewer skips;" \
			"npm's output: build/npm-install.log)" >&2
}

[ -z "$missing" ] && { no_cc; npm_test; exit 0; }

# apt-get update is needed first where the lists are empty (a new
# debootstrap or container) or older than a week.
lists_stale() {
	for f in /var/lib/apt/lists/*_Packages*; do
		[ -f "$f" ] || return 0
		[ -n "$(find "$f" -mtime -7 2>/dev/null)" ] && return 1
	done
	return 0
}

if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo"
else
	echo "deps.sh: missing packages (Debian):$missing" >&2
	upd=""
	lists_stale && upd="apt-get update && "
	if command -v sudo >/dev/null 2>&1; then
		echo "deps.sh: to install them, run: ${upd:+sudo }${upd}sudo apt-get install -y$missing" >&2
	else
		echo "deps.sh: to install them, as root, run: ${upd}apt-get install -y$missing" >&2
	fi
	no_cc
	# Without root the build goes on: the Makefile finds what is there, and
	# the features whose library is missing say "not built with X".
	[ $cc_needed = 1 ] && echo "deps.sh: going on without them: 'make NO_OPTIONAL=1' builds" \
		"the core (run, stat) with libc and libm only" >&2
	npm_test
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# apt-get's progress, one line per step, without the bars meant for a terminal.
APT="$SUDO apt-get -q -o Dpkg::Use-Pty=0 -o APT::Color=0"
if lists_stale; then
	echo "deps.sh: apt-get update (the package lists are empty or a week old)"
	$APT update || echo "deps.sh: apt-get update failed; trying with the lists there are" >&2
fi
echo "deps.sh: installing (apt-get${SUDO:+ with sudo}):$missing"
# Install what is available; a package the archive lacks must not stop the rest.
if ! $APT install -y $missing; then
	echo "deps.sh: apt-get update, then the packages one by one"
	$APT update
	for p in $missing; do
		installed "$p" || $APT install -y "$p" || echo "deps.sh: could not install $p" >&2
	done
fi
left=""
for p in $missing; do
	installed "$p" || left="$left $p"
done
if [ -n "$left" ]; then
	echo "deps.sh: not installed:$left (what needs them skips, or says 'not built with X')" >&2
else
	echo "deps.sh: installed:$missing"
fi
no_cc
npm_test
exit 0
