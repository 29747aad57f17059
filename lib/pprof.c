/* pprof.c - export to pprof's profile.proto, encoded here (it is small):
 * samples aggregated per stack with [samples/count, cpu/nanoseconds] (or
 * [samples/count, events/count]), one location per profile location, one
 * function per profile function, one mapping per DSO; gzip via zlib. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "tachy/array.h"
#include "tachy/outfile.h"
#include "tachy/pprof.h"

struct pb {
	unsigned char *p;
	size_t n, cap;
	int err;
};

static void
pb_put(struct pb *b, const void *v, size_t n)
{
	if (b->err)
		return;
	if (ty_array_grow(&b->p, 1, b->n + n, &b->cap) < 0) {
		b->err = 1;
		return;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void
varint(struct pb *b, uint64_t v)
{
	unsigned char x[10];
	size_t n = 0;

	do {
		x[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	pb_put(b, x, n);
}

static void
field_varint(struct pb *b, unsigned field, uint64_t v)
{
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

static void
field_bytes(struct pb *b, unsigned field, const void *v, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	pb_put(b, v, n);
}

/* Append submessage SUB as FIELD of B, and empty SUB. */
static void
field_msg(struct pb *b, unsigned field, struct pb *sub)
{
	field_bytes(b, field, sub->p, sub->n);
	if (sub->err)
		b->err = 1;
	sub->n = 0;
}

static void
value_type(struct pb *b, unsigned field, uint64_t type, uint64_t unit)
{
	struct pb m = {0};

	field_varint(&m, 1, type);
	field_varint(&m, 2, unit);
	field_msg(b, field, &m);
	free(m.p);
}

/* The mapping message of DSO string I (link-time addresses, as the
 * locations'). */
static void
put_mapping(struct pb *b, struct pb *m, const struct ty_profile *p, uint32_t i)
{
	uint32_t j;

	field_varint(m, 1, (uint64_t)i + 1);
	for (j = 0; j < p->nmaps && p->maps[j].dso != i; j++)
		;
	if (j < p->nmaps) {
		field_varint(m, 2, p->maps[j].start);
		field_varint(m, 3, p->maps[j].limit);
		field_varint(m, 4, p->maps[j].offset);
	}
	field_varint(m, 5, (uint64_t)i + 1);
	if (j < p->nmaps && p->maps[j].build_id != TY_NONE)
		field_varint(m, 6, (uint64_t)p->maps[j].build_id + 1);
	field_varint(m, 7, 1); /* has_functions */
	field_msg(b, 3, m);
}

/* The DSO of the command itself: the one named as the command's first word
 * is (by its last path component), else the first one with samples that is
 * not the kernel's or another [pseudo] one. TY_NONE when there is none. */
static uint32_t
main_mapping(const struct ty_profile *p)
{
	const char *cmd = p->meta.command ? p->meta.command : "", *base;
	size_t len;
	uint32_t j, first = TY_NONE;

	len = strcspn(cmd, " ");
	for (base = cmd + len; base > cmd && base[-1] != '/'; base--)
		;
	len -= (size_t)(base - cmd);
	for (j = 0; j < p->nfuncs; j++) {
		const char *d = p->strings[p->funcs[j].dso], *slash = strrchr(d, '/');
		const char *dbase = slash ? slash + 1 : d;
		if (len && strlen(dbase) == len && strncmp(dbase, base, len) == 0)
			return p->funcs[j].dso;
		if (first == TY_NONE && d[0] != '[')
			first = p->funcs[j].dso;
	}
	return first;
}

int
ty_pprof_encode(const struct ty_profile *p, unsigned char **out, size_t *outlen)
{
	struct pb b = {0}, m = {0}, packed = {0};
	uint64_t *n = calloc(p->nstacks ? p->nstacks : 1, 8), *w;
	uint64_t extra = (uint64_t)p->nstrings + 1; /* our strings shift by one: "" is first */
	uint32_t i, j, main_dso;
	size_t k;

	w = calloc(p->nstacks ? p->nstacks : 1, 8);
	if (!n || !w) {
		free(n), free(w);
		return -ENOMEM;
	}
	for (k = 0; k < p->nsamples; k++) {
		n[p->samples[k].stack]++;
		w[p->samples[k].stack] += p->samples[k].period;
	}
	/* sample_type: samples/count, cpu/nanoseconds (or events/count) */
	value_type(&b, 1, extra + 0, extra + 1);
	value_type(&b, 1, extra + 2, extra + 3);
	for (i = 0; i < p->nstacks; i++) {
		if (!n[i])
			continue;
		for (j = p->stack_off[i]; j < p->stack_off[i + 1]; j++)
			varint(&packed, (uint64_t)p->frames[j] + 1);
		field_msg(&m, 1, &packed);
		varint(&packed, n[i]);
		varint(&packed, w[i]);
		field_msg(&m, 2, &packed);
		field_msg(&b, 2, &m);
	}
	/* one mapping per DSO string used by a function, the command's first:
	 * pprof takes the first mapping for the main binary */
	main_dso = main_mapping(p);
	if (main_dso != TY_NONE)
		put_mapping(&b, &m, p, main_dso);
	for (i = 0; i < p->nstrings; i++) {
		int used = 0;
		for (j = 0; j < p->nfuncs && !used; j++)
			used = p->funcs[j].dso == i;
		if (used && i != main_dso)
			put_mapping(&b, &m, p, i);
	}
	for (i = 0; i < p->nlocs; i++) {
		struct pb line = {0};
		field_varint(&m, 1, (uint64_t)i + 1);
		field_varint(&m, 2, (uint64_t)p->funcs[p->locs[i].func].dso + 1);
		field_varint(&m, 3, p->locs[i].addr);
		field_varint(&line, 1, (uint64_t)p->locs[i].func + 1);
		if (p->locs[i].line != TY_NONE) { /* "file:line": Line.line */
			const char *c = strrchr(p->strings[p->locs[i].line], ':');
			unsigned long ln = c ? strtoul(c + 1, NULL, 10) : 0;
			if (ln)
				field_varint(&line, 2, ln);
		}
		field_msg(&m, 4, &line);
		free(line.p);
		field_msg(&b, 4, &m);
	}
	for (i = 0; i < p->nfuncs; i++) {
		field_varint(&m, 1, (uint64_t)i + 1);
		field_varint(&m, 2, (uint64_t)p->funcs[i].name + 1);
		field_varint(&m, 3, (uint64_t)p->funcs[i].name + 1);
		field_varint(&m, 4, (uint64_t)p->funcs[i].dso + 1);
		field_msg(&b, 5, &m);
	}
	field_bytes(&b, 6, "", 0);
	for (i = 0; i < p->nstrings; i++)
		field_bytes(&b, 6, p->strings[i], strlen(p->strings[i]));
	{
		const char *ex[4] = {"samples", "count", p->meta.period_ns ? "cpu" : "events",
				     p->meta.period_ns ? "nanoseconds" : "count"};
		for (i = 0; i < 4; i++)
			field_bytes(&b, 6, ex[i], strlen(ex[i]));
	}
	field_varint(&b, 10, p->meta.wall_ns);
	value_type(&b, 11, extra + 2, extra + 3);
	if (!p->meta.use_freq)
		field_varint(&b, 12, p->meta.rate);
	else if (p->meta.rate)
		field_varint(&b, 12, 1000000000ull / p->meta.rate);
	free(n), free(w), free(m.p), free(packed.p);
	if (b.err || m.err || packed.err) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*outlen = b.n;
	return 0;
}

#ifdef HAVE_ZLIB
static int
gzip_buf(const unsigned char *in, size_t n, unsigned char **out, size_t *outlen)
{
	z_stream z;
	size_t cap = compressBound((uLong)n) + 64;
	unsigned char *o = malloc(cap);

	memset(&z, 0, sizeof(z));
	if (!o || deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(o);
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(o);
		return -EIO;
	}
	*outlen = z.total_out;
	deflateEnd(&z);
	*out = o;
	return 0;
}
#endif

int
ty_pprof_write(const struct ty_profile *p, const char *path, struct ty_error *e)
{
#ifdef HAVE_ZLIB
	unsigned char *raw, *gz;
	size_t n, gn;
	struct ty_outfile of;
	int r;

	if (ty_pprof_encode(p, &raw, &n) < 0)
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	r = gzip_buf(raw, n, &gz, &gn);
	free(raw);
	if (r < 0)
		return ty_error_set(e, r, "cannot compress '%s'", path);
	if ((r = ty_outfile_open(&of, path, e)) < 0) {
		free(gz);
		return r;
	}
	fwrite(gz, 1, gn, of.fp);
	free(gz);
	return ty_outfile_commit(&of, e);
#else
	return ty_error_set(e, -ENOTSUP, "cannot write '%s': not built with zlib", path);
#endif
}
