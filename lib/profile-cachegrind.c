/* profile-cachegrind.c - the reader of Valgrind's cachegrind output files
 * (profile-cachegrind.h), and the profile made from one. */
#include "tachy/profile-cachegrind.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/profile.h"

#define CG_MAX_FILE ((size_t)1 << 30) /* a larger file is not cachegrind's */
#define CG_MAX_NAMES 1000000	      /* compressed name numbers up to this */

/* Compressed names: "(N) NAME" defines N, "(N)" refers to it. */
struct names {
	char **v;
	size_t n, cap;
};

struct parser {
	const char *name; /* the file's, for messages */
	size_t line;	  /* 1-based */
	struct ty_cachegrind *cg;
	struct names files, fns;
	const char *file; /* current fl= (points into files or is "???") */
	const char *fn;	  /* current fn= */
	uint32_t cur;	  /* index of (file, fn) in cg->funcs, TY_IDMAP_NONE: not yet */
	struct ty_error *e;
};

static int
bad(struct parser *P, const char *what)
{
	return ty_error_set(P->e, -EINVAL, "%s: line %zu: %s (not a cachegrind output file?)",
			    P->name, P->line, what);
}

static void
names_release(struct names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
}

/* Resolve the name S[0..LEN) of table T: "(N) NAME" sets N, "(N)" is N's,
 * anything else is itself. *OUT points into T or to a copy kept in T. */
static int
name_of(struct parser *P, struct names *t, const char *s, size_t len, const char **out)
{
	size_t i = 1, num = 0;

	while (len && s[0] == '(' && i < len && s[i] >= '0' && s[i] <= '9' && num <= CG_MAX_NAMES)
		num = num * 10 + (size_t)(s[i++] - '0');
	/* "(N)" or "(N) NAME"; a name that only starts with "(" is itself:
	 * "(below main)" */
	if (i > 1 && i < len && s[i] == ')' && (i + 1 == len || s[i + 1] == ' ')) {
		if (num > CG_MAX_NAMES)
			return bad(P, "a compressed name's number is too large");
		i++;
		if (i == len) {
			if (num >= t->n || !t->v[num])
				return bad(P, "a compressed name used before it was defined");
			*out = t->v[num];
			return 0;
		}
		i++; /* the space */
		if (num >= t->n) {
			if (ty_array_grow(&t->v, sizeof(*t->v), num + 1, &t->cap) < 0)
				return ty_error_set(P->e, -ENOMEM, "out of memory");
			memset(t->v + t->n, 0, (num + 1 - t->n) * sizeof(*t->v));
			t->n = num + 1;
		}
		free(t->v[num]);
		if (!(t->v[num] = strndup(s + i, len - i)))
			return ty_error_set(P->e, -ENOMEM, "out of memory");
		*out = t->v[num];
		return 0;
	}
	/* an uncompressed name: kept in the table's tail, past the numbers */
	if (ty_array_grow(&t->v, sizeof(*t->v), t->n + 1, &t->cap) < 0)
		return ty_error_set(P->e, -ENOMEM, "out of memory");
	if (!(t->v[t->n] = strndup(s, len)))
		return ty_error_set(P->e, -ENOMEM, "out of memory");
	*out = t->v[t->n++];
	return 0;
}

/* The entry of the current (file, fn), made when new. */
static int
current(struct parser *P)
{
	struct ty_cachegrind *cg = P->cg;
	uint64_t key;
	uint32_t *slot;
	struct ty_cg_func *f;

	if (P->cur != TY_IDMAP_NONE)
		return 0;
	if (!P->fn)
		return bad(P, "counts before the first fn= line");
	key = ty_array_hash(P->fn, strlen(P->fn) + 1, 0);
	key = ty_array_hash(P->file, strlen(P->file) + 1, key);
	for (;;) { /* open addressing on the hash; a collision probes on */
		if (!(slot = ty_idmap_get(&cg->index, key)))
			return ty_error_set(P->e, -ENOMEM, "out of memory");
		if (*slot == TY_IDMAP_NONE)
			break;
		f = &cg->funcs[*slot];
		if (strcmp(f->name, P->fn) == 0 && strcmp(f->file, P->file) == 0) {
			P->cur = *slot;
			return 0;
		}
		key = key * 0x100000001b3ull + 1;
	}
	if (cg->nfuncs >= TY_IDMAP_NONE - 1 ||
	    ty_array_grow(&cg->funcs, sizeof(*cg->funcs), cg->nfuncs + 1, &cg->cap) < 0)
		return ty_error_set(P->e, -ENOMEM, "out of memory");
	f = &cg->funcs[cg->nfuncs];
	memset(f, 0, sizeof(*f));
	if (!(f->name = strdup(P->fn)) || !(f->file = strdup(P->file))) {
		free(f->name);
		return ty_error_set(P->e, -ENOMEM, "out of memory");
	}
	*slot = (uint32_t)cg->nfuncs;
	P->cur = (uint32_t)cg->nfuncs++;
	return 0;
}

/* A decimal count at *S (S < END): *V, *S moved past it. */
static int
count(struct parser *P, const char **s, const char *end, uint64_t *v)
{
	uint64_t n = 0;
	const char *p = *s;

	if (p == end || *p < '0' || *p > '9')
		return bad(P, "a count is not a number");
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		if (n > (UINT64_MAX - d) / 10)
			return bad(P, "a count too large");
		n = n * 10 + d;
	}
	if (p < end && *p != ' ' && *p != '\t')
		return bad(P, "a count is not a number");
	*v = n;
	*s = p;
	return 0;
}

static const char *
skip_blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* "events: Ir Dr ..." */
static int
events_line(struct parser *P, const char *s, const char *end)
{
	const char *w;

	if (P->cg->event)
		return bad(P, "a second events: line");
	s = skip_blank(s, end);
	for (w = s; s < end && *s != ' ' && *s != '\t'; s++)
		;
	if (s == w)
		return bad(P, "an events: line names no event");
	if (!(P->cg->event = strndup(w, (size_t)(s - w))))
		return ty_error_set(P->e, -ENOMEM, "out of memory");
	P->cg->nevents = 1;
	for (;;) {
		s = skip_blank(s, end);
		if (s == end)
			return 0;
		while (s < end && *s != ' ' && *s != '\t')
			s++;
		P->cg->nevents++;
	}
}

/* "LINE C1 C2 ..." (a line number, then at most nevents counts) */
static int
counts_line(struct parser *P, const char *s, const char *end)
{
	uint64_t v, first = 0;
	size_t k = 0;
	int r;

	if (!P->cg->event)
		return bad(P, "counts before the events: line");
	if ((r = count(P, &s, end, &v)) < 0) /* the line number */
		return r;
	for (;;) {
		s = skip_blank(s, end);
		if (s == end)
			break;
		if (k == P->cg->nevents)
			return bad(P, "more counts than events");
		if ((r = count(P, &s, end, &v)) < 0)
			return r;
		if (k++ == 0)
			first = v;
	}
	if ((r = current(P)) < 0)
		return r;
	if (P->cg->funcs[P->cur].count > UINT64_MAX - first || P->cg->total > UINT64_MAX - first)
		return bad(P, "counts too large");
	P->cg->funcs[P->cur].count += first;
	P->cg->total += first;
	return 0;
}

/* "summary: C1 ...": its first count must be the body's sum */
static int
summary_line(struct parser *P, const char *s, const char *end)
{
	uint64_t v;
	int r;
	char msg[160];

	if (!P->cg->event)
		return bad(P, "a summary: line before the events: line");
	if (P->cg->have_summary)
		return bad(P, "a second summary: line");
	s = skip_blank(s, end);
	if ((r = count(P, &s, end, &v)) < 0)
		return r;
	if (v != P->cg->total) {
		snprintf(msg, sizeof(msg),
			 "the summary's %s %llu is not the sum of the counts above it (%llu): the "
			 "file is damaged or was cut",
			 P->cg->event, (unsigned long long)v, (unsigned long long)P->cg->total);
		return bad(P, msg);
	}
	P->cg->have_summary = 1;
	return 0;
}

static int
keyword(const char *s, const char *end, const char *kw)
{
	size_t n = strlen(kw);

	return (size_t)(end - s) >= n && memcmp(s, kw, n) == 0;
}

static int
one_line(struct parser *P, const char *s, const char *end)
{
	const char *name;
	int r;

	if (s == end || *s == '#')
		return 0;
	if (P->cg->have_summary)
		return bad(P, "lines after the summary: line");
	if (*s >= '0' && *s <= '9')
		return counts_line(P, s, end);
	if (keyword(s, end, "fl=") || keyword(s, end, "fi=") || keyword(s, end, "fe=")) {
		if ((r = name_of(P, &P->files, s + 3, (size_t)(end - s - 3), &name)) < 0)
			return r;
		P->file = name;
		P->cur = TY_IDMAP_NONE;
		return 0;
	}
	if (keyword(s, end, "fn=")) {
		if (!P->cg->event)
			return bad(P, "fn= before the events: line");
		if ((r = name_of(P, &P->fns, s + 3, (size_t)(end - s - 3), &name)) < 0)
			return r;
		P->fn = name;
		P->cur = TY_IDMAP_NONE;
		return 0;
	}
	if (keyword(s, end, "events:"))
		return events_line(P, s + 7, end);
	if (keyword(s, end, "summary:"))
		return summary_line(P, s + 8, end);
	if (keyword(s, end, "cmd:")) {
		if (P->cg->event || P->cg->cmd)
			return bad(P, "a cmd: line out of place");
		s = skip_blank(s + 4, end);
		if (!(P->cg->cmd = strndup(s, (size_t)(end - s))))
			return ty_error_set(P->e, -ENOMEM, "out of memory");
		return 0;
	}
	if (!P->cg->event && (keyword(s, end, "desc:") || keyword(s, end, "version:") ||
			      keyword(s, end, "creator:") || keyword(s, end, "positions: line")))
		return 0;
	return bad(P, "a line that is neither a header, fl=, fn=, counts nor the summary");
}

int
ty_cachegrind_parse(const char *buf, size_t len, const char *name, struct ty_cachegrind *cg,
		    struct ty_error *e)
{
	struct parser P;
	const char *s = buf, *end = buf + len;
	int r = 0;

	memset(&P, 0, sizeof(P));
	P.name = name;
	P.cg = cg;
	P.file = "???";
	P.cur = TY_IDMAP_NONE;
	P.e = e;
	if (memchr(buf, '\0', len)) {
		P.line = 1;
		r = bad(&P, "a NUL byte: a binary file");
	}
	while (r == 0 && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		P.line++;
		if (le > s && le[-1] == '\r')
			le--;
		r = one_line(&P, s, le);
		s = nl ? nl + 1 : end;
	}
	if (r == 0 && !cg->event) {
		P.line = P.line ? P.line : 1;
		r = bad(&P, len ? "no events: line" : "empty");
	}
	if (r == 0 && !cg->have_summary) {
		r = ty_error_set(
		    e, -EINVAL,
		    "%s: no summary: line at the end (the file was cut, or the program "
		    "is still running)",
		    name);
	}
	names_release(&P.files);
	names_release(&P.fns);
	return r;
}

int
ty_cachegrind_read(const char *path, struct ty_cachegrind *cg, struct ty_error *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int r;

	if (fd < 0)
		return ty_error_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		close(fd);
		return ty_error_set(e, -EINVAL, "%s: not a regular file", path);
	}
	for (;;) {
		if (len == cap && ty_array_grow(&buf, 1, cap ? cap * 2 : 65536, &cap) < 0) {
			r = ty_error_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = ty_error_set(e, -errno, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CG_MAX_FILE) {
			r = ty_error_set(e, -EINVAL, "%s: larger than 1 GiB: not a cachegrind file",
					 path);
			goto out;
		}
	}
	r = ty_cachegrind_parse(buf ? buf : "", len, path, cg, e);
out:
	free(buf);
	close(fd);
	return r;
}

int
ty_cachegrind_sniff(const char *buf, size_t len)
{
	static const char *const kw[] = {"desc:", "cmd:", "version:", "creator:", "events:"};
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (len >= strlen(kw[i]) && memcmp(buf, kw[i], strlen(kw[i])) == 0)
			return 1;
	return 0;
}

void
ty_cachegrind_release(struct ty_cachegrind *cg)
{
	size_t i;

	for (i = 0; i < cg->nfuncs; i++) {
		free(cg->funcs[i].name);
		free(cg->funcs[i].file);
	}
	free(cg->funcs);
	free(cg->cmd);
	free(cg->event);
	ty_idmap_release(&cg->index);
	memset(cg, 0, sizeof(*cg));
}

struct ty_profile *
ty_cachegrind_profile(const struct ty_cachegrind *cg)
{
	struct ty_profile *p = ty_profile_new();
	size_t i;

	if (!p)
		return NULL;
	if (!(p->meta.event = strdup(cg->event ? cg->event : "Ir")) ||
	    (cg->cmd && !(p->meta.command = strdup(cg->cmd))))
		goto fail;
	p->meta.rate = 1;
	p->meta.processes = 1;
	if (ty_profile_thread(p, 0, 0, "") == TY_NONE)
		goto fail;
	for (i = 0; i < cg->nfuncs; i++) {
		const struct ty_cg_func *f = &cg->funcs[i];
		struct ty_prof_sample s;
		uint32_t fn, loc, st;

		if (!f->count)
			continue;
		/* by name: cachegrind splits a function over the files of its
		 * inlined code, and names no object file */
		if ((fn = ty_profile_func(p, f->name, "")) == TY_NONE ||
		    (loc = ty_profile_loc(p, 0, fn)) == TY_NONE ||
		    (st = ty_profile_stack(p, &loc, 1)) == TY_NONE)
			goto fail;
		memset(&s, 0, sizeof(s));
		s.period = f->count;
		s.stack = st;
		if (ty_profile_sample(p, &s) < 0)
			goto fail;
	}
	return p;
fail:
	ty_profile_free(p);
	return NULL;
}
