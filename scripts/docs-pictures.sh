#!/bin/sh
# docs-pictures.sh - render the example pictures the README shows
# (docs/img/*.png): tachy plot of two commands, history plot of a trend with
# a step, and run --flame's differential flame graph. Needs rsvg-convert
# (librsvg2-bin) and a C compiler; run from the repository root after make.
set -e
top=$(pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"
# two sorts, B about 28% slower: deterministic runs (no random generator)
awk 'BEGIN {
	printf "{\"results\": ["
	for (k = 0; k < 2; k++) {
		printf "%s{\"command\": \"sort -n %s\", \"times\": [", k ? ", " : "", k ? "B" : "A"
		for (r = 0; r < 40; r++) {
			u = ((r * 2654435761 + k * 977 + 12345) % 10007) / 10007
			printf "%s%.6f", r ? ", " : "", k ? 0.230 + 0.17 * u * u : 0.160 + 0.11 * u
		}
		printf "]}"
	}
	printf "]}\n"
}' > sorts.json
"$top"/tachy plot -o plot.svg sorts.json
rsvg-convert plot.svg -o "$top"/docs/img/plot.png
export GIT_DIR=/nonexistent
sh "$top"/tests/data/history/gen.sh sort 30 15 10
for f in c*.json; do
	"$top"/tachy history add --db h.db --commit "${f%.json}" --machine ci "$f" 2> /dev/null
done
"$top"/tachy history plot --db h.db -o trend.svg
rsvg-convert trend.svg -o "$top"/docs/img/trend.png
cc -O1 -fno-omit-frame-pointer -o planted "$top"/tests/data/planted.c
"$top"/tachy run -q -r 10 --flame flame.svg -n A './planted 4000000 1' \
	-n B './planted 4000000 4' > /dev/null
rsvg-convert flame.svg -o "$top"/docs/img/flame-diff.png
