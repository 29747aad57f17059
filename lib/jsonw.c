/* jsonw.c - streaming JSON writer. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/jsonw.h"
#include "tachy/utf8.h"

void
ty_jsonw_init(struct ty_jsonw *w, FILE *fp, int pretty)
{
	memset(w, 0, sizeof(*w));
	w->fp = fp;
	w->pretty = pretty;
}

void
ty_jsonw_init_members(struct ty_jsonw *w,
		      int (*member)(void *ctx, const char *key, const char *text), void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->member = member;
	w->member_ctx = ctx;
}

/* In a members writer: hand the value TEXT of the pending top-level key on. */
static void
hand_on(struct ty_jsonw *w, const char *text)
{
	int rc;

	if (w->depth == 0 && w->key) {
		rc = w->member(w->member_ctx, w->key, text);
		if (rc < 0 && !w->member_err)
			w->member_err = rc;
	}
	if (w->depth == 0)
		w->key = NULL;
}

static void
newline(struct ty_jsonw *w)
{
	int i;

	if (!w->pretty)
		return;
	fputc('\n', w->fp);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->fp);
}

/* Separate this value from the previous one, unless it follows a key. */
static void
before_value(struct ty_jsonw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth > 0) {
		if (w->count[w->depth - 1]++ > 0)
			fputc(',', w->fp);
		newline(w);
	}
}

static void
container_open(struct ty_jsonw *w, int c)
{
	if (w->member) { /* a member that is a container: not handed on */
		if (w->depth == 0 && w->key && !w->member_err)
			w->member_err = -EINVAL;
		w->key = w->depth == 0 ? NULL : w->key;
		w->depth++;
		return;
	}
	before_value(w);
	fputc(c, w->fp);
	if (w->depth < TY_JSONW_DEPTH)
		w->count[w->depth] = 0;
	w->depth++;
}

static void
container_close(struct ty_jsonw *w, int c)
{
	int had = w->depth > 0 && w->depth <= TY_JSONW_DEPTH && w->count[w->depth - 1] > 0;

	if (w->member) {
		w->depth--;
		return;
	}
	w->depth--;
	if (had)
		newline(w);
	fputc(c, w->fp);
	if (w->depth == 0 && w->pretty)
		fputc('\n', w->fp);
}

void
ty_jsonw_object_begin(struct ty_jsonw *w)
{
	container_open(w, '{');
}

void
ty_jsonw_object_end(struct ty_jsonw *w)
{
	container_close(w, '}');
}

void
ty_jsonw_array_begin(struct ty_jsonw *w)
{
	container_open(w, '[');
}

void
ty_jsonw_array_end(struct ty_jsonw *w)
{
	container_close(w, ']');
}

void
ty_jsonw_escape(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", fp);
			s++;
			continue;
		case '\\':
			fputs("\\\\", fp);
			s++;
			continue;
		case '\n':
			fputs("\\n", fp);
			s++;
			continue;
		case '\t':
			fputs("\\t", fp);
			s++;
			continue;
		case '\r':
			fputs("\\r", fp);
			s++;
			continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			fprintf(fp, "\\u%04x", *s);
			s++;
			continue;
		}
		n = ty_utf8_seqlen((const char *)s);
		if (n == 0) {
			fputs("\\ufffd", fp);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, fp);
		s += n;
	}
}

void
ty_jsonw_key(struct ty_jsonw *w, const char *key)
{
	if (w->member) {
		if (w->depth == 0)
			w->key = key;
		return;
	}
	before_value(w);
	fputc('"', w->fp);
	ty_jsonw_escape(w->fp, key);
	fputs(w->pretty ? "\": " : "\":", w->fp);
	w->after_key = 1;
}

void
ty_jsonw_string(struct ty_jsonw *w, const char *s)
{
	if (w->member) {
		hand_on(w, s ? s : "null");
		return;
	}
	before_value(w);
	if (!s) {
		fputs("null", w->fp);
		return;
	}
	fputc('"', w->fp);
	ty_jsonw_escape(w->fp, s);
	fputc('"', w->fp);
}

void
ty_jsonw_double(struct ty_jsonw *w, double v)
{
	char buf[40];
	int prec;

	if (w->member) { /* as a reader of what is written would show it */
		if (!isfinite(v))
			snprintf(buf, sizeof(buf), "null");
		else if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, sizeof(buf), "%.0f", v);
		else
			snprintf(buf, sizeof(buf), "%.17g", v);
		hand_on(w, buf);
		return;
	}
	before_value(w);
	if (!isfinite(v)) {
		fputs("null", w->fp);
		return;
	}
	/* Whole numbers as integers ("20", not "2e+01"); otherwise the
	 * shortest representation that reads back to the same double. */
	if (v == floor(v) && fabs(v) < 1e15) {
		fprintf(w->fp, "%.0f", v);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, w->fp);
}

void
ty_jsonw_int(struct ty_jsonw *w, int64_t v)
{
	char buf[24];

	if (w->member) {
		snprintf(buf, sizeof(buf), "%" PRId64, v);
		hand_on(w, buf);
		return;
	}
	before_value(w);
	fprintf(w->fp, "%" PRId64, v);
}

void
ty_jsonw_uint(struct ty_jsonw *w, uint64_t v)
{
	char buf[24];

	if (w->member) {
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		hand_on(w, buf);
		return;
	}
	before_value(w);
	fprintf(w->fp, "%" PRIu64, v);
}

void
ty_jsonw_bool(struct ty_jsonw *w, int v)
{
	if (w->member) {
		hand_on(w, v ? "true" : "false");
		return;
	}
	before_value(w);
	fputs(v ? "true" : "false", w->fp);
}

void
ty_jsonw_null(struct ty_jsonw *w)
{
	if (w->member) {
		hand_on(w, "null");
		return;
	}
	before_value(w);
	fputs("null", w->fp);
}

void
ty_jsonw_kstring(struct ty_jsonw *w, const char *key, const char *s)
{
	ty_jsonw_key(w, key);
	ty_jsonw_string(w, s);
}

void
ty_jsonw_kdouble(struct ty_jsonw *w, const char *key, double v)
{
	ty_jsonw_key(w, key);
	ty_jsonw_double(w, v);
}

void
ty_jsonw_kint(struct ty_jsonw *w, const char *key, int64_t v)
{
	ty_jsonw_key(w, key);
	ty_jsonw_int(w, v);
}

void
ty_jsonw_kuint(struct ty_jsonw *w, const char *key, uint64_t v)
{
	ty_jsonw_key(w, key);
	ty_jsonw_uint(w, v);
}

void
ty_jsonw_kbool(struct ty_jsonw *w, const char *key, int v)
{
	ty_jsonw_key(w, key);
	ty_jsonw_bool(w, v);
}
