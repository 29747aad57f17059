/* symtab.c - sorted symbol tables, their strings (demangled), warnings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/demangle.h"
#include "tachy/symtab.h"

struct ty_symtab_pool {
	struct ty_symtab_pool *next;
	size_t used, cap;
	char data[];
};

void
ty_symtab_pool_free(struct ty_symtab_pool *b)
{
	while (b) {
		struct ty_symtab_pool *n = b->next;
		free(b);
		b = n;
	}
}

const char *
ty_symtab_pool_add(struct ty_symtab_pool **head, const char *str, size_t n)
{
	struct ty_symtab_pool *b = *head;
	char *out;

	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = *head;
		*head = b;
	}
	out = b->data + b->used;
	memcpy(out, str, n);
	out[n] = '\0';
	b->used += n + 1;
	return out;
}

void
ty_symtab_warn(struct ty_symtab_warnings *w, const char *fmt, ...)
{
	char buf[1024], **nw;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < w->n; i++)
		if (strcmp(w->msg[i], buf) == 0)
			return;
	/* one at a time: a handful of warnings, each told once */
	nw = realloc(w->msg, (w->n + 1) * sizeof(*nw));
	if (!nw)
		return;
	w->msg = nw;
	if ((nw[w->n] = strdup(buf)))
		w->n++;
}

void
ty_symtab_warn_stripped(struct ty_symtab_warnings *w, const char *path, const char *base)
{
	char **np, *msg = NULL, *list = NULL, *t;
	size_t i;
	int n;

	for (i = 0; i < w->nstripped; i++)
		if (strcmp(w->stripped[i], path) == 0)
			return;
	if (!(np = realloc(w->stripped, (w->nstripped + 1) * sizeof(*np))))
		return;
	w->stripped = np;
	if (!(np[w->nstripped] = strdup(path)))
		return;
	w->nstripped++;
	if (w->nstripped == 1) {
		n = asprintf(&msg,
			     "%s is stripped (no .symtab, no debug file): functions it does not "
			     "export are named %s+0xADDRESS",
			     path, base);
	} else {
		for (i = 0; i < w->nstripped; i++) {
			n = asprintf(&t, "%s%s%s", list ? list : "",
				     i == 0		     ? ""
				     : i + 1 == w->nstripped ? " and "
							     : ", ",
				     w->stripped[i]);
			free(list);
			list = n < 0 ? NULL : t;
			if (!list)
				return;
		}
		n = asprintf(&msg,
			     "%s are stripped (no .symtab, no debug file): functions they do not "
			     "export are named FILE+0xADDRESS",
			     list);
		free(list);
	}
	if (n < 0)
		return;
	if (w->stripped_warning) { /* the one warning, said again with one more file */
		free(w->msg[w->stripped_warning - 1]);
		w->msg[w->stripped_warning - 1] = msg;
		return;
	}
	if (!(np = realloc(w->msg, (w->n + 1) * sizeof(*np)))) {
		free(msg);
		return;
	}
	w->msg = np;
	np[w->n++] = msg;
	w->stripped_warning = w->n;
}

void
ty_symtab_warnings_release(struct ty_symtab_warnings *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->msg[i]);
	free(w->msg);
	for (i = 0; i < w->nstripped; i++)
		free(w->stripped[i]);
	free(w->stripped);
	w->msg = NULL;
	w->n = 0;
	w->stripped = NULL;
	w->nstripped = w->stripped_warning = 0;
}

/* --- symbol tables ---------------------------------------------------- */

int
ty_symtab_cmp(const void *a, const void *b)
{
	const struct ty_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of several names at one address: a function's before a PLT entry's
	 * before a label's; then the global name before the weak alias before
	 * the internal one (malloc, not __GI___libc_malloc); then the one with
	 * fewer leading underscores (read, not __read); then a sized one; then
	 * the first read, so that the choice does not depend on qsort. */
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind < y->bind ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Give the size-less symbols of the sorted SYMS the room up to the next
 * (and a label no more than to the end of its section). */
static void
fill_sizes(struct ty_sym *syms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (syms[i].size != 0)
			continue;
		syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr : 4096;
		if (syms[i].lim > syms[i].addr && syms[i].lim - syms[i].addr < syms[i].size)
			syms[i].size = syms[i].lim - syms[i].addr;
	}
}

/* (ty_symtab_finish) Sort, keep one name per address (the best, with the largest size of its
 * kind), drop labels inside sized functions (a local label is no function
 * of its own), and give size-less symbols the room up to the next. */
void
ty_symtab_finish(struct ty_symtab *d)
{
	size_t i, n = 0;
	uint64_t cover = 0; /* end of the sized functions so far */

	if (!d->n)
		return;
	qsort(d->syms, d->n, sizeof(*d->syms), ty_symtab_cmp);
	for (i = 0; i < d->n; i++) {
		struct ty_sym *x = &d->syms[i];
		if (n > 0 && d->syms[n - 1].addr == x->addr) {
			if (d->syms[n - 1].kind == x->kind && x->size > d->syms[n - 1].size)
				d->syms[n - 1].size = x->size;
			continue;
		}
		if (x->kind == TY_SYM_LABEL && x->addr < cover)
			continue;
		if (x->kind != TY_SYM_LABEL && x->size && x->addr + x->size > cover)
			cover = x->addr + x->size;
		d->syms[n++] = *x;
	}
	d->n = n;
	fill_sizes(d->syms, n);
}

const struct ty_sym *
ty_symtab_find(const struct ty_symtab *d, uint64_t addr)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (addr - d->syms[lo - 1].addr < d->syms[lo - 1].size)
		return &d->syms[lo - 1];
	return NULL;
}

int
ty_symtab_add(struct ty_symtab *d, uint64_t addr, uint64_t size, const char *name, int kind,
	      int bind, uint64_t lim)
{
	/* demangled when first asked for (ty_symtab_name): a C++ program's
	 * table has tens of thousands of names, a profile asks for a few */
	const char *nm = ty_symtab_pool_add(&d->pool, name, strlen(name));
	unsigned under = 0;

	if (!nm)
		return -1;
	if (ty_array_grow(&d->syms, sizeof(*d->syms), d->n + 1, &d->cap) < 0)
		return -1;
	while (name[under] == '_' && under < 9)
		under++;
	d->syms[d->n] = (struct ty_sym){addr,
					size,
					nm,
					lim,
					(uint32_t)d->n,
					(unsigned char)kind,
					(unsigned char)bind,
					(unsigned char)under,
					1};
	d->n++;
	return 0;
}

const char *
ty_symtab_name(struct ty_symtab *d, const struct ty_sym *sym)
{
	struct ty_sym *x = d->syms + (sym - d->syms);
	char *dm;
	const char *nm;

	if (!x->mangled)
		return x->name;
	x->mangled = 0;
	if ((dm = ty_demangle(x->name)) && (nm = ty_symtab_pool_add(&d->pool, dm, strlen(dm))))
		x->name = nm;
	free(dm);
	return x->name;
}

void
ty_symtab_release(struct ty_symtab *t)
{
	free(t->syms);
	free(t->names);
	ty_symtab_pool_free(t->pool);
	memset(t, 0, sizeof(*t));
}
