/* profile-perfdata-sched.c - tracepoint formats from a perf.data's
 * tracing data and the sched_switch fields of its samples
 * (profile-perfdata-sched.h). */
#include "tachy/profile-perfdata-sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/profile.h"

/* A bounds-checked cursor over the tracing data. */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t
get(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n)
		return c->bad = 1, 0;
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

static void
skip(struct cur *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p))
		c->bad = 1;
	else
		c->p += n;
}

/* A NUL-terminated string: its start (NULL when none ends in the data). */
static const char *
string(struct cur *c)
{
	const unsigned char *nul;
	const char *s = (const char *)c->p;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p))))
		return c->bad = 1, NULL;
	c->p = nul + 1;
	return s;
}

/* The value after KEY ("ID: ") at the start of a line of TEXT[LEN]. */
static const char *
line_value(const char *text, size_t len, const char *key)
{
	size_t k = strlen(key), i;

	for (i = 0; i + k <= len; i++)
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, key, k) == 0)
			return text + i + k;
	return NULL;
}

/* A decimal number at S (before END), or -1. */
static long long
number(const char *s, const char *end)
{
	long long v = 0;

	if (!s || s >= end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9' && v < (1ll << 40))
		v = v * 10 + (*s++ - '0');
	return v;
}

/* The field NAME of the format TEXT[LEN] into F (size 0: none). A field
 * line: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;", NAME maybe
 * with "[N]". */
static void
field(const char *text, size_t len, const char *name, struct ty_tp_field *f)
{
	const char *end = text + len, *s = text;
	size_t n = strlen(name);

	f->off = f->size = 0;
	while (s < end && (s = memchr(s, 'f', (size_t)(end - s)))) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *semi, *at;
		long long off, size;
		if (!eol)
			eol = end;
		if ((size_t)(eol - s) < 6 || memcmp(s, "field:", 6) != 0 ||
		    !(semi = memchr(s, ';', (size_t)(eol - s)))) {
			s = eol;
			continue;
		}
		for (at = semi; at > s && at[-1] != ' ' && at[-1] != '\t' && at[-1] != ':'; at--)
			;
		if ((size_t)(semi - at) >= n && memcmp(at, name, n) == 0 &&
		    (at + n == semi || at[n] == '[')) {
			const char *o = NULL, *z = NULL, *q;
			for (q = semi; q + 7 <= eol && !(o && z); q++) {
				if (!o && memcmp(q, "offset:", 7) == 0)
					o = q + 7;
				if (!z && q + 5 <= eol && memcmp(q, "size:", 5) == 0)
					z = q + 5;
			}
			off = number(o, eol);
			size = number(z, eol);
			if (off >= 0 && size > 0 && off <= 65536 && size <= 8) {
				f->off = (uint32_t)off;
				f->size = (uint32_t)size;
			}
			return;
		}
		s = eol;
	}
}

/* The format TEXT[LEN] if its ID is ID: its name, and sched_switch's
 * fields. 1 when it is, 0 when not. */
static int
format(const char *text, size_t len, uint64_t id, char *name, size_t namelen,
       struct ty_tp_switch *sw)
{
	const char *v = line_value(text, len, "ID: "), *nm, *eol;
	size_t n;

	if (number(v, text + len) != (long long)id)
		return 0;
	name[0] = '\0';
	if ((nm = line_value(text, len, "name: "))) {
		eol = memchr(nm, '\n', (size_t)(text + len - nm));
		n = (size_t)((eol ? eol : text + len) - nm);
		snprintf(name, namelen, "%.*s", (int)(n < namelen ? n : namelen - 1), nm);
	}
	if (strcmp(name, "sched_switch") == 0) {
		field(text, len, "prev_pid", &sw->prev_pid);
		field(text, len, "prev_state", &sw->prev_state);
		field(text, len, "next_pid", &sw->next_pid);
	}
	return 1;
}

int
ty_tp_format(const unsigned char *td, size_t len, uint64_t id, char *name, size_t namelen,
	     struct ty_tp_switch *sw, char *why, size_t whylen)
{
	static const unsigned char magic[10] = {0x17, 0x08, 0x44, 't', 'r',
						'a',  'c',  'i',  'n', 'g'};
	struct cur c = {td, td ? td + len : td, 0};
	uint64_t i, j, n, systems;
	int k;
	const struct ty_tp_field *f[3] = {&sw->prev_pid, &sw->prev_state, &sw->next_pid};

	memset(sw, 0, sizeof(*sw));
	name[0] = '\0';
	if (!td || len < sizeof(magic) || memcmp(td, magic, sizeof(magic)) != 0) {
		snprintf(why, whylen, "%s",
			 td ? "its tracing data is damaged (no magic)"
			    : "it has no tracing data (the tracepoints' formats)");
		return -1;
	}
	c.p += sizeof(magic);
	string(&c); /* the version */
	if (get(&c, 1)) {
		snprintf(why, whylen, "its tracing data is big-endian: not supported");
		return -1;
	}
	get(&c, 1);			    /* the size of a long */
	get(&c, 4);			    /* of a page */
	for (i = 0; i < 2 && !c.bad; i++) { /* header_page, header_event */
		string(&c);
		skip(&c, get(&c, 8));
	}
	for (n = get(&c, 4), i = 0; i < n && !c.bad; i++) /* ftrace's own formats */
		skip(&c, get(&c, 8));
	for (systems = get(&c, 4), i = 0; i < systems && !c.bad; i++) {
		string(&c);
		for (n = get(&c, 4), j = 0; j < n && !c.bad; j++) {
			uint64_t size = get(&c, 8);
			const char *text = (const char *)c.p;
			skip(&c, size);
			if (c.bad || !format(text, (size_t)size, id, name, namelen, sw))
				continue;
			if (strcmp(name, "sched_switch") != 0)
				return 0;
			for (k = 0; k < 3; k++) {
				if (!f[k]->size) {
					snprintf(why, whylen,
						 "its format of sched_switch has no field %s",
						 k == 0	  ? "prev_pid"
						 : k == 1 ? "prev_state"
							  : "next_pid");
					return -1;
				}
				if (f[k]->off + f[k]->size > sw->need)
					sw->need = f[k]->off + f[k]->size;
			}
			return 0;
		}
	}
	snprintf(why, whylen, "%s tracepoint %llu",
		 c.bad ? "its tracing data is cut before" : "its tracing data has no format of",
		 (unsigned long long)id);
	return -1;
}

static uint64_t
read_field(const struct ty_tp_field *f, const unsigned char *raw)
{
	uint64_t v = 0;

	memcpy(&v, raw + f->off, f->size); /* little-endian: the file's */
	return v;
}

int
ty_tp_switch_read(const struct ty_tp_switch *sw, const unsigned char *raw, size_t size,
		  uint32_t *prev_pid, uint64_t *prev_state, uint32_t *next_pid)
{
	if (!raw || !sw->need || size < sw->need)
		return -1;
	*prev_pid = (uint32_t)read_field(&sw->prev_pid, raw);
	*prev_state = read_field(&sw->prev_state, raw);
	*next_pid = (uint32_t)read_field(&sw->next_pid, raw);
	return 0;
}

uint32_t
ty_tp_switch_state(uint64_t s)
{
	if ((s & 0xff) == 0) /* running: preempted (the kernel's mark above) */
		return TY_STATE_RUNNABLE;
	if (s & 0x02) /* D */
		return TY_STATE_IO;
	if (s & 0x81) /* S, I */
		return TY_STATE_SLEEP;
	return TY_STATE_BLOCKED;
}
