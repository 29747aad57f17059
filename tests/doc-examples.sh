# doc-examples.sh - run the examples a document shows, as written.
#
#   sh "$TOP/tests/doc-examples.sh" FILE [SED]
#
# FILE is a man page (docs/*.1: the command lines of its EXAMPLES section's
# .nf blocks, `\-` read as `-`, a leading "$ " dropped) or README.md (the
# indented lines that start with `tachy SUBCOMMAND `, the trailing "# ..."
# comment dropped). SED, when given, is a sed script applied to each line
# before it runs: the case's stand-ins for what a line cannot take literally
# (a process id, "welch|mann-whitney"); keep it short, each rewrite is a line
# no longer run as printed. Each line runs with `sh -c` in the current
# directory (the case's stand-ins, ./prog and friends, are there) and prints
# "ok: LINE" when it exits 0 (0 or 3, the gate's verdict, for a line with
# --fail-if-slower), else "FAIL (exit N): LINE" and its stderr's last lines.
# The exit status is the number of lines that failed (at most 100).
f=$1
sedscript=${2:-}
case "$f" in
*.1)
	lines=$(awk '/^\.SH/ { ex = ($2 ~ /^EXAMPLES?$/) } ex && /^\.nf/ { nf = 1; next }
		ex && /^\.fi/ { nf = 0 } ex && nf' "$f" |
		sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\e/\\/g' -e 's/^\$ //' |
		grep -E '(^|[|&;] *)tachy [a-z]')
	;;
*)
	lines=$(grep -E '^    tachy [a-z]+ ' "$f" | sed -e 's/^    //' -e 's/  *# .*$//')
	;;
esac
[ -n "$lines" ] || {
	echo "no examples found in $f"
	exit 1
}
failed=0
nl='
'
IFS=$nl
for l in $lines; do
	unset IFS
	run=$l
	[ -n "$sedscript" ] && run=$(printf '%s\n' "$l" | sed -e "$sedscript")
	sh -c "$run" >example.out 2>example.err </dev/null
	st=$?
	case "$st:$l" in
	0:* | 3:*--fail-if-slower*) echo "ok: $l" ;;
	*)
		echo "FAIL (exit $st): $l"
		[ "$run" != "$l" ] && echo "  (run as: $run)"
		tail -n 5 example.err | sed 's/^/  /'
		failed=$((failed + 1))
		;;
	esac
	IFS=$nl
done
unset IFS
rm -f example.out example.err
[ $failed -gt 100 ] && failed=100
exit $failed
