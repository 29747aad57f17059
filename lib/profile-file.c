/* profile-file.c - the profile's self-contained file format: writing and
 * reading (bounds-checked, every index validated).
 *
 * The file: "TACHYPRF", the version (u32), the header's check (u32), then
 * sections, each a tag (u32), a check (u32), the payload's length (u64)
 * and the payload, up to the END section (tag "END", length 0). All
 * little-endian. From version 3 the header's check is the CRC-32 of the
 * magic and the version, a section's the CRC-32 of its tag, length and
 * payload: a damaged file is refused, not read as wrong numbers. Versions
 * 1 and 2 wrote 0 in both and are read unchecked. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/crc32.h"
#include "tachy/outfile.h"
#include "tachy/profile-file.h"

enum {
	SEC_META = 1,
	SEC_STRINGS,
	SEC_FUNCS,
	SEC_LOCS,
	SEC_STACKS,
	SEC_THREADS,
	SEC_SAMPLES,
	SEC_MAPS,
	SEC_LINES,
	SEC_CALLS,
	SEC_CALLS_TRAP, /* per call: its samples at the trap's return (after SEC_CALLS) */
	SEC_END = 0x454e44
}; /* SEC_MAPS and after are optional (added later) */

static const char *const sec_names[] = {"?",	     "meta",   "strings", "functions",
					"locations", "stacks", "threads", "samples",
					"mappings",  "lines",  "calls",	  "calls-trap"};

struct buf {
	unsigned char *p;
	size_t n, cap;
	int err;
};

static void
put(struct buf *b, const void *v, size_t n)
{
	if (b->err || ty_array_grow(&b->p, 1, b->n + n, &b->cap) < 0) {
		b->err = 1;
		return;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static unsigned char *
le32(unsigned char *d, uint32_t v)
{
	d[0] = (unsigned char)v, d[1] = (unsigned char)(v >> 8);
	d[2] = (unsigned char)(v >> 16), d[3] = (unsigned char)(v >> 24);
	return d + 4;
}

static unsigned char *
le64(unsigned char *d, uint64_t v)
{
	return le32(le32(d, (uint32_t)v), (uint32_t)(v >> 32));
}

static void
put32(struct buf *b, uint32_t v)
{
	unsigned char x[4];
	le32(x, v);
	put(b, x, sizeof(x));
}

static void
put64(struct buf *b, uint64_t v)
{
	unsigned char x[8];
	le64(x, v);
	put(b, x, sizeof(x));
}

static void
putstr(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put32(b, (uint32_t)n);
	put(b, s, n);
}

static void
putkv(struct buf *b, const char *k, const char *v)
{
	putstr(b, k);
	putstr(b, v);
}

static void
putku(struct buf *b, const char *k, uint64_t v)
{
	char s[32];
	snprintf(s, sizeof(s), "%" PRIu64, v);
	putkv(b, k, s);
}

/* The check of a section: the CRC-32 of its tag and length (HEAD, the
 * 16-byte header with the check's 4 bytes left out) and its payload. */
static uint32_t
section_crc(const unsigned char *head, const unsigned char *payload, uint64_t len)
{
	uint32_t crc = ty_crc32(0, head, 4);

	crc = ty_crc32(crc, head + 8, 8);
	return ty_crc32(crc, payload, (size_t)len);
}

/* Fill in the check of the section whose header starts at OUT[AT]. */
static void
seal(struct buf *out, size_t at)
{
	unsigned char *h = out->p + at;
	uint64_t len = (uint64_t)(out->n - at - 16);

	le32(h + 4, section_crc(h, h + 16, len));
}

static void
section(struct buf *out, uint32_t tag, struct buf *b)
{
	size_t at = out->n;

	put32(out, tag);
	put32(out, 0);
	put64(out, b->n);
	put(out, b->p, b->n);
	if (b->err)
		out->err = 1;
	if (!out->err)
		seal(out, at);
	b->n = 0;
}

/* The samples section, written in place at the end of OUT (an off-CPU
 * recording has one per switch: 400,000 in 4 s at 100,000 a second). */
static void
samples(struct buf *out, const struct ty_profile *p)
{
	uint64_t len = 8 + 32 * (uint64_t)p->nsamples;
	unsigned char *d;
	size_t i, at;

	if (out->err || ty_array_grow(&out->p, 1, out->n + 16 + len, &out->cap) < 0) {
		out->err = 1;
		return;
	}
	d = le32(out->p + out->n, SEC_SAMPLES);
	d = le64(le32(d, 0), len);
	d = le64(d, p->nsamples);
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		d = le64(le64(d, s->time), s->period);
		d = le32(le32(le32(le32(d, s->tid), s->cpu), s->stack), s->state);
	}
	at = out->n;
	out->n = (size_t)(d - out->p);
	seal(out, at);
}

static void
encode(const struct ty_profile *p, struct buf *out)
{
	const struct ty_prof_meta *m = &p->meta;
	struct buf b = {0};
	size_t i;

	put(out, TY_PROFILE_MAGIC, 8);
	put32(out, TY_PROFILE_VERSION);
	put32(out, out->err ? 0 : ty_crc32(0, out->p, 12));
	put32(&b, (m->off_cpu_limits ? 19 : 18) + (m->start_unix_ns ? 2 : 0) +
		      (m->off_cpu ? 3 : 0) + (m->system_wide ? 2 : 0) + (m->calls_hit_ps ? 1 : 0) +
		      (m->calls_disturb_ps ? 1 : 0) + (m->sample_cost_ps ? 1 : 0));
	putkv(&b, "event", m->event ? m->event : "");
	putkv(&b, "command", m->command ? m->command : "");
	putku(&b, "use_freq", (uint64_t)m->use_freq);
	putku(&b, "rate", m->rate);
	putku(&b, "callchain", (uint64_t)m->callchain);
	putku(&b, "period_ns", (uint64_t)m->period_ns);
	putku(&b, "lost", m->lost);
	putku(&b, "throttled", m->throttled);
	putku(&b, "unthrottled", m->unthrottled);
	putku(&b, "profiler_cpu_ns", m->profiler_cpu_ns);
	putku(&b, "workload_cpu_ns", m->workload_cpu_ns);
	putku(&b, "wall_ns", m->wall_ns);
	putku(&b, "samples", p->nsamples);
	putku(&b, "workload_sys_ns", m->workload_sys_ns);
	putku(&b, "user_only", (uint64_t)m->user_only);
	putku(&b, "kernel_refused", (uint64_t)m->kernel_refused);
	putku(&b, "processes", m->processes);
	putku(&b, "off_cpu", (uint64_t)m->off_cpu);
	if (m->off_cpu_limits)
		putkv(&b, "off_cpu_limits", m->off_cpu_limits);
	if (m->off_cpu) {
		putku(&b, "switch_chain_hz", m->switch_chain_hz);
		putku(&b, "off_cpu_chained", m->off_cpu_chained);
		putku(&b, "off_cpu_chained_ns", m->off_cpu_chained_ns);
	}
	if (m->start_unix_ns) {
		putku(&b, "start_unix_ns", m->start_unix_ns);
		putku(&b, "start_mono_ns", m->start_mono_ns);
	}
	if (m->calls_hit_ps)
		putku(&b, "calls_hit_ps", m->calls_hit_ps);
	if (m->calls_disturb_ps)
		putku(&b, "calls_disturb_ps", m->calls_disturb_ps);
	if (m->sample_cost_ps)
		putku(&b, "sample_cost_ps", m->sample_cost_ps);
	if (m->system_wide) {
		putku(&b, "system_wide", 1);
		putkv(&b, "cpus", m->cpus ? m->cpus : "");
	}
	section(out, SEC_META, &b);
	put32(&b, p->nstrings);
	for (i = 0; i < p->nstrings; i++)
		putstr(&b, p->strings[i]);
	section(out, SEC_STRINGS, &b);
	put32(&b, p->nfuncs);
	for (i = 0; i < p->nfuncs; i++)
		put32(&b, p->funcs[i].name), put32(&b, p->funcs[i].dso);
	section(out, SEC_FUNCS, &b);
	put32(&b, p->nlocs);
	for (i = 0; i < p->nlocs; i++)
		put64(&b, p->locs[i].addr), put32(&b, p->locs[i].func);
	section(out, SEC_LOCS, &b);
	put32(&b, p->nstacks);
	for (i = 0; i < p->nstacks; i++) {
		uint32_t j, n = p->stack_off[i + 1] - p->stack_off[i];
		put32(&b, n);
		for (j = 0; j < n; j++)
			put32(&b, p->frames[p->stack_off[i] + j]);
	}
	section(out, SEC_STACKS, &b);
	put32(&b, p->nthreads);
	for (i = 0; i < p->nthreads; i++)
		put32(&b, p->threads[i].pid), put32(&b, p->threads[i].tid),
		    put32(&b, p->threads[i].comm);
	section(out, SEC_THREADS, &b);
	if (p->nmaps) {
		put32(&b, p->nmaps);
		for (i = 0; i < p->nmaps; i++)
			put32(&b, p->maps[i].dso), put32(&b, p->maps[i].build_id),
			    put64(&b, p->maps[i].start), put64(&b, p->maps[i].limit),
			    put64(&b, p->maps[i].offset);
		section(out, SEC_MAPS, &b);
	}
	for (i = 0; i < p->nlocs && p->locs[i].line == TY_NONE; i++)
		;
	if (i < p->nlocs) { /* one string index per location, TY_NONE: none */
		put32(&b, p->nlocs);
		for (i = 0; i < p->nlocs; i++)
			put32(&b, p->locs[i].line);
		section(out, SEC_LINES, &b);
	}
	if (p->ncalls) {
		put32(&b, p->ncalls);
		for (i = 0; i < p->ncalls; i++)
			put32(&b, p->calls[i].func), put64(&b, p->calls[i].count);
		section(out, SEC_CALLS, &b);
		for (i = 0; i < p->ncalls && p->calls[i].trap_state == TY_TRAP_UNKNOWN; i++)
			;
		if (i < p->ncalls) {
			put32(&b, p->ncalls);
			for (i = 0; i < p->ncalls; i++)
				put64(&b, p->calls[i].trap), put32(&b, p->calls[i].trap_state);
			section(out, SEC_CALLS_TRAP, &b);
		}
	}
	samples(out, p);
	section(out, SEC_END, &b);
	free(b.p);
}

int
ty_profile_write_fp(const struct ty_profile *p, FILE *out, const char *path, struct ty_error *e)
{
	struct buf b = {0};

	encode(p, &b);
	if (b.err) {
		free(b.p);
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	fwrite(b.p, 1, b.n, out);
	free(b.p);
	return 0;
}

int
ty_profile_write(const struct ty_profile *p, const char *path, struct ty_error *e)
{
	struct ty_outfile of;
	struct buf b = {0};
	int r;

	encode(p, &b);
	if (b.err) {
		free(b.p);
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	if ((r = ty_outfile_open(&of, path, e)) < 0) {
		free(b.p);
		return r;
	}
	fwrite(b.p, 1, b.n, of.fp);
	free(b.p);
	return ty_outfile_commit(&of, e);
}

/* Reading: a bounds-checked cursor; the first problem wins. */
struct rd {
	const unsigned char *p, *end;
	const char *what; /* the section being read */
	int bad;
	uint32_t version;
	const unsigned char *start; /* of the file, for offsets in messages */
};

static uint32_t
get32(struct rd *r)
{
	uint32_t v;

	if (r->bad || r->end - r->p < 4) {
		r->bad = 1;
		return 0;
	}
	v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
	    (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

static uint64_t
get64(struct rd *r)
{
	uint64_t lo = get32(r);
	return lo | (uint64_t)get32(r) << 32;
}

static char *
getstr(struct rd *r)
{
	uint32_t n = get32(r);
	char *s;

	if (r->bad || (size_t)(r->end - r->p) < n || memchr(r->p, '\0', n)) {
		r->bad = 1;
		return NULL;
	}
	if (!(s = malloc(n + 1))) {
		r->bad = 2;
		return NULL;
	}
	memcpy(s, r->p, n);
	s[n] = '\0';
	r->p += n;
	return s;
}

/* A count of items of at least MIN bytes each that must fit in the section. */
static int
count_ok(struct rd *r, uint64_t n, size_t min)
{
	if (r->bad || n >= TY_NONE || n > (uint64_t)(r->end - r->p) / min) {
		r->bad = r->bad ? r->bad : 1;
		return 0;
	}
	return 1;
}

static void
read_meta(struct rd *r, struct ty_profile *p)
{
	uint32_t n = get32(r), i;
	struct ty_prof_meta *m = &p->meta;

	if (!count_ok(r, n, 8))
		return;
	for (i = 0; i < n && !r->bad; i++) {
		char *k = getstr(r), *v = getstr(r);
		uint64_t u = v ? strtoull(v, NULL, 10) : 0;
		if (!k || !v) {
		} else if (strcmp(k, "event") == 0 && !m->event) {
			m->event = v, v = NULL;
		} else if (strcmp(k, "command") == 0 && !m->command) {
			m->command = v, v = NULL;
		} else if (strcmp(k, "use_freq") == 0) {
			m->use_freq = u != 0;
		} else if (strcmp(k, "rate") == 0) {
			m->rate = u;
		} else if (strcmp(k, "callchain") == 0) {
			m->callchain = u != 0;
		} else if (strcmp(k, "period_ns") == 0) {
			m->period_ns = u != 0;
		} else if (strcmp(k, "lost") == 0) {
			m->lost = u;
		} else if (strcmp(k, "throttled") == 0) {
			m->throttled = u;
		} else if (strcmp(k, "unthrottled") == 0) {
			m->unthrottled = u;
		} else if (strcmp(k, "profiler_cpu_ns") == 0) {
			m->profiler_cpu_ns = u;
		} else if (strcmp(k, "workload_cpu_ns") == 0) {
			m->workload_cpu_ns = u;
		} else if (strcmp(k, "wall_ns") == 0) {
			m->wall_ns = u;
		} else if (strcmp(k, "workload_sys_ns") == 0) {
			m->workload_sys_ns = u;
		} else if (strcmp(k, "user_only") == 0) {
			m->user_only = u != 0;
		} else if (strcmp(k, "kernel_refused") == 0) {
			m->kernel_refused = u != 0;
		} else if (strcmp(k, "processes") == 0) {
			m->processes = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		} else if (strcmp(k, "off_cpu") == 0) {
			m->off_cpu = u <= TY_OFFCPU_WALL ? (int)u : TY_OFFCPU_NONE;
		} else if (strcmp(k, "off_cpu_limits") == 0 && !m->off_cpu_limits) {
			m->off_cpu_limits = v, v = NULL;
		} else if (strcmp(k, "switch_chain_hz") == 0) {
			m->switch_chain_hz = u;
		} else if (strcmp(k, "off_cpu_chained") == 0) {
			m->off_cpu_chained = u;
		} else if (strcmp(k, "off_cpu_chained_ns") == 0) {
			m->off_cpu_chained_ns = u;
		} else if (strcmp(k, "start_unix_ns") == 0) {
			m->start_unix_ns = u;
		} else if (strcmp(k, "start_mono_ns") == 0) {
			m->start_mono_ns = u;
		} else if (strcmp(k, "calls_hit_ps") == 0) {
			m->calls_hit_ps = u;
		} else if (strcmp(k, "calls_disturb_ps") == 0) {
			m->calls_disturb_ps = u;
		} else if (strcmp(k, "sample_cost_ps") == 0) {
			m->sample_cost_ps = u;
		} else if (strcmp(k, "system_wide") == 0) {
			m->system_wide = u != 0;
		} else if (strcmp(k, "cpus") == 0 && !m->cpus) {
			m->cpus = v, v = NULL;
		}
		free(k);
		free(v);
	}
}

static void
read_section(struct rd *r, uint32_t tag, struct ty_profile *p)
{
	uint64_t n, i;

	switch (tag) {
	case SEC_META:
		read_meta(r, p);
		break;
	case SEC_STRINGS:
		if (!count_ok(r, n = get32(r), 4) ||
		    !(p->strings = calloc(n ? n : 1, sizeof(char *)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n && !r->bad; i++, p->nstrings++)
			p->strings[i] = getstr(r);
		if (r->bad && p->nstrings && !p->strings[p->nstrings - 1])
			p->nstrings--;
		break;
	case SEC_FUNCS:
		if (!count_ok(r, n = get32(r), 8) || !(p->funcs = calloc(n ? n : 1, 8))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++)
			p->funcs[i].name = get32(r), p->funcs[i].dso = get32(r);
		p->nfuncs = (uint32_t)n;
		break;
	case SEC_LOCS:
		if (!count_ok(r, n = get32(r), 12) ||
		    !(p->locs = calloc(n ? n : 1, sizeof(*p->locs)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++)
			p->locs[i].addr = get64(r), p->locs[i].func = get32(r),
			p->locs[i].line = TY_NONE;
		p->nlocs = (uint32_t)n;
		break;
	case SEC_LINES: /* after the locations */
		if (!count_ok(r, n = get32(r), 4) || n != p->nlocs) {
			r->bad = r->bad ? r->bad : 1;
			return;
		}
		for (i = 0; i < n; i++)
			p->locs[i].line = get32(r);
		break;
	case SEC_THREADS:
		if (!count_ok(r, n = get32(r), 12) ||
		    !(p->threads = calloc(n ? n : 1, sizeof(*p->threads)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++)
			p->threads[i].pid = get32(r), p->threads[i].tid = get32(r),
			p->threads[i].comm = get32(r);
		p->nthreads = (uint32_t)n;
		break;
	case SEC_CALLS:
		if (!count_ok(r, n = get32(r), 12) ||
		    !(p->calls = calloc(n ? n : 1, sizeof(*p->calls)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++)
			p->calls[i].func = get32(r), p->calls[i].count = get64(r);
		p->ncalls = p->cap_calls = (uint32_t)n;
		break;
	case SEC_CALLS_TRAP: /* after the calls */
		if (!count_ok(r, n = get32(r), 12) || n != p->ncalls) {
			r->bad = r->bad ? r->bad : 1;
			return;
		}
		for (i = 0; i < n; i++) {
			p->calls[i].trap = get64(r), p->calls[i].trap_state = get32(r);
			if (p->calls[i].trap_state >= TY_TRAP_STATES)
				r->bad = 1;
		}
		break;
	case SEC_MAPS:
		if (!count_ok(r, n = get32(r), 32) ||
		    !(p->maps = calloc(n ? n : 1, sizeof(*p->maps)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++) {
			p->maps[i].dso = get32(r), p->maps[i].build_id = get32(r);
			p->maps[i].start = get64(r), p->maps[i].limit = get64(r);
			p->maps[i].offset = get64(r);
		}
		p->nmaps = p->cap_maps = (uint32_t)n;
		break;
	case SEC_SAMPLES:
		if (!count_ok(r, n = get64(r), r->version >= 2 ? 32 : 28) ||
		    !(p->samples = malloc((n ? n : 1) * sizeof(*p->samples)))) {
			r->bad = r->bad ? r->bad : 2;
			return;
		}
		for (i = 0; i < n; i++) {
			struct ty_prof_sample *s = &p->samples[i];
			s->time = get64(r), s->period = get64(r);
			s->tid = get32(r), s->cpu = get32(r), s->stack = get32(r);
			s->state = r->version >= 2 ? get32(r) : TY_STATE_CPU;
			if (s->state >= TY_NSTATES)
				r->bad = 1;
			p->weight += (double)s->period;
		}
		p->nsamples = n;
		break;
	}
}

static void
read_stacks(struct rd *r, struct ty_profile *p)
{
	uint32_t n = get32(r), i, j, d;
	const unsigned char *start;

	if (!count_ok(r, n, 4))
		return;
	/* First pass: count frames, so both arrays are allocated once. */
	start = r->p;
	for (i = 0; i < n && !r->bad; i++) {
		d = get32(r);
		if (!count_ok(r, d, 4))
			return;
		r->p += 4 * (size_t)d;
		p->nframes += d;
	}
	/* sized once, to the count the file gives: no growing array */
	if (r->bad || p->nframes >= TY_NONE ||
	    !(p->stack_off = realloc(p->stack_off, (n + 1) * 4)) ||
	    !(p->frames = malloc((p->nframes ? p->nframes : 1) * 4))) {
		r->bad = r->bad ? r->bad : 2;
		p->nframes = 0;
		return;
	}
	r->p = start;
	p->stack_off[0] = 0;
	for (i = 0; i < n; i++) {
		d = get32(r);
		for (j = 0; j < d; j++)
			p->frames[p->stack_off[i] + j] = get32(r);
		p->stack_off[i + 1] = p->stack_off[i] + d;
	}
	p->nstacks = n;
}

static int
check_refs(const struct ty_profile *p, struct ty_error *e)
{
	size_t i;

	for (i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].name >= p->nstrings || p->funcs[i].dso >= p->nstrings)
			return ty_error_set(e, -EINVAL, "function %zu names string %u of %u", i,
					    p->funcs[i].name, p->nstrings);
	for (i = 0; i < p->nlocs; i++)
		if (p->locs[i].func >= p->nfuncs)
			return ty_error_set(e, -EINVAL, "location %zu refers to function %u of %u",
					    i, p->locs[i].func, p->nfuncs);
		else if (p->locs[i].line != TY_NONE && p->locs[i].line >= p->nstrings)
			return ty_error_set(e, -EINVAL, "location %zu names line string %u of %u",
					    i, p->locs[i].line, p->nstrings);
	for (i = 0; i < p->nframes; i++)
		if (p->frames[i] >= p->nlocs)
			return ty_error_set(e, -EINVAL, "a stack refers to location %u of %u",
					    p->frames[i], p->nlocs);
	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].comm >= p->nstrings)
			return ty_error_set(e, -EINVAL, "thread %u names string %u of %u",
					    p->threads[i].tid, p->threads[i].comm, p->nstrings);
	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].dso >= p->nstrings ||
		    (p->maps[i].build_id != TY_NONE && p->maps[i].build_id >= p->nstrings) ||
		    p->maps[i].limit < p->maps[i].start)
			return ty_error_set(e, -EINVAL, "mapping %zu is out of range", i);
	for (i = 0; i < p->ncalls; i++)
		if (p->calls[i].func >= p->nfuncs)
			return ty_error_set(e, -EINVAL, "call count %zu names function %u of %u", i,
					    p->calls[i].func, p->nfuncs);
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].stack >= p->nstacks)
			return ty_error_set(e, -EINVAL, "sample %zu refers to stack %u of %u", i,
					    p->samples[i].stack, p->nstacks);
	return 0;
}

static int
parse_sections(struct rd *r, struct ty_profile *p, struct ty_error *e)
{
	const unsigned char *head;
	unsigned seen = 0;
	uint32_t tag, check;
	uint64_t len;

	for (;;) {
		if (r->end - r->p < 16)
			return ty_error_set(e, -EINVAL,
					    "truncated: the file ends before its END "
					    "section");
		head = r->p;
		tag = get32(r);
		check = get32(r);
		len = get64(r);
		if (tag == 0)
			return ty_error_set(e, -EINVAL, "damaged: a section without a tag");
		if (len > (uint64_t)(r->end - r->p))
			return ty_error_set(
			    e, -EINVAL, "truncated: section %s needs %" PRIu64 " bytes, %zu left",
			    tag <= SEC_CALLS_TRAP ? sec_names[tag] : "?", len,
			    (size_t)(r->end - r->p));
		if (r->version >= 3 && check != section_crc(head, r->p, len))
			return ty_error_set(e, -EINVAL,
					    "damaged: the %s section at byte %zu fails its "
					    "checksum (the file changed after tachy wrote it: "
					    "record it again, or restore it from a copy)",
					    tag <= SEC_CALLS_TRAP ? sec_names[tag]
					    : tag == SEC_END	  ? "END"
								  : "unknown",
					    (size_t)(head - r->start));
		if (tag == SEC_END)
			break;
		if (tag >= 1 && tag <= SEC_CALLS_TRAP) {
			struct rd s = {r->p, r->p + len, sec_names[tag], 0, r->version, r->start};
			if (seen & (1u << tag))
				return ty_error_set(e, -EINVAL, "section %s appears twice",
						    sec_names[tag]);
			seen |= 1u << tag;
			if (tag == SEC_STACKS)
				read_stacks(&s, p);
			else
				read_section(&s, tag, p);
			if (s.bad == 2)
				return ty_error_set(e, -ENOMEM, "out of memory");
			if (s.bad || s.p != s.end)
				return ty_error_set(e, -EINVAL, "corrupt %s section", s.what);
		}
		r->p += len; /* unknown sections are skipped: newer minor additions */
	}
	if ((seen & 0xfe) != 0xfe)
		return ty_error_set(e, -EINVAL, "a required section is missing");
	return check_refs(p, e);
}

/* The version of the file whose first LEN bytes are BUF, or -EINVAL with
 * E set when they are not a profile's header that this tachy reads. */
static int
check_header(const unsigned char *buf, size_t len, struct ty_error *e)
{
	struct rd r = {buf + 8, buf + len, "header", 0, 0, buf};
	uint32_t version, reserved;

	if (len >= 8 && memcmp(buf, "PERFILE2", 8) == 0)
		return ty_error_set(e, -EINVAL,
				    "not a tachy profile: perf record's file (perf report reads "
				    "it; tachy record -- CMD writes one for tachy report)");
	if (len < 16 || memcmp(buf, TY_PROFILE_MAGIC, 8) != 0)
		return ty_error_set(e, -EINVAL, "not a tachy profile (no TACHYPRF magic)");
	version = get32(&r);
	reserved = get32(&r);
	if (version < TY_PROFILE_VERSION_MIN || version > TY_PROFILE_VERSION)
		return ty_error_set(e, -EINVAL,
				    "profile format version %u is not supported "
				    "(this tachy reads versions %d to %d)",
				    version, TY_PROFILE_VERSION_MIN, TY_PROFILE_VERSION);
	/* versions 1 and 2 wrote 0; from 3, the CRC-32 of the magic and the
	 * version (a flipped bit cannot turn a 3 into an unchecked 2) */
	if (reserved != (version >= 3 ? ty_crc32(0, buf, 12) : 0))
		return ty_error_set(e, -EINVAL,
				    "damaged: the header fails its checksum (the file changed "
				    "after tachy wrote it: record it again, or restore it from "
				    "a copy)");
	return (int)version;
}

int
ty_profile_parse(const void *buf, size_t len, struct ty_profile **out, struct ty_error *e)
{
	struct rd r = {buf, (const unsigned char *)buf + len, "header", 0, 0, buf};
	struct ty_profile *p;
	int ret;

	*out = NULL;
	if ((ret = check_header(buf, len, e)) < 0)
		return ret;
	r.p += 16;
	r.version = (uint32_t)ret;
	if (!(p = ty_profile_new()))
		return ty_error_set(e, -ENOMEM, "out of memory");
	free(p->stack_off);
	p->stack_off = NULL;
	if ((ret = parse_sections(&r, p, e)) < 0) {
		if (!p->stack_off)
			p->stack_off = calloc(1, 4);
		ty_profile_free(p);
		return ret;
	}
	if (!p->stack_off && !(p->stack_off = calloc(1, 4))) {
		ty_profile_free(p);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	p->cap_strings = p->nstrings;
	p->cap_funcs = p->nfuncs;
	p->cap_locs = p->nlocs;
	p->cap_stacks = p->nstacks + 1;
	p->cap_frames = p->nframes;
	p->cap_threads = p->nthreads;
	p->cap_samples = p->nsamples;
	*out = p;
	return 0;
}

/* How far into BUF[0..LEN) the sections up to and including END reach: 0
 * when more is needed to tell, -1 when a section header is impossible (no
 * tag, or a length past any file). Lets a stream be read as far as the
 * file says it goes, and no further. */
static long long
sections_end(const unsigned char *buf, size_t len)
{
	size_t off = 16;

	for (;;) {
		struct rd r = {buf + off, buf + len, "header", 0, 0, buf};
		uint32_t tag;
		uint64_t n;

		if (len - off < 16)
			return 0;
		tag = get32(&r);
		get32(&r);
		n = get64(&r);
		if (tag == 0 || n > (uint64_t)1 << 48)
			return -1;
		if (tag == SEC_END)
			return (long long)(off + 16);
		if (n > len - off - 16)
			return 0;
		off += 16 + (size_t)n;
	}
}

/* Read FD (named PATH) whole into *BUF, *LEN: the header first, refused
 * unless it is a profile's (so /dev/zero or a large file of something else
 * costs 16 bytes, not memory); then a regular file's size, or a stream's
 * sections up to END. Returns 0 or a negative errno with E set. */
static int
read_whole(int fd, const char *path, unsigned char **buf, size_t *len, struct ty_error *e)
{
	size_t cap = 0, want = 16, limit = SIZE_MAX;
	struct stat st;
	ssize_t n;
	long long end = 0;
	int ret;

	*buf = NULL;
	*len = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		limit = (size_t)st.st_size;
	for (;;) {
		if (*len == want) {
			if (want == 16 && (ret = check_header(*buf, *len, e)) < 0)
				return ret;
			if (limit != SIZE_MAX && *len >= limit)
				return 0;
			if (limit == SIZE_MAX && (end = sections_end(*buf, *len)) != 0)
				break;
			want = limit != SIZE_MAX ? limit : *len + 65536;
		}
		if (ty_array_grow(buf, 1, want, &cap) < 0)
			return ty_error_set(e, -ENOMEM, "out of memory");
		n = read(fd, *buf + *len, want - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ty_error_set(e, -errno, "%s", strerror(errno));
		if (n == 0) {
			if (*len < 16)
				return ty_error_set(e, -EINVAL, "not a tachy profile (%s)",
						    *len ? "shorter than its header" : "empty");
			return 0; /* truncated or a regular file that shrank: parse says */
		}
		*len += (size_t)n;
		if (limit == SIZE_MAX && *len > 16 && *len < want &&
		    (end = sections_end(*buf, *len)) != 0)
			break;
	}
	if (end < 0)
		return ty_error_set(e, -EINVAL, "damaged: a section header is impossible");
	*len = (size_t)end; /* what the file said it holds; the rest is not read */
	return 0;
}

int
ty_profile_read(const char *path, struct ty_profile **out, struct ty_error *e)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	if (fd < 0)
		return ty_error_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	ret = read_whole(fd, path, &buf, &len, e);
	if (ret == 0)
		ret = ty_profile_parse(buf, len, out, e);
	if (ret < 0) {
		char msg[TY_ERROR_MAX];
		snprintf(msg, sizeof(msg), "%s", e ? e->msg : "");
		if (ret == -EINVAL || ret == -ENOMEM)
			ty_error_set(e, ret, "%s: %s", path, msg);
		else
			ty_error_set(e, ret, "cannot read '%s': %s", path, msg);
	}
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}
