#!/bin/sh
# demo.sh - a real example of what tachy does, run by `make demo`:
# benchmark two commands against each other, then compare two data sets
# the way ministat does.
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seq 1 200000 | sort -R > "$tmp/numbers"

# Show each command as it could be typed (words with spaces quoted), then run it.
run() {
	printf '\n$'
	for w in "$@"; do
		case "$w" in
		*[[:space:]]*) printf " '%s'" "$w" ;;
		*) printf ' %s' "$w" ;;
		esac
	done
	printf '\n'
	"$@"
}

run ./tachy run --warmup 2 --max-time 3 -n 'sort' "sort $tmp/numbers" \
	-n 'sort -n' "sort -n $tmp/numbers" --export-json "$tmp/sort.json"
printf '\n(%s written: hyperfine-compatible JSON with every run)\n' "$tmp/sort.json"
python3 -c "import json,sys; print(sys.argv[1], '->', len(json.load(open(sys.argv[1]))['results']), 'results')" "$tmp/sort.json" 2>/dev/null || true

# Two builds' times, ten runs each (seed 000's habit): the second is ~2% slower.
awk 'BEGIN { srand(1); for (i = 0; i < 10; i++) print 58.8 + (rand() + rand() + rand() - 1.5) / 2 }' > "$tmp/before"
awk 'BEGIN { srand(2); for (i = 0; i < 10; i++) print 60.1 + (rand() + rand() + rand() - 1.5) / 2 }' > "$tmp/after"
run ./tachy stat "$tmp/before" "$tmp/after"
run ./tachy stat --test mann-whitney "$tmp/before" "$tmp/after"
