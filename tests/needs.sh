# needs.sh - sourced by a case's skip-if: `needs CMD...` skips the case
# (prints why and exits 0) when one of the commands is not installed,
# naming the Debian package and the command for root that installs it.
needs() {
	for n in "$@"; do
		command -v "$n" >/dev/null 2>&1 && continue
		case "$n" in
		python3) p=python3 ;;
		perf) p=linux-perf ;;
		go) p=golang-go ;;
		rsvg-convert) p=librsvg2-bin ;;
		cc) p=gcc ;;
		strip) p=binutils ;;
		psql) p=postgresql-client ;;
		flock | runuser) p=util-linux ;;
		*) p=$n ;;
		esac
		echo "$n is not installed (as root: apt-get install $p, or sh scripts/deps.sh test)"
		exit 0
	done
}
