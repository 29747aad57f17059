#!/bin/sh
# run-tests.sh [--unit-only|--cli-only] UNITDIR
# Runs every unit-test binary in UNITDIR (each check counts as a test) and
# every command-line case in tests/cli/ (each case counts as one test), and
# ends with the line "N passed, N failed" (", N skipped" when some skipped).
#
# A command-line case is a folder tests/cli/NAME/ with:
#   cmd              shell script run by sh in a scratch copy of the folder,
#                    with $TACHY the binary under test, $TOP the repository,
#                    PATH starting with the repository root.
#   stdin            optional: its standard input (else /dev/null)
#   expected-stdout  optional: stdout must match exactly
#   expected-stderr  optional: stderr must match exactly
#   expected-status  optional: exit status (default 0)
#   skip-if          optional: sh script; exit 0 (printing why) skips the case
# T=GLOB in the environment runs only the cases (and unit tests) whose name
# matches the shell pattern GLOB (make cli-test T='record-*').
# UPDATE=1 writes what a failing case printed into its expected-stdout and
# expected-stderr (those it has) and expected-status, for review with git
# diff before committing (make cli-test UPDATE=1 T=NAME).
# A unit test or case that runs past TEST_TIMEOUT seconds (default 900: a
# sanitizer build on a slow, loaded machine) is killed, with its children,
# and fails as "timed out": a hang costs one test, never the whole run.
set -u
lim=${TEST_TIMEOUT:-900}
only=${T:-*}
mode=all
case "${1:-}" in --unit-only|--cli-only) mode=${1#--}; shift ;; esac
unitdir=${1:?usage: run-tests.sh [--unit-only|--cli-only] UNITDIR}
TOP=$(cd "$(dirname "$0")/.." && pwd)
TACHY="$TOP/tachy"
# Every case sees the quiet machine of tests/fixtures/ideal (tachy run's
# environment warnings and export); cases about the live machine unset it.
TACHY_SYSROOT="$TOP/tests/fixtures/ideal"
# tachy record's caches go to a directory of the caller's own, never $HOME
# nor the checkout: tachy uses a cache only where every directory above it is
# the user's or root's and writable by no one else (a checkout made with
# umask 002 and a shared group is not), removed at the end.
TACHY_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tachy-test-cache.XXXXXX") || exit 2
trap 'rm -rf "$TACHY_CACHE_DIR"' EXIT
# One locale for every case, whatever the caller's: UTF-8 (tachy's ± σ µ),
# in C's order and messages; the cases about the locale set their own.
LC_ALL=C.UTF-8
export TOP TACHY TACHY_SYSROOT TACHY_CACHE_DIR LC_ALL
pass=0 fail=0 skip=0
failed=""

if [ "$mode" != cli-only ]; then
	for t in "$unitdir"/t-*; do
		[ -x "$t" ] || continue
		name=${t##*/}
		case "$name" in $only) ;; *) continue ;; esac
		out=$(timeout -k 10 "$lim" "$t" 2>&1); st=$?
		[ $st = 124 ] && out="$out
$name: timed out after $lim s"
		line=$(printf '%s\n' "$out" | grep '^# checks ' | tail -n 1)
		p=$(echo "$line" | awk '{print $3}'); f=$(echo "$line" | awk '{print $4}')
		[ -n "$p" ] || { p=0; f=1; }
		[ $st -ne 0 ] && [ "$f" = 0 ] && f=1
		pass=$((pass + p)); fail=$((fail + f))
		if [ "$f" != 0 ]; then
			printf '%s\n' "$out" | grep -v '^# checks' | head -n 40
			echo "unit $name: $p passed, $f failed (exit $st)"
			failed="$failed unit:$name"
		else
			echo "unit $name: $p checks ok"
		fi
	done
fi

if [ "$mode" != unit-only ]; then
	scratch="$TOP/tests/tmp"
	[ "$only" = "*" ] && rm -rf "$scratch"
	mkdir -p "$scratch"
	for dir in "$TOP"/tests/cli/*/; do
		[ -f "$dir/cmd" ] || continue
		name=$(basename "$dir")
		case "$name" in $only) ;; *) continue ;; esac
		w="$scratch/$name"
		rm -rf "$w"
		cp -r "$dir" "$w"
		if [ -f "$w/skip-if" ]; then
			why=$(cd "$w" && PATH="$TOP:$PATH" sh ./skip-if 2>&1) && {
				echo "skip $name: $why"; skip=$((skip + 1)); continue; }
		fi
		input=/dev/null
		[ -f "$w/stdin" ] && input="$w/stdin"
		(cd "$w" && PATH="$TOP:$PATH" timeout -k 10 "$lim" sh ./cmd <"$input" >"$w/.out" 2>"$w/.err")
		st=$?
		want=0
		[ -f "$w/expected-status" ] && want=$(cat "$w/expected-status")
		ok=1 why=""
		[ "$st" = "$want" ] || { ok=0; why="exit status $st, expected $want"; }
		[ "$st" = 124 ] && [ "$want" != 124 ] && why="timed out after $lim s"
		if [ -f "$w/expected-stdout" ] && ! cmp -s "$w/expected-stdout" "$w/.out"; then
			ok=0; why="$why; stdout differs"
		fi
		if [ -f "$w/expected-stderr" ] && ! cmp -s "$w/expected-stderr" "$w/.err"; then
			ok=0; why="$why; stderr differs"
		fi
		if [ $ok = 0 ] && [ "${UPDATE:-}" = 1 ]; then
			[ -f "$dir/expected-stdout" ] && cp "$w/.out" "$dir/expected-stdout"
			[ -f "$dir/expected-stderr" ] && cp "$w/.err" "$dir/expected-stderr"
			if [ "$st" != 0 ] || [ -f "$dir/expected-status" ]; then echo "$st" > "$dir/expected-status"; fi
			echo "updated $name: review with git diff tests/cli/$name"
			ok=1
		fi
		if [ $ok = 1 ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)); failed="$failed cli:$name"
			echo "FAIL cli $name: ${why#; }"
			[ -f "$w/expected-stdout" ] && diff "$w/expected-stdout" "$w/.out" | head -n 20
			[ -f "$w/expected-stderr" ] && diff "$w/expected-stderr" "$w/.err" | head -n 10
			[ -f "$w/expected-stdout" ] || head -n 20 "$w/.out"
			[ -f "$w/expected-stderr" ] || head -n 20 "$w/.err"
		fi
	done
	echo "cli: $(ls -d "$TOP"/tests/cli/*/ 2>/dev/null | wc -l) cases"
fi

[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail = 0 ]
