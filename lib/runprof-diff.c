/* runprof-diff.c - per-function tests between the per-run profiles of two
 * commands, the familywise error rate held over them (runprof-diff.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/runprof-diff.h"

const char *
ty_runprof_verdict_word(int verdict)
{
	return verdict > 0 ? "slower" : verdict < 0 ? "faster" : "~";
}

struct pq {
	double p;
	size_t i;
};

static int
pq_cmp(const void *a, const void *b)
{
	const struct pq *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* P[0..N) sorted ascending with their indexes (NAN as 1), or NULL when
 * out of memory; the caller frees it. */
static struct pq *
sorted_p(const double *p, size_t n)
{
	struct pq *v = malloc((n ? n : 1) * sizeof(*v));
	size_t k;

	if (!v)
		return NULL;
	for (k = 0; k < n; k++) {
		v[k].p = isnan(p[k]) ? 1 : p[k];
		v[k].i = k;
	}
	qsort(v, n, sizeof(*v), pq_cmp);
	return v;
}

int
ty_runprof_bh(const double *p, size_t n, double *q)
{
	struct pq *v = sorted_p(p, n);
	double run = 1;
	size_t k;

	if (!v)
		return -ENOMEM;
	/* step-up: q_(k) = min over j >= k of p_(j) n / j */
	for (k = n; k-- > 0;) {
		double x = v[k].p * (double)n / (double)(k + 1);
		if (x < run)
			run = x;
		q[v[k].i] = run;
	}
	free(v);
	return 0;
}

int
ty_runprof_holm(const double *p, size_t n, double *q)
{
	struct pq *v = sorted_p(p, n);
	double run = 0;
	size_t k;

	if (!v)
		return -ENOMEM;
	/* step-down: q_(k) = max over j <= k of min(1, p_(j) (n - j + 1)) */
	for (k = 0; k < n; k++) {
		double x = v[k].p * (double)(n - k);
		if (x > 1)
			x = 1;
		if (x > run)
			run = x;
		q[v[k].i] = run;
	}
	free(v);
	return 0;
}

/* The per-run columns of the tested rows. */
struct cols {
	size_t na, nb, ncol;
	double *a, *b;	   /* a[i * ncol + c]: run i of old, column c (self ms) */
	double *ta, *tb;   /* total ms, likewise */
	uint32_t *col_sym; /* column -> key (TY_RUNPROF_POOLED) */
	size_t npooled;
};

static void
cols_release(struct cols *c)
{
	free(c->a);
	free(c->b);
	free(c->ta);
	free(c->tb);
	free(c->col_sym);
}

/* The functions of both sides matched (profile-match.h): each side's
 * syms to the keys, and back to a sym of each side for the rows. */
struct keymap {
	uint32_t *kof[2];  /* sym -> key on each side (UINT32_MAX: not sampled there) */
	uint32_t *ksym[2]; /* key -> a sym of each side (UINT32_MAX: none) */
	uint32_t nkeys;
	struct ty_profile_match m;
};

static void
keymap_release(struct keymap *km)
{
	int s;

	for (s = 0; s < 2; s++) {
		free(km->kof[s]);
		free(km->ksym[s]);
	}
	memset(km, 0, sizeof(*km));
}

/* Which syms command CMD sampled (SEEN[sym] = 1) and their self samples
 * (W[sym]). */
static void
side_syms(const struct ty_runprof *p, const struct ty_runprof_cmd *cmd, size_t skip, char *seen,
	  double *w)
{
	size_t i, k;

	for (i = skip; i < cmd->nruns; i++)
		for (k = 0; k < cmd->runs[i].n; k++) {
			const struct ty_runprof_ent *en = &p->ents[cmd->runs[i].first + k];
			if (en->sym >= p->nsyms)
				continue;
			seen[en->sym] = 1;
			w[en->sym] += en->self;
		}
}

static int
keymap_build(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
	     const struct ty_runprof_diff_opts *o, struct keymap *km)
{
	size_t n = p->nsyms ? p->nsyms : 1, cmd[2] = {old_cmd, new_cmd}, skip[2];
	const char *command[2] = {o->old_command, o->new_command};
	struct ty_profile_match_keys keys = {0};
	const char **dsos = malloc(n * sizeof(*dsos));
	double *w = malloc(n * sizeof(*w));
	char *seen = malloc(n);
	uint32_t y, k;
	int s, rc = -ENOMEM;

	memset(km, 0, sizeof(*km));
	km->m = o->match;
	skip[0] = o->skip_old;
	skip[1] = o->skip_new;
	if (!dsos || !w || !seen)
		goto out;
	for (s = 0; s < 2; s++) {
		size_t nd = 0;
		memset(seen, 0, n);
		memset(w, 0, n * sizeof(*w));
		side_syms(p, &p->cmds[cmd[s]], skip[s], seen, w);
		if (!(km->kof[s] = malloc(n * sizeof(*km->kof[s]))))
			goto out;
		if (!km->m.main[s]) { /* the side's main program: its command's first word */
			double *wd = w;
			for (y = 0; y < p->nsyms; y++)
				if (seen[y]) {
					dsos[nd] = p->syms[y].dso;
					wd[nd++] = w[y]; /* nd <= y: compacted in place */
				}
			km->m.main[s] = ty_profile_match_main(command[s], dsos, wd, nd);
		}
		memset(seen, 0, n);
		memset(w, 0, n * sizeof(*w));
		side_syms(p, &p->cmds[cmd[s]], skip[s], seen, w);
		for (y = 0; y < p->nsyms; y++) {
			km->kof[s][y] = UINT32_MAX;
			if (seen[y] &&
			    (km->kof[s][y] = ty_profile_match_keys_add(
				 &keys, &km->m, s, p->syms[y].name, p->syms[y].dso)) == UINT32_MAX)
				goto out;
		}
	}
	km->nkeys = keys.n;
	for (s = 0; s < 2; s++) {
		if (!(km->ksym[s] = malloc((keys.n ? keys.n : 1) * sizeof(*km->ksym[s]))))
			goto out;
		for (k = 0; k < keys.n; k++)
			km->ksym[s][k] = UINT32_MAX;
		for (y = 0; y < p->nsyms; y++)
			if ((k = km->kof[s][y]) != UINT32_MAX && km->ksym[s][k] == UINT32_MAX)
				km->ksym[s][k] = y;
	}
	rc = 0;
out:
	ty_profile_match_keys_release(&keys);
	free(dsos);
	free(w);
	free(seen);
	if (rc < 0)
		keymap_release(km);
	return rc;
}

static void
fill_side(const struct ty_runprof *p, const struct ty_runprof_cmd *cmd, size_t skip,
	  const uint32_t *kof, const uint32_t *colof, size_t ncol, double mps, double *self,
	  double *total)
{
	size_t i, k;

	for (i = skip; i < cmd->nruns; i++) {
		const struct ty_runprof_run *r = &cmd->runs[i];
		double *row = self + (i - skip) * ncol, *trow = total + (i - skip) * ncol;
		for (k = 0; k < r->n; k++) {
			const struct ty_runprof_ent *en = &p->ents[r->first + k];
			uint32_t c = en->sym < p->nsyms && kof[en->sym] != UINT32_MAX
					 ? colof[kof[en->sym]]
					 : UINT32_MAX;
			if (c == UINT32_MAX)
				continue; /* not tested (totals: too rare) */
			row[c] += mps * en->self;
			trow[c] += mps * en->total;
		}
	}
}

/* The columns of the rows tested, one per matched function (KM's keys):
 * by self time (TOTALS 0: each function
 * sampled as the leaf at least MIN times, the rarer pooled into one
 * column), or by total time (TOTALS 1: each function on the chains at
 * least MIN times; the rarer are left out: their totals overlap, a sum of
 * them means nothing). A and B hold the measure tested, TA and TB the
 * total. */
static int
build_cols(const struct ty_runprof *p, const struct ty_runprof_cmd *ca,
	   const struct ty_runprof_cmd *cb, const struct ty_runprof_diff_opts *o,
	   const struct keymap *km, uint32_t min, int totals, struct cols *c)
{
	uint64_t *sum = calloc(km->nkeys ? km->nkeys : 1, sizeof(*sum));
	uint32_t *colof = malloc((km->nkeys ? km->nkeys : 1) * sizeof(*colof));
	const struct ty_runprof_cmd *side[2] = {ca, cb};
	size_t skip[2] = {o->skip_old, o->skip_new}, s, i, k, ntested = 0;
	uint32_t y;
	uint64_t samples = 0;
	double ms = 0, mps;
	int rc = -ENOMEM, seen_rare = 0;

	memset(c, 0, sizeof(*c));
	if (!sum || !colof)
		goto out;
	for (s = 0; s < 2; s++)
		for (i = skip[s]; i < side[s]->nruns; i++) {
			ms += side[s]->runs[i].ms;
			samples += side[s]->runs[i].samples;
		}
	mps = samples ? ms / (double)samples : 0;
	for (s = 0; s < 2; s++)
		for (i = skip[s]; i < side[s]->nruns; i++)
			for (k = 0; k < side[s]->runs[i].n; k++) {
				const struct ty_runprof_ent *en =
				    &p->ents[side[s]->runs[i].first + k];
				if (en->sym < p->nsyms && km->kof[s][en->sym] != UINT32_MAX)
					sum[km->kof[s][en->sym]] += totals ? en->total : en->self;
			}
	for (y = 0; y < km->nkeys; y++)
		if (sum[y] >= min)
			ntested++;
		else if (sum[y] > 0 && !totals)
			seen_rare = 1;
	c->ncol = ntested + (size_t)seen_rare;
	c->na = ca->nruns - o->skip_old;
	c->nb = cb->nruns - o->skip_new;
	c->col_sym = malloc((c->ncol ? c->ncol : 1) * sizeof(*c->col_sym));
	c->a = calloc(c->na * c->ncol + 1, sizeof(double));
	c->b = calloc(c->nb * c->ncol + 1, sizeof(double));
	c->ta = calloc(c->na * c->ncol + 1, sizeof(double));
	c->tb = calloc(c->nb * c->ncol + 1, sizeof(double));
	if (!c->col_sym || !c->a || !c->b || !c->ta || !c->tb)
		goto out;
	for (y = 0, k = 0; y < km->nkeys; y++) {
		if (sum[y] >= min) {
			c->col_sym[k] = y; /* a key */
			colof[y] = (uint32_t)k++;
		} else if (totals) {
			colof[y] = UINT32_MAX;
		} else {
			colof[y] = (uint32_t)ntested; /* the pooled column (or unused) */
			c->npooled += sum[y] > 0;
		}
	}
	if (seen_rare)
		c->col_sym[ntested] = TY_RUNPROF_POOLED;
	if (totals) { /* test the totals: they go in A and B */
		fill_side(p, ca, o->skip_old, km->kof[0], colof, c->ncol, mps, c->ta, c->a);
		fill_side(p, cb, o->skip_new, km->kof[1], colof, c->ncol, mps, c->tb, c->b);
	} else {
		fill_side(p, ca, o->skip_old, km->kof[0], colof, c->ncol, mps, c->a, c->ta);
		fill_side(p, cb, o->skip_new, km->kof[1], colof, c->ncol, mps, c->b, c->tb);
	}
	rc = 0;
out:
	free(sum);
	free(colof);
	return rc;
}

/* The pairs of runs (old index, new index) of rounds present once on each
 * side; 0 when too few pair for a paired test. */
static size_t
pair_rounds(const struct ty_runprof_diff_opts *o, size_t na, size_t nb, size_t *pa, size_t *pb)
{
	size_t i, j, n = 0, big = na > nb ? na : nb;

	if (!o->old_round || !o->new_round)
		return 0;
	for (i = 0; i < na; i++) {
		uint32_t rd = o->old_round[o->skip_old + i];
		size_t hits = 0, at = 0, again = 0;
		for (j = 0; j < nb; j++)
			if (o->new_round[o->skip_new + j] == rd) {
				hits++;
				at = j;
			}
		for (j = 0; j < na; j++)
			again += o->old_round[o->skip_old + j] == rd;
		if (hits == 1 && again == 1) {
			pa[n] = i;
			pb[n++] = at;
		}
	}
	return n >= 6 && 2 * n >= big ? n : 0;
}

/* One test of column K at CONF; fills est/lo/hi/p. */
static int
test_col(const struct cols *c, size_t k, const size_t *pa, const size_t *pb, size_t npairs,
	 enum ty_test test, double conf, double *tmp, struct ty_compare *r)
{
	double *x = tmp, *y = tmp + c->na + c->nb;
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	if (npairs) {
		for (i = 0; i < npairs; i++)
			x[i] = c->b[pb[i] * c->ncol + k] - c->a[pa[i] * c->ncol + k];
		if (test == TY_TEST_MANN_WHITNEY)
			rc = ty_stats_signed_rank(x, npairs, conf, r);
		else if (test == TY_TEST_YUEN)
			rc = ty_stats_one_sample_trimmed(x, npairs, conf, r);
		else
			rc = ty_stats_one_sample_t(x, npairs, conf, r);
	} else {
		struct ty_summary sa, sb;
		for (i = 0; i < c->na; i++)
			x[i] = c->a[i * c->ncol + k];
		for (i = 0; i < c->nb; i++)
			y[i] = c->b[i * c->ncol + k];
		if (test == TY_TEST_MANN_WHITNEY)
			rc = ty_stats_mann_whitney(x, c->na, y, c->nb, conf, r);
		else if (test == TY_TEST_YUEN)
			rc = ty_stats_yuen(x, c->na, y, c->nb, conf, r);
		else if ((rc = ty_stats_summarize(x, c->na, &sa)) == 0 &&
			 (rc = ty_stats_summarize(y, c->nb, &sb)) == 0)
			rc = test == TY_TEST_STUDENT ? ty_stats_student(&sa, &sb, conf, r)
						     : ty_stats_welch(&sa, &sb, conf, r);
	}
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0 || !isfinite(r->p_value)) {
		/* nothing to test (every difference zero, no spread): no change */
		r->diff = r->diff_lo = r->diff_hi = 0;
		r->p_value = 1;
	}
	if (!isfinite(r->diff_lo) || !isfinite(r->diff_hi))
		r->diff_lo = r->diff_hi = NAN; /* no interval at this confidence */
	return 0;
}

static double
col_mean(const double *m, size_t n, size_t ncol, size_t k)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += m[i * ncol + k];
	return n ? s / (double)n : 0;
}

/* qsort has no context: the direction the profile moved, and the symbols
 * (ties are ordered by name and DSO, not by index: a profile read back
 * from an export numbers its symbols otherwise than the run did) */
static double rank_dir;
static const struct ty_runprof *rank_p;

static int
sym_cmp(uint32_t a, uint32_t b)
{
	const struct ty_runprof_sym *x, *y;
	int c;

	if (a == b || !rank_p || a >= rank_p->nsyms || b >= rank_p->nsyms)
		return a < b ? -1 : a > b;
	x = &rank_p->syms[a];
	y = &rank_p->syms[b];
	if ((c = strcmp(x->name ? x->name : "", y->name ? y->name : "")))
		return c;
	return strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
}

static int
row_cmp(const void *a, const void *b)
{
	const struct ty_runprof_row *x = a, *y = b;
	int px = x->sym == TY_RUNPROF_POOLED, py = y->sym == TY_RUNPROF_POOLED;
	long long kx, ky;

	if (px != py)
		return px - py;
	if ((x->verdict != 0) != (y->verdict != 0))
		return x->verdict ? -1 : 1;
	/* in whole microseconds: a caller and its callee with the same
	 * samples differ in the last bits by the order of their sums, and not
	 * once read back from an export (run's list and compare's must agree) */
	kx = llround((x->verdict ? x->change_ms * rank_dir : fabs(x->change_ms)) * 1e3);
	ky = llround((y->verdict ? y->change_ms * rank_dir : fabs(y->change_ms)) * 1e3);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return sym_cmp(x->sym, y->sym);
}

/* Test one family of rows (self or total time) into *ROWS, *NROWS, with
 * Holm (or Benjamini-Hochberg, as O says) over them. */
static int
family(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
       const struct ty_runprof_diff_opts *o, const struct keymap *km, uint32_t min, int totals,
       struct ty_runprof_row **rows, size_t *nrows, size_t *nflagged, double *explained,
       size_t *npairs_out)
{
	struct cols c;
	size_t na = p->cmds[old_cmd].nruns - o->skip_old, nb = p->cmds[new_cmd].nruns - o->skip_new;
	size_t k, *pa = NULL, *pb = NULL, npairs, nf = 0;
	double *tmp = NULL, *pv = NULL, *qv = NULL, alpha = 1 - o->confidence / 100;
	struct ty_runprof_row *rw = NULL;
	int rc;

	*rows = NULL;
	*nrows = *nflagged = 0;
	if ((rc = build_cols(p, &p->cmds[old_cmd], &p->cmds[new_cmd], o, km, min, totals, &c)) < 0)
		goto out;
	rc = -ENOMEM;
	pa = malloc((na + 1) * sizeof(*pa));
	pb = malloc((na + 1) * sizeof(*pb));
	tmp = malloc((2 * (na + nb) + 2) * sizeof(*tmp));
	pv = calloc(c.ncol + 1, sizeof(*pv));
	qv = malloc((c.ncol + 1) * sizeof(*qv));
	rw = calloc(c.ncol + 1, sizeof(*rw));
	if (!pa || !pb || !tmp || !pv || !qv || !rw)
		goto out;
	npairs = pair_rounds(o, na, nb, pa, pb);
	for (k = 0; k < c.ncol; k++) {
		struct ty_runprof_row *r = &rw[k];
		struct ty_compare t;
		if ((rc = test_col(&c, k, pa, pb, npairs, o->test, o->confidence, tmp, &t)) < 0)
			goto out;
		if (c.col_sym[k] == TY_RUNPROF_POOLED) {
			r->sym = r->old_sym = r->new_sym = TY_RUNPROF_POOLED;
		} else {
			r->old_sym = km->ksym[0][c.col_sym[k]];
			r->new_sym = km->ksym[1][c.col_sym[k]];
			r->sym = r->new_sym != UINT32_MAX ? r->new_sym : r->old_sym;
		}
		r->npooled = r->sym == TY_RUNPROF_POOLED ? c.npooled : 0;
		r->old_ms = col_mean(c.a, na, c.ncol, k);
		r->new_ms = col_mean(c.b, nb, c.ncol, k);
		r->old_total_ms = r->sym == TY_RUNPROF_POOLED ? NAN : col_mean(c.ta, na, c.ncol, k);
		r->new_total_ms = r->sym == TY_RUNPROF_POOLED ? NAN : col_mean(c.tb, nb, c.ncol, k);
		r->change_ms = t.diff;
		r->lo = t.diff_lo;
		r->hi = t.diff_hi;
		r->conf = o->confidence;
		pv[k] = r->p = t.p_value;
	}
	rc = o->adjust == TY_RUNPROF_BH ? ty_runprof_bh(pv, c.ncol, qv)
					: ty_runprof_holm(pv, c.ncol, qv);
	if (rc < 0)
		goto out;
	for (k = 0; k < c.ncol; k++)
		if ((rw[k].q = qv[k]) <= alpha)
			nf++;
	for (k = 0; k < c.ncol; k++) {
		struct ty_runprof_row *r = &rw[k];
		if (r->q > alpha)
			continue;
		if (nf < c.ncol) { /* the false coverage rate's level */
			struct ty_compare t;
			double conf = 100 * (1 - (double)nf * alpha / (double)c.ncol);
			if ((rc = test_col(&c, k, pa, pb, npairs, o->test, conf, tmp, &t)) < 0)
				goto out;
			r->lo = t.diff_lo;
			r->hi = t.diff_hi;
			r->conf = conf;
		}
		r->verdict = r->change_ms > 0	      ? 1
			     : r->change_ms < 0	      ? -1
			     : r->new_ms >= r->old_ms ? 1
						      : -1;
		if (explained)
			*explained += r->change_ms;
	}
	/* Flagged rows in the direction the profile moved first: the sign of
	 * the self times' total change (the totals' rows overlap: they keep
	 * the self family's), else the wall change's. Not the wall's alone:
	 * a run under load waits longer for the CPU, and its wall time can
	 * fall while the profiled time rose. */
	if (!totals) {
		double sum = 0;
		for (k = 0; k < c.ncol; k++)
			sum += rw[k].change_ms;
		rank_dir = sum < 0 ? -1 : sum > 0 ? 1 : o->wall_change_ms < 0 ? -1 : 1;
	}
	rank_p = p;
	qsort(rw, c.ncol, sizeof(*rw), row_cmp);
	*rows = rw;
	rw = NULL;
	*nrows = c.ncol;
	*nflagged = nf;
	*npairs_out = npairs;
	rc = 0;
out:
	cols_release(&c);
	free(rw);
	free(pa);
	free(pb);
	free(tmp);
	free(pv);
	free(qv);
	return rc;
}

/* Each row's verdict in the other family (rows of one function share
 * their sym: the same key, the same representative). */
static void
cross_verdicts(struct ty_runprof_diff *d)
{
	size_t i, j;

	for (i = 0; i < d->nrows; i++)
		d->rows[i].other = TY_RUNPROF_UNTESTED;
	for (j = 0; j < d->ntotals; j++)
		d->totals[j].other = TY_RUNPROF_UNTESTED;
	for (i = 0; i < d->nrows; i++)
		for (j = 0; j < d->ntotals && d->rows[i].sym != TY_RUNPROF_POOLED; j++)
			if (d->totals[j].sym == d->rows[i].sym) {
				d->rows[i].other = d->totals[j].verdict;
				d->totals[j].other = d->rows[i].verdict;
				break;
			}
}

int
ty_runprof_diff(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
		const struct ty_runprof_diff_opts *o, struct ty_runprof_diff *d, struct ty_error *e)
{
	size_t na, nb, pairs = 0;
	uint32_t min;
	struct keymap km;

	memset(d, 0, sizeof(*d));
	if (old_cmd >= p->ncmds || new_cmd >= p->ncmds)
		return ty_error_set(e, -EINVAL, "profile: no such command");
	if (!(o->confidence > 0 && o->confidence < 100))
		return ty_error_set(e, -EINVAL, "confidence %g%% is not in (0, 100)",
				    o->confidence);
	if (p->cmds[old_cmd].nruns < o->skip_old + 2 || p->cmds[new_cmd].nruns < o->skip_new + 2)
		return ty_error_set(e, -EINVAL, "profile: fewer than 2 profiled runs on a side");
	na = p->cmds[old_cmd].nruns - o->skip_old;
	nb = p->cmds[new_cmd].nruns - o->skip_new;
	min = o->min_samples ? o->min_samples : (na + nb > 10 ? (uint32_t)(na + nb) : 10);
	if (keymap_build(p, old_cmd, new_cmd, o, &km) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory");
	if (family(p, old_cmd, new_cmd, o, &km, min, 0, &d->rows, &d->nrows, &d->nflagged,
		   &d->explained_ms, &d->pairs) < 0 ||
	    family(p, old_cmd, new_cmd, o, &km, min, 1, &d->totals, &d->ntotals,
		   &d->ntotals_flagged, NULL, &pairs) < 0) {
		keymap_release(&km);
		ty_runprof_diff_release(d);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	d->match = km.m;
	keymap_release(&km);
	cross_verdicts(d);
	d->alpha = 1 - o->confidence / 100;
	d->min_samples = min;
	d->wall_change_ms = o->wall_change_ms;
	return 0;
}

void
ty_runprof_diff_release(struct ty_runprof_diff *d)
{
	free(d->rows);
	free(d->totals);
	memset(d, 0, sizeof(*d));
}

/* The count of every function in run R of P into C[0..nsyms) (zeroed
 * first). */
static void
run_counts(const struct ty_runprof *p, const struct ty_runprof_run *r, uint64_t *c)
{
	size_t i;

	memset(c, 0, p->nsyms * sizeof(*c));
	for (i = 0; i < r->n; i++)
		c[p->ents[r->first + i].sym] = p->ents[r->first + i].self;
}

/* Whether every run of command CMD repeats its first run's counts, left
 * in FIRST (SCRATCH: room for nsyms). */
static int
repeats(const struct ty_runprof *p, size_t cmd, uint64_t *first, uint64_t *scratch)
{
	const struct ty_runprof_cmd *c = &p->cmds[cmd];
	size_t i;

	run_counts(p, &c->runs[0], first);
	for (i = 1; i < c->nruns; i++) {
		run_counts(p, &c->runs[i], scratch);
		if (memcmp(first, scratch, p->nsyms * sizeof(*first)) != 0)
			return 0;
	}
	return 1;
}

static double exact_dir; /* the sign of the total change, for the order */

static int
exact_order(const void *x, const void *y)
{
	const struct ty_runprof_row *a = x, *b = y;
	double ka = a->change_ms * exact_dir, kb = b->change_ms * exact_dir;

	if (a->verdict != 0 && b->verdict != 0 && ka != kb)
		return ka > kb ? -1 : 1;
	if ((a->verdict != 0) != (b->verdict != 0))
		return a->verdict != 0 ? -1 : 1;
	if (fabs(a->change_ms) != fabs(b->change_ms))
		return fabs(a->change_ms) > fabs(b->change_ms) ? -1 : 1;
	return (a->sym > b->sym) - (a->sym < b->sym);
}

int
ty_runprof_diff_exact(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
		      struct ty_runprof_diff *d, struct ty_error *e)
{
	uint64_t *a, *b, *scratch;
	double total = 0;
	uint32_t y;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	if (old_cmd >= p->ncmds || new_cmd >= p->ncmds)
		return ty_error_set(e, -EINVAL, "profile: no such command");
	if (!p->cmds[old_cmd].nruns || !p->cmds[new_cmd].nruns)
		return ty_error_set(e, -EINVAL, "profile: no counted run on a side");
	a = calloc(p->nsyms + 1, sizeof(*a));
	b = calloc(p->nsyms + 1, sizeof(*b));
	scratch = calloc(p->nsyms + 1, sizeof(*scratch));
	d->rows = calloc(p->nsyms + 1, sizeof(*d->rows));
	if (!a || !b || !scratch || !d->rows) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (!repeats(p, old_cmd, a, scratch) || !repeats(p, new_cmd, b, scratch)) {
		rc = 1;
		goto out;
	}
	for (y = 0; y < p->nsyms; y++) {
		struct ty_runprof_row *r;
		double ch = (double)b[y] - (double)a[y];
		if (!a[y] && !b[y])
			continue;
		r = &d->rows[d->nrows++];
		r->sym = y;
		r->old_sym = a[y] ? y : UINT32_MAX;
		r->new_sym = b[y] ? y : UINT32_MAX;
		r->old_ms = (double)a[y];
		r->new_ms = (double)b[y];
		r->old_total_ms = r->new_total_ms = NAN;
		r->change_ms = r->lo = r->hi = ch;
		r->conf = 100;
		r->p = r->q = ch != 0 ? 0 : 1;
		r->verdict = ch > 0 ? 1 : ch < 0 ? -1 : 0;
		d->nflagged += ch != 0;
		if (ch != 0)
			d->explained_ms += ch;
		total += ch;
	}
	exact_dir = total < 0 ? -1 : 1;
	qsort(d->rows, d->nrows, sizeof(*d->rows), exact_order);
	d->wall_change_ms = total;
	d->match.mode = TY_MATCH_SYM; /* interned by name: cachegrind names no object */
out:
	free(a);
	free(b);
	free(scratch);
	if (rc != 0)
		ty_runprof_diff_release(d);
	return rc;
}
