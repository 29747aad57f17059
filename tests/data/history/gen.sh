#!/bin/sh
# gen.sh NAME N AT PCT [PREFIX] - N hyperfine exports PREFIX001.json ...
# (default prefix c) of one benchmark NAME with 10 runs each around 10 ms,
# the level PCT percent higher from commit AT on (1-based; 0: no step), and
# a deterministic 1% noise (no random generator: every awk gives the same).
name=$(printf '%s' "$1" | sed 's/["\\]/\\&/g') n=$2 at=$3 pct=$4 prefix=${5:-c}
i=1
while [ "$i" -le "$n" ]; do
	f=$(printf '%s%03d.json' "$prefix" "$i")
	NAME=$name awk -v i="$i" -v at="$at" -v pct="$pct" 'BEGIN {
		name = ENVIRON["NAME"]
		level = 0.010
		if (at > 0 && i >= at) level *= 1 + pct / 100
		s = ""
		# a commit-to-commit spread (0.6%) and a run-to-run one (2%)
		c = ((i * 2654435761 + 977) % 9973) / 9973 - 0.5
		for (r = 0; r < 10; r++) {
			u = ((i * 1103515245 + r * 2654435761 + i * r * 7 + 12345) % 10007) / 10007 - 0.5
			v = level * (1 + 0.006 * c + 0.02 * u)
			s = s (r ? ", " : "") sprintf("%.9f", v)
			sum += v
		}
		m = sum / 10
		printf "{\"results\": [{\"command\": \"%s\", \"mean\": %.9f, \"stddev\": 0.0001, ", name, m
		printf "\"median\": %.9f, \"user\": 0.001, \"system\": 0.001, \"min\": %.9f, ", m, m
		printf "\"max\": %.9f, \"times\": [%s]}]}\n", m, s
	}' > "$f"
	i=$((i + 1))
done
