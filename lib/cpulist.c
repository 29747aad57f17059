/* cpulist.c - CPU lists ("0-3,6"): parsing and writing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/cpulist.h"

/* A CPU number at *P (decimal digits, at most 5); -1 when there is none. */
static int
number(const char **p)
{
	const char *s = *p;
	int v = 0, n = 0;

	while (*s >= '0' && *s <= '9' && n < 6) {
		v = v * 10 + (*s - '0');
		s++, n++;
	}
	if (n == 0 || n == 6)
		return -1;
	*p = s;
	return v;
}

int
ty_cpulist_parse(struct ty_cpulist *l, const char *text, int limit, struct ty_error *e)
{
	unsigned char *set;
	const char *p = text;
	int lo, hi, c;

	memset(l, 0, sizeof(*l));
	if (limit <= 0 || limit > TY_CPULIST_MAX)
		limit = TY_CPULIST_MAX;
	if (!*text)
		return ty_error_set(e, -EINVAL, "the CPU list is empty: give CPUs as 0 or 0-3,6");
	if (!(set = calloc((size_t)limit, 1)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (;;) {
		if ((lo = number(&p)) < 0)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if ((hi = number(&p)) < 0)
				goto bad;
		}
		if (*p && *p != ',')
			goto bad;
		if (hi < lo) {
			free(set);
			return ty_error_set(e, -EINVAL, "CPU range %d-%d runs backwards", lo, hi);
		}
		if (hi >= limit) {
			free(set);
			return ty_error_set(e, -EINVAL,
					    "CPU %d does not exist here (CPUs 0 to %d; see "
					    "/sys/devices/system/cpu/online)",
					    hi, limit - 1);
		}
		for (c = lo; c <= hi; c++)
			set[c] = 1;
		if (!*p)
			break;
		p++;
	}
	for (c = 0; c < limit; c++)
		l->n += set[c];
	if (!(l->cpus = malloc(l->n * sizeof(*l->cpus)))) {
		free(set);
		l->n = 0;
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	l->n = 0;
	for (c = 0; c < limit; c++)
		if (set[c])
			l->cpus[l->n++] = c;
	free(set);
	return 0;
bad:
	free(set);
	return ty_error_set(e, -EINVAL,
			    "'%.40s' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and "
			    "ranges joined by commas)",
			    text);
}

int
ty_cpulist_has(const struct ty_cpulist *l, int cpu)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->cpus[mid] == cpu)
			return 1;
		if (l->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

char *
ty_cpulist_format(const struct ty_cpulist *l, char *buf, size_t len)
{
	size_t i = 0, n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	while (i < l->n) {
		size_t j = i;
		char part[32];
		int k;
		while (j + 1 < l->n && l->cpus[j + 1] == l->cpus[j] + 1)
			j++;
		k = j > i ? snprintf(part, sizeof(part), "%s%d-%d", n ? "," : "", l->cpus[i],
				     l->cpus[j])
			  : snprintf(part, sizeof(part), "%s%d", n ? "," : "", l->cpus[i]);
		if (n + (size_t)k + 4 > len) {
			if (n + 4 <= len)
				memcpy(buf + n, "...", 4);
			return buf;
		}
		memcpy(buf + n, part, (size_t)k + 1);
		n += (size_t)k;
		i = j + 1;
	}
	return buf;
}

void
ty_cpulist_release(struct ty_cpulist *l)
{
	free(l->cpus);
	l->cpus = NULL;
	l->n = 0;
}
