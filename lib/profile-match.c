/* profile-match.c - a function's identity across two profiles
 * (profile-match.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/argv.h"
#include "tachy/profile-match.h"
#include "tachy/profile.h"

int
ty_profile_match_parse(const char *s, enum ty_match_mode *m)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "dso,sym") == 0 || strcmp(s, "sym,dso") == 0 || strcmp(s, "dso") == 0)
		*m = TY_MATCH_DSO_SYM;
	else if (strcmp(s, "sym") == 0)
		*m = TY_MATCH_SYM;
	else if (strcmp(s, "path,sym") == 0 || strcmp(s, "sym,path") == 0 || strcmp(s, "path") == 0)
		*m = TY_MATCH_PATH_SYM;
	else
		return -EINVAL;
	return 0;
}

const char *
ty_profile_match_mode_name(enum ty_match_mode m)
{
	return m == TY_MATCH_SYM ? "sym" : m == TY_MATCH_PATH_SYM ? "path,sym" : "dso,sym";
}

const char *
ty_profile_match_mode_words(enum ty_match_mode m)
{
	return m == TY_MATCH_SYM	? "name only"
	       : m == TY_MATCH_PATH_SYM ? "name and full path"
					: "name and object";
}

static const char *
file_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

/* "perf-1234.map": JIT code named by a perf map. */
static int
is_perf_map(const char *base)
{
	const char *p = base + 5;

	if (strncmp(base, "perf-", 5) != 0 || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return strcmp(p, ".map") == 0;
}

/* A shared library's file name: "x.so" or "x.so.N...". */
static int
is_library(const char *base)
{
	const char *s = strstr(base, ".so");

	for (; s; s = strstr(s + 1, ".so"))
		if (s[3] == 0 || s[3] == '.')
			return 1;
	return 0;
}

const char *
ty_profile_match_object(const struct ty_profile_match *m, int side, const char *dso, char *buf,
			size_t size)
{
	const char *base, *so, *end;
	size_t n;

	buf[0] = 0;
	if (!dso || m->mode == TY_MATCH_SYM)
		return buf;
	if (m->mode == TY_MATCH_PATH_SYM || dso[0] == '[' || !dso[0]) {
		snprintf(buf, size, "%s", dso);
		return buf;
	}
	if (side >= 0 && side < 2 && m->main[side] && strcmp(dso, m->main[side]) == 0) {
		snprintf(buf, size, "%s", TY_MATCH_PROGRAM);
		return buf;
	}
	base = file_name(dso);
	if (is_perf_map(base)) {
		snprintf(buf, size, "[perf-map]");
		return buf;
	}
	n = strlen(base);
	/* libfoo.so.1.2.3 -> libfoo.so.1: the major version, as the soname */
	if ((so = strstr(base, ".so.")) && so[4] >= '0' && so[4] <= '9') {
		for (end = so + 4; *end >= '0' && *end <= '9'; end++)
			;
		n = (size_t)(end - base);
	}
	snprintf(buf, size, "%.*s", (int)n, base);
	return buf;
}

const char *
ty_profile_match_name(const struct ty_profile_match *m, const char *name)
{
	if (!name)
		return "";
	/* an unnamed address moves between builds: one "[unknown]" an object */
	if (m->mode != TY_MATCH_PATH_SYM && strncmp(name, "[unknown] 0x", 12) == 0)
		return "[unknown]";
	return name;
}

char *
ty_profile_match_key(const struct ty_profile_match *m, int side, const char *name, const char *dso)
{
	char obj[4400], *k;
	size_t ln, lo;

	name = ty_profile_match_name(m, name);
	ty_profile_match_object(m, side, dso, obj, sizeof(obj));
	/* "LEN:NAME" then the object: no name can pose as another name and
	 * object, whatever bytes either holds */
	ln = strlen(name);
	lo = strlen(obj);
	if (!(k = malloc(ln + lo + 24)))
		return NULL;
	snprintf(k, ln + lo + 24, "%zu:%s%s", ln, name, obj);
	return k;
}

uint32_t
ty_profile_match_keys_add(struct ty_profile_match_keys *k, const struct ty_profile_match *m,
			  int side, const char *name, const char *dso)
{
	char *key = ty_profile_match_key(m, side, name, dso);
	uint64_t h;
	uint32_t *slot;

	if (!key)
		return UINT32_MAX;
	/* equal hashes of different keys: the next hash, until a match or a free slot */
	for (h = ty_array_hash(key, strlen(key), 0);; h++) {
		if (!(slot = ty_idmap_get(&k->index, h)))
			goto oom;
		if (*slot == TY_IDMAP_NONE)
			break;
		if (strcmp(k->keys[*slot], key) == 0) {
			free(key);
			return *slot;
		}
	}
	if (ty_array_grow32(&k->keys, sizeof(*k->keys), k->n + 1, &k->cap) < 0) {
		*slot = TY_IDMAP_NONE; /* re-probed: a key that maps to nothing */
		goto oom;
	}
	k->keys[k->n] = key;
	*slot = k->n;
	return k->n++;
oom:
	free(key);
	return UINT32_MAX;
}

void
ty_profile_match_keys_release(struct ty_profile_match_keys *k)
{
	uint32_t i;

	for (i = 0; i < k->n; i++)
		free(k->keys[i]);
	free(k->keys);
	ty_idmap_release(&k->index);
	memset(k, 0, sizeof(*k));
}

/* Does DSO end with the path WORD as typed (./old/app ends /x/old/app)? */
static int
ends_with_path(const char *dso, const char *word)
{
	size_t ld, lw;

	while (word[0] == '.' && word[1] == '/')
		word += 2;
	ld = strlen(dso);
	lw = strlen(word);
	if (!lw || lw > ld || strcmp(dso + ld - lw, word) != 0)
		return 0;
	return lw == ld || dso[ld - lw - 1] == '/' || word[0] == '/';
}

static double
weight_of(const double *weights, size_t i)
{
	return weights ? weights[i] : 0;
}

const char *
ty_profile_match_main(const char *command, const char *const *dsos, const double *weights, size_t n)
{
	const char *best = NULL, *word = NULL;
	char **argv = NULL;
	double bw = -1;
	size_t i;
	int pass;

	if (command && ty_argv_split(command, &argv, NULL) > 0)
		word = argv[0];
	/* the first word's path, then its file name, then the heaviest executable */
	for (pass = word ? 0 : 2; pass < 3 && !best; pass++)
		for (i = 0; i < n; i++) {
			const char *d = dsos[i];
			if (!d || d[0] != '/' || is_library(file_name(d)) ||
			    is_perf_map(file_name(d)))
				continue;
			if ((pass == 0 && !ends_with_path(d, word)) ||
			    (pass == 1 && strcmp(file_name(d), file_name(word)) != 0))
				continue;
			if (!best || weight_of(weights, i) > bw) {
				best = d;
				bw = weight_of(weights, i);
			}
		}
	free(argv);
	return best;
}

const char *
ty_profile_match_main_of(const struct ty_profile *p)
{
	const char **dsos = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*dsos));
	double *w = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*w));
	const char *best = NULL;
	size_t i;
	uint32_t f;

	if (dsos && w) {
		for (f = 0; f < p->nfuncs; f++)
			dsos[f] = ty_profile_func_dso(p, f);
		for (i = 0; i < p->nsamples; i++) {
			const struct ty_prof_sample *s = &p->samples[i];
			uint32_t a = p->stack_off[s->stack];
			if (a < p->stack_off[s->stack + 1])
				w[p->locs[p->frames[a]].func] += (double)s->period;
		}
		best = ty_profile_match_main(p->meta.command, dsos, w, p->nfuncs);
	}
	free(dsos);
	free(w);
	return best;
}

const char *
ty_profile_match_shown(const char *old_dso, const char *new_dso, char *buf, size_t size)
{
	const char *a = old_dso ? file_name(old_dso) : NULL,
		   *b = new_dso ? file_name(new_dso) : NULL;

	if (a && b && strcmp(a, b) != 0)
		snprintf(buf, size, "%s -> %s", a, b);
	else
		snprintf(buf, size, "%s", b ? b : a ? a : "");
	return buf;
}
