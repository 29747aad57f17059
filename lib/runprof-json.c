/* runprof-json.c - per-run profiles in tachy's JSON export: writer, reader
 * with every value checked (runprof-json.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/runprof-json.h"

#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

/* One array on one line, however pretty W is. */
static void
flat_begin(struct ty_jsonw *w, int *pretty)
{
	ty_jsonw_array_begin(w);
	*pretty = w->pretty;
	w->pretty = 0;
}

static void
flat_end(struct ty_jsonw *w, int pretty)
{
	ty_jsonw_array_end(w);
	w->pretty = pretty;
}

void
ty_runprof_json_write(const struct ty_runprof *p, const struct ty_results *rs, struct ty_jsonw *w)
{
	size_t c, i, k;
	uint32_t y;
	int pretty;

	ty_jsonw_key(w, "profile");
	ty_jsonw_object_begin(w);
	if (p->exact)
		ty_jsonw_kstring(w, "counts", "instructions");
	ty_jsonw_kuint(w, "hz", p->hz);
	ty_jsonw_kbool(w, "callchain", p->callchain);
	ty_jsonw_kuint(w, "stack_size", p->stack_size);
	ty_jsonw_kbool(w, "user_only", p->user_only);
	ty_jsonw_kuint(w, "lost", p->lost);
	ty_jsonw_kdouble(w, "cost_ms", p->cost_ms);
	ty_jsonw_key(w, "symbols");
	ty_jsonw_array_begin(w);
	for (y = 0; y < p->nsyms; y++) {
		flat_begin(w, &pretty);
		ty_jsonw_string(w, p->syms[y].name);
		ty_jsonw_string(w, p->syms[y].dso);
		flat_end(w, pretty);
	}
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "runs");
	ty_jsonw_array_begin(w);
	for (c = 0; c < rs->n; c++) {
		const struct ty_runprof_cmd *cmd = c < p->ncmds ? &p->cmds[c] : NULL;
		if (rs->r[c].nruns == 0)
			continue; /* not in results[] either */
		ty_jsonw_array_begin(w);
		for (i = 0; cmd && cmd->nruns == rs->r[c].nruns && i < cmd->nruns; i++) {
			const struct ty_runprof_run *r = &cmd->runs[i];
			flat_begin(w, &pretty);
			ty_jsonw_uint(w, r->samples);
			ty_jsonw_double(w, r->ms); /* to the ns (ty_runprof_add_run) */
			for (k = 0; k < r->n; k++) {
				const struct ty_runprof_ent *en = &p->ents[r->first + k];
				ty_jsonw_uint(w, en->sym);
				ty_jsonw_uint(w, en->self);
				ty_jsonw_uint(w, en->total);
			}
			flat_end(w, pretty);
		}
		ty_jsonw_array_end(w);
	}
	ty_jsonw_array_end(w);
	ty_jsonw_object_end(w);
}

void
ty_runprof_json_free(struct ty_runprof *p)
{
	ty_runprof_release(p);
	free(p);
}

int
ty_runprof_copy_runs(struct ty_runprof *dst, size_t dst_cmd, const struct ty_runprof *src,
		     size_t src_cmd, size_t first, size_t n)
{
	const struct ty_runprof_cmd *c;
	struct ty_runprof_ent *ents = NULL;
	size_t i, k, cap = 0;
	int rc = 0;

	if (src_cmd >= src->ncmds || dst_cmd >= dst->ncmds)
		return -EINVAL;
	c = &src->cmds[src_cmd];
	if (first > c->nruns || n > c->nruns - first)
		return -EINVAL;
	for (i = first; i < first + n && rc == 0; i++) {
		const struct ty_runprof_run *r = &c->runs[i];
		if (ty_array_grow(&ents, sizeof(*ents), r->n + 1, &cap) < 0) {
			rc = -ENOMEM;
			break;
		}
		for (k = 0; k < r->n; k++) {
			const struct ty_runprof_ent *en = &src->ents[r->first + k];
			ents[k] = *en;
			ents[k].sym =
			    ty_runprof_sym(dst, src->syms[en->sym].name, src->syms[en->sym].dso);
			if (ents[k].sym == UINT32_MAX)
				rc = -ENOMEM;
		}
		if (rc == 0)
			rc = ty_runprof_add_run(dst, dst_cmd, r->samples, r->ms, ents, r->n);
	}
	free(ents);
	return rc;
}

int
ty_runprof_copy_cmd(struct ty_runprof *dst, size_t dst_cmd, const struct ty_runprof *src,
		    size_t src_cmd)
{
	if (src_cmd >= src->ncmds)
		return -EINVAL;
	return ty_runprof_copy_runs(dst, dst_cmd, src, src_cmd, 0, src->cmds[src_cmd].nruns);
}

char *
ty_runprof_json_text(const struct ty_runprof *p, size_t cmd)
{
	const struct ty_runprof_cmd *c = cmd < p->ncmds ? &p->cmds[cmd] : NULL;
	uint32_t *map = calloc(p->nsyms + 1, sizeof(*map)), *order = NULL, used = 0, y;
	struct ty_jsonw w;
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *fp;

	if (!map || !(order = malloc((p->nsyms + 1) * sizeof(*order)))) {
		free(map);
		return NULL;
	}
	/* the symbols of this command's runs, numbered 1.. in order of use (0: unused) */
	for (i = 0; c && i < c->nruns; i++)
		for (k = 0; k < c->runs[i].n; k++) {
			y = p->ents[c->runs[i].first + k].sym;
			if (!map[y]) {
				order[used] = y;
				map[y] = ++used;
			}
		}
	if (!(fp = open_memstream(&buf, &len))) {
		free(map);
		free(order);
		return NULL;
	}
	ty_jsonw_init(&w, fp, 0);
	ty_jsonw_object_begin(&w);
	if (p->exact)
		ty_jsonw_kstring(&w, "counts", "instructions");
	ty_jsonw_kuint(&w, "hz", p->hz);
	ty_jsonw_kbool(&w, "callchain", p->callchain);
	ty_jsonw_kuint(&w, "stack_size", p->stack_size);
	ty_jsonw_kbool(&w, "user_only", p->user_only);
	ty_jsonw_kuint(&w, "lost", p->lost);
	ty_jsonw_kdouble(&w, "cost_ms", p->cost_ms);
	ty_jsonw_key(&w, "symbols");
	ty_jsonw_array_begin(&w);
	for (y = 0; y < used; y++) {
		ty_jsonw_array_begin(&w);
		ty_jsonw_string(&w, p->syms[order[y]].name);
		ty_jsonw_string(&w, p->syms[order[y]].dso);
		ty_jsonw_array_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "runs");
	ty_jsonw_array_begin(&w);
	ty_jsonw_array_begin(&w);
	for (i = 0; c && i < c->nruns; i++) {
		const struct ty_runprof_run *r = &c->runs[i];
		ty_jsonw_array_begin(&w);
		ty_jsonw_uint(&w, r->samples);
		ty_jsonw_double(&w, r->ms); /* to the ns (ty_runprof_add_run) */
		for (k = 0; k < r->n; k++) {
			const struct ty_runprof_ent *en = &p->ents[r->first + k];
			ty_jsonw_uint(&w, map[en->sym] - 1);
			ty_jsonw_uint(&w, en->self);
			ty_jsonw_uint(&w, en->total);
		}
		ty_jsonw_array_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	free(map);
	free(order);
	if (ferror(fp) | fclose(fp)) {
		free(buf);
		return NULL;
	}
	return buf;
}

#ifdef HAVE_JANSSON

struct rd {
	const char *file;
	struct ty_error *e;
};

static int bad(struct rd *rd, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
bad(struct rd *rd, const char *where, const char *fmt, ...)
{
	char msg[TY_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ty_error_set(rd->e, -EINVAL, "%s: tachy.profile%s: %s", rd->file, where, msg);
}

/* A whole number in [0, MAX] at V. */
static int
whole(const json_t *v, double max, uint64_t *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0 || (double)i > max)
			return -1;
		*out = (uint64_t)i;
		return 0;
	}
	return -1;
}

static int
read_symbols(struct rd *rd, const json_t *syms, struct ty_runprof *p, uint32_t **map)
{
	size_t i, n = json_array_size(syms);
	char where[64];

	if (!json_is_array(syms))
		return bad(rd, ".symbols", "expected an array");
	if (n >= UINT32_MAX)
		return bad(rd, ".symbols", "too many symbols");
	if (!(*map = malloc((n ? n : 1) * sizeof(**map))))
		return ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
	for (i = 0; i < n; i++) {
		const json_t *s = json_array_get(syms, i), *a = json_array_get(s, 0),
			     *b = json_array_get(s, 1);
		snprintf(where, sizeof(where), ".symbols[%zu]", i);
		if (!json_is_array(s) || json_array_size(s) != 2 || !json_is_string(a) ||
		    !json_is_string(b))
			return bad(rd, where, "expected [\"name\", \"dso\"]");
		/* equal names in one table are one function: map both to it */
		if (((*map)[i] = ty_runprof_sym(p, json_string_value(a), json_string_value(b))) ==
		    UINT32_MAX)
			return ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
	}
	return (int)n;
}

/* One run array R (path WHERE) into command CMD of P. */
static int
read_run(struct rd *rd, const json_t *r, const char *where, struct ty_runprof *p, size_t cmd,
	 const uint32_t *map, size_t nsyms, uint32_t *seen, uint32_t stamp,
	 struct ty_runprof_ent *ents)
{
	size_t len = json_array_size(r), k, n;
	uint64_t samples, v[3];
	const json_t *ms = json_array_get(r, 1);

	if (!json_is_array(r) || len < 2 || (len - 2) % 3 != 0)
		return bad(rd, where,
			   "expected [samples, ms, then sym, self, total for each function]");
	if (whole(json_array_get(r, 0), 9007199254740992.0, &samples))
		return bad(rd, where, "samples: expected a whole number >= 0");
	if (!json_is_number(ms) || !isfinite(json_number_value(ms)) || json_number_value(ms) < 0 ||
	    json_number_value(ms) > (p->exact ? 9007199254740992.0 : 1e12))
		return bad(rd, where, "ms: expected a number from 0 to %s",
			   p->exact ? "2^53" : "1e12");
	n = (len - 2) / 3;
	for (k = 0; k < n; k++) {
		if (nsyms == 0)
			return bad(rd, where, "a function but no symbols");
		if (whole(json_array_get(r, 2 + 3 * k), (double)nsyms - 1, &v[0]))
			return bad(rd, where, "function %zu: expected a symbol index from 0 to %zu",
				   k, nsyms - 1);
		for (int j = 1; j < 3; j++)
			if (whole(json_array_get(r, 2 + 3 * k + (size_t)j),
				  p->exact ? 9007199254740992.0 : (double)UINT32_MAX, &v[j]) ||
			    v[j] > samples)
				return bad(rd, where,
					   "function %zu: %s: expected a whole number from 0 to "
					   "the run's %llu %s",
					   k, j == 1 ? "self" : "total",
					   (unsigned long long)samples,
					   p->exact ? "instructions" : "samples");
		if (seen[v[0]] == stamp)
			return bad(rd, where, "symbol %llu twice", (unsigned long long)v[0]);
		seen[v[0]] = stamp;
		ents[k].sym = map[v[0]];
		ents[k].self = v[1];
		ents[k].total = v[2];
	}
	/* two file symbols of one name would make one function twice */
	for (k = 0; k < n; k++)
		for (size_t j = k + 1; j < n; j++)
			if (ents[k].sym == ents[j].sym)
				return bad(rd, where, "one function twice");
	if (ty_runprof_add_run(p, cmd, samples, json_number_value(ms), ents, n) < 0)
		return ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
	return 0;
}

static int
read_lists(struct rd *rd, const json_t *runs, struct ty_runprof *p, const size_t *orig,
	   const size_t *nruns, size_t nbenches, const uint32_t *map, size_t nsyms)
{
	uint32_t *seen = calloc(nsyms + 1, sizeof(*seen)), stamp = 0;
	struct ty_runprof_ent *ents = NULL;
	size_t cap = 0, b, i;
	char where[96];
	int rc = 0;

	if (!seen)
		return ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
	for (b = 0; b < nbenches && rc == 0; b++) {
		const json_t *list = json_array_get(runs, orig[b]);
		size_t n = json_array_size(list);
		snprintf(where, sizeof(where), ".runs[%zu]", orig[b]);
		if (!json_is_array(list)) {
			rc = bad(rd, where, "expected an array");
			break;
		}
		if (n && n != nruns[b]) {
			rc = bad(rd, where, "%zu runs, but the result has %zu", n, nruns[b]);
			break;
		}
		for (i = 0; i < n && rc == 0; i++) {
			const json_t *r = json_array_get(list, i);
			snprintf(where, sizeof(where), ".runs[%zu][%zu]", orig[b], i);
			if (ty_array_grow(&ents, sizeof(*ents), json_array_size(r) / 3 + 1, &cap) <
			    0) {
				rc = ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
				break;
			}
			rc = read_run(rd, r, where, p, b, map, nsyms, seen, ++stamp, ents);
		}
	}
	free(seen);
	free(ents);
	return rc;
}

int
ty_runprof_json_read(struct ty_runprof **out, const void *prof, const size_t *orig,
		     const size_t *nruns, size_t nbenches, size_t nresults, const char *file,
		     struct ty_error *e)
{
	const json_t *o = prof, *runs, *hz, *counts;
	struct rd rd = {file, e};
	struct ty_runprof *p;
	uint32_t *map = NULL;
	uint64_t v;
	int rc, nsyms, exact = 0;

	*out = NULL;
	if (!json_is_object(o))
		return bad(&rd, "", "expected an object");
	hz = json_object_get(o, "hz");
	runs = json_object_get(o, "runs");
	/* absent: samples; "instructions": run --instructions --profile */
	if ((counts = json_object_get(o, "counts"))) {
		if (!json_is_string(counts) ||
		    strcmp(json_string_value(counts), "instructions") != 0)
			return bad(&rd, ".counts",
				   "expected \"instructions\" (or no such member: samples)");
		exact = 1;
	}
	if (exact ? !hz || whole(hz, 0, &v) : !hz || whole(hz, 1e6, &v) || v == 0)
		return bad(&rd, ".hz",
			   exact ? "expected 0 (the counts are instructions, not samples)"
				 : "expected a whole number from 1 to 1000000");
	if (!json_is_array(runs) || json_array_size(runs) != nresults)
		return bad(&rd, ".runs", "expected an array of %zu lists (one per result)",
			   nresults);
	if (!(p = calloc(1, sizeof(*p))) || ty_runprof_init(p, nbenches) < 0) {
		free(p);
		return ty_error_set(e, -ENOMEM, "%s: out of memory", file);
	}
	p->hz = v;
	p->exact = exact;
	p->callchain = json_is_true(json_object_get(o, "callchain"));
	p->user_only = json_is_true(json_object_get(o, "user_only"));
	if (!whole(json_object_get(o, "stack_size"), 65528, &v)) /* absent before: 0 */
		p->stack_size = (uint32_t)v;
	if (!whole(json_object_get(o, "lost"), 9007199254740992.0, &v))
		p->lost = v;
	if (json_is_number(json_object_get(o, "cost_ms")))
		p->cost_ms = json_number_value(json_object_get(o, "cost_ms"));
	nsyms = read_symbols(&rd, json_object_get(o, "symbols"), p, &map);
	rc =
	    nsyms < 0 ? nsyms : read_lists(&rd, runs, p, orig, nruns, nbenches, map, (size_t)nsyms);
	free(map);
	if (rc < 0) {
		ty_runprof_json_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
ty_runprof_json_read_text(struct ty_runprof **out, const char *text, size_t nruns, const char *what,
			  struct ty_error *e)
{
	size_t orig = 0;
	json_error_t je;
	json_t *root;
	int rc;

	*out = NULL;
	if (!(root = json_loads(text, JSON_REJECT_DUPLICATES, &je)))
		return ty_error_set(e, -EINVAL, "%s: tachy.profile: not JSON (%s, at %d:%d)", what,
				    je.text, je.line, je.column);
	rc = ty_runprof_json_read(out, root, &orig, &nruns, 1, 1, what, e);
	json_decref(root);
	return rc;
}

#else

int
ty_runprof_json_read(struct ty_runprof **out, const void *prof, const size_t *orig,
		     const size_t *nruns, size_t nbenches, size_t nresults, const char *file,
		     struct ty_error *e)
{
	(void)prof, (void)orig, (void)nruns, (void)nbenches, (void)nresults;
	*out = NULL;
	return ty_error_set(e, -ENOTSUP, "%s: not built with jansson", file);
}

int
ty_runprof_json_read_text(struct ty_runprof **out, const char *text, size_t nruns, const char *what,
			  struct ty_error *e)
{
	(void)text, (void)nruns;
	*out = NULL;
	return ty_error_set(e, -ENOTSUP, "%s: not built with jansson", what);
}

#endif
