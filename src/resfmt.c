/* resfmt.c - numbers of saved results as people read them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "resfmt.h"

struct prefix {
	double scale;
	const char *name;
};

static const struct prefix times[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "\xc2\xb5s"}, {1e-9, "ns"}};
static const struct prefix counts[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
static const struct prefix bytes[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"},
				      {1048576.0, "MiB"},       {1024.0, "KiB"},
				      {1, "B"}};

static const struct prefix *
pick(const struct prefix *p, size_t n, double ref)
{
	size_t i;

	ref = fabs(ref);
	for (i = 0; i + 1 < n; i++)
		if (ref >= p[i].scale)
			return &p[i];
	return &p[n - 1];
}

static char *
fixed(char *buf, size_t size, double x, const char *suffix)
{
	double a = fabs(x);
	int dec = a < 10 ? 3 : a < 100 ? 2 : a < 1000 ? 1 : 0;

	snprintf(buf, size, "%.*f%s", dec, x, suffix);
	return buf;
}

char *
resfmt_value(char *buf, size_t size, double v, double ref, const char *unit)
{
	const struct prefix *p;
	char suffix[32];

	if (!isfinite(v)) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (!isfinite(ref) || ref == 0)
		ref = v;
	if (strcmp(unit, "ns") == 0 || strcmp(unit, "us") == 0 || strcmp(unit, "ms") == 0) {
		double k = unit[0] == 'n' ? 1e-9 : unit[0] == 'u' ? 1e-6 : 1e-3;
		v *= k;
		ref *= k;
		unit = "s";
	}
	if (strcmp(unit, "KiB") == 0) {
		v *= 1024;
		ref *= 1024;
		unit = "B";
	}
	if (strcmp(unit, "s") == 0)
		p = pick(times, sizeof(times) / sizeof(times[0]), ref);
	else if (strcmp(unit, "B") == 0)
		p = pick(bytes, sizeof(bytes) / sizeof(bytes[0]), ref);
	else
		p = pick(counts, sizeof(counts) / sizeof(counts[0]), ref);
	if (strcmp(unit, "s") == 0 || strcmp(unit, "B") == 0 || unit[0] == '\0')
		snprintf(suffix, sizeof(suffix), "%s", p->name);
	else
		snprintf(suffix, sizeof(suffix), "%s %s", p->name, unit);
	return fixed(buf, size, v / p->scale, suffix);
}

char *
resfmt_pct(char *buf, size_t size, double pct)
{
	double a = fabs(pct);

	if (!isfinite(pct))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%+.*f%%", a < 1 ? 2 : 1, pct);
	return buf;
}

size_t
resfmt_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}
