/* symtab.h - a sorted table of symbols, as lib/dso.c (a file's) and
 * lib/kallsyms.c (the kernel's) fill it: one name per address, chosen among
 * aliases; the strings the tables point into (names demangled by
 * demangle.c); and the list
 * of warnings that reading symbols gathers (each once). Not thread-safe. */
#ifndef TACHY_SYMTAB_H
#define TACHY_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of symbol, best first where several start at one address. */
enum { TY_SYM_FUNC, TY_SYM_PLT, TY_SYM_LABEL };

struct ty_sym {
	uint64_t addr, size;
	const char *name;		 /* in the table's pool or arena */
	uint64_t lim;			 /* a label's section end (0: none) */
	uint32_t seq;			 /* reading order */
	unsigned char kind, bind, under; /* bind: 0 global, 1 weak, 2 local */
	unsigned char mangled;		 /* name not demangled yet: ty_symtab_name */
};

/* Strings that never move: blocks chained. */
struct ty_symtab_pool;

struct ty_symtab {
	struct ty_sym *syms;
	size_t n, cap;
	char *names; /* an arena the names point into (the kernel's), or NULL */
	struct ty_symtab_pool *pool;
};

/* Free what T holds (T itself is the caller's) and empty it. */
void ty_symtab_release(struct ty_symtab *t);

/* A copy of STR[N] (NUL added) in the pool *POOL, which lives until
 * ty_symtab_pool_free; NULL when out of memory. */
const char *ty_symtab_pool_add(struct ty_symtab_pool **pool, const char *str, size_t n);
void ty_symtab_pool_free(struct ty_symtab_pool *pool);

/* Add a symbol to T, its NAME copied into T's pool (demangled by
 * ty_symtab_name when first asked for); KIND is
 * TY_SYM_*, BIND 0 global, 1 weak, 2 local; LIM a label's section end.
 * Returns 0, or -1 when out of memory. */
int ty_symtab_add(struct ty_symtab *t, uint64_t addr, uint64_t size, const char *name, int kind,
		  int bind, uint64_t lim);

/* Sort, keep one name per address (the best: a function's before a PLT
 * entry's before a label's, then global before weak before local, then
 * fewer leading underscores, then a sized one, then the first read), drop
 * labels inside sized functions, and give size-less symbols the room up to
 * the next (a label no more than to its section's end). */
void ty_symtab_finish(struct ty_symtab *t);

/* qsort order of struct ty_sym: by address, then the better name first
 * (the order ty_symtab_finish keeps the first of). */
int ty_symtab_cmp(const void *a, const void *b);

/* The symbol of the finished table T covering ADDR, or NULL. */
const struct ty_sym *ty_symtab_find(const struct ty_symtab *t, uint64_t addr);

/* The name of SYM, a symbol of T, demangled (the first time: into T's
 * pool). */
const char *ty_symtab_name(struct ty_symtab *t, const struct ty_sym *sym);

/* Warnings gathered while reading symbols, each once, in order. */
struct ty_symtab_warnings {
	char **msg;
	size_t n;
	char **stripped;		    /* the stripped files, said in one warning */
	size_t nstripped, stripped_warning; /* that warning's index + 1 (0: none yet) */
};

/* Add a printf-formatted warning to W unless it holds it already (out of
 * memory: dropped). */
void ty_symtab_warn(struct ty_symtab_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Say that the file PATH (BASE its base name) is stripped: one warning
 * names every stripped file, in the order they were said ("A is stripped
 * (...)", then "A, B and C are stripped (...)"). */
void ty_symtab_warn_stripped(struct ty_symtab_warnings *w, const char *path, const char *base);
void ty_symtab_warnings_release(struct ty_symtab_warnings *w);

#endif
