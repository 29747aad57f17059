/* runprof.c - per-run profiles: the model (a symbol table, per-run counts)
 * and the runner probe that samples each measured run. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/collect.h"
#include "tachy/runprof-spill.h"
#include "tachy/runprof.h"
#include "tachy/sampler.h"
#include "tachy/unwind.h"

/* The unwinder marks exact pcs as the sampler does. */
_Static_assert(TY_UNWIND_EXACT == TY_FRAME_EXACT, "one exact-pc bit");

/* Rings of the stack copies: room for 128 copies of the default (a thread
 * drains them at a quarter, 32 copies, 64 ms at 499 Hz, and has 192 ms
 * more before a sample is lost: a loaded machine keeps a thread waiting
 * tens of ms). Halved where the locked-memory limit refuses them, the
 * stack copy made smaller where a ring would hold fewer than 32. */
#define RING_PAGES_STACK 256
#define RING_PAGES_FP 128
#define RING_PAGES_MIN 16
#define STACK_MIN 1024

int
ty_runprof_init(struct ty_runprof *p, size_t ncmds)
{
	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->ncmds = ncmds;
	p->cmds = calloc(ncmds ? ncmds : 1, sizeof(*p->cmds));
	return p->cmds ? 0 : -ENOMEM;
}

void
ty_runprof_release(struct ty_runprof *p)
{
	uint32_t i;
	size_t c;

	if (!p)
		return;
	ty_runprof_spill_free(p->spill); /* before its sampler */
	ty_sampler_free(p->sampler);
	ty_unwind_free(p->uw);
	free(p->scratch);
	for (i = 0; i < p->nsyms; i++) {
		free(p->syms[i].name);
		free(p->syms[i].dso);
	}
	free(p->syms);
	free(p->ents);
	for (c = 0; c < p->ncmds && p->cmds; c++)
		free(p->cmds[c].runs);
	for (c = 0; c < p->ncmds && p->stacks; c++)
		ty_profile_free(p->stacks[c]);
	free(p->stacks);
	free(p->cmds);
	ty_idmap_release(&p->index);
	memset(p, 0, sizeof(*p));
	p->pid = -1;
}

static uint64_t
hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

uint32_t
ty_runprof_sym(struct ty_runprof *p, const char *name, const char *dso)
{
	uint64_t key = hash_str(hash_str(14695981039346656037ull, name), dso);
	uint32_t *slot;

	/* Equal hashes of different names: the next key, until a match or a
	 * free slot. */
	for (;; key++) {
		if (!(slot = ty_idmap_get(&p->index, key)))
			return UINT32_MAX;
		if (*slot == TY_IDMAP_NONE)
			break;
		if (strcmp(p->syms[*slot].name, name) == 0 && strcmp(p->syms[*slot].dso, dso) == 0)
			return *slot;
	}
	if (ty_array_grow(&p->syms, sizeof(*p->syms), (size_t)p->nsyms + 1, &p->capsyms) < 0)
		goto oom;
	p->syms[p->nsyms].name = strdup(name);
	p->syms[p->nsyms].dso = strdup(dso);
	if (!p->syms[p->nsyms].name || !p->syms[p->nsyms].dso) {
		free(p->syms[p->nsyms].name);
		free(p->syms[p->nsyms].dso);
		goto oom;
	}
	*slot = p->nsyms;
	return p->nsyms++;
oom:
	/* leave the slot unused: a key that maps to nothing is re-probed */
	*slot = TY_IDMAP_NONE;
	return UINT32_MAX;
}

int
ty_runprof_add_run(struct ty_runprof *p, size_t cmd, uint64_t samples, double ms,
		   const struct ty_runprof_ent *ents, size_t n)
{
	struct ty_runprof_cmd *c;
	size_t i;

	if (cmd >= p->ncmds)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (ents[i].sym >= p->nsyms)
			return -EINVAL;
	c = &p->cmds[cmd];
	if (ty_array_grow(&c->runs, sizeof(*c->runs), c->nruns + 1, &c->cap) < 0 ||
	    ty_array_grow(&p->ents, sizeof(*p->ents), p->nents + n, &p->capents) < 0)
		return -ENOMEM;
	if (n)
		memcpy(p->ents + p->nents, ents, n * sizeof(*ents));
	c->runs[c->nruns].samples = samples;
	/* to the nanosecond, as the export keeps it: a profile read back
	 * from it tests the same numbers (the same ties) as the run did */
	c->runs[c->nruns].ms = round(ms * 1e6) / 1e6;
	c->runs[c->nruns].first = p->nents;
	c->runs[c->nruns].n = n;
	c->nruns++;
	p->nents += n;
	return 0;
}

double
ty_runprof_ms(const struct ty_runprof_run *r, uint32_t count)
{
	return r->samples ? r->ms * count / (double)r->samples : 0;
}

struct ty_profile *
ty_runprof_flat_profile(const struct ty_runprof *p, size_t cmd)
{
	const struct ty_runprof_cmd *c = cmd < p->ncmds ? &p->cmds[cmd] : NULL;
	struct ty_profile *out;
	double *sum;
	size_t i, k;
	uint32_t y;

	if (!c || !(sum = calloc(p->nsyms + 1, sizeof(*sum))))
		return NULL;
	if (!(out = ty_profile_new()) || ty_profile_thread(out, 0, 0, "") == TY_NONE)
		goto fail;
	out->meta.rate = 1;
	out->meta.processes = 1;
	for (i = 0; i < c->nruns; i++)
		for (k = 0; k < c->runs[i].n; k++)
			sum[p->ents[c->runs[i].first + k].sym] +=
			    (double)p->ents[c->runs[i].first + k].self;
	for (y = 0; y < p->nsyms; y++) {
		struct ty_prof_sample s;
		uint32_t fn, loc;
		double mean = c->nruns ? round(sum[y] / (double)c->nruns) : 0;

		if (mean < 1)
			continue;
		if ((fn = ty_profile_func(out, p->syms[y].name, p->syms[y].dso)) == TY_NONE ||
		    (loc = ty_profile_loc(out, 0, fn)) == TY_NONE)
			goto fail;
		memset(&s, 0, sizeof(s));
		s.period = (uint64_t)mean;
		if ((s.stack = ty_profile_stack(out, &loc, 1)) == TY_NONE ||
		    ty_profile_sample(out, &s) < 0)
			goto fail;
	}
	free(sum);
	return out;
fail:
	free(sum);
	ty_profile_free(out);
	return NULL;
}

/* ---- the probe ---- */

/* Milliseconds of CLOCK_MONOTONIC, for the probe's own cost. */
static double
mono_ms(void)
{
	return (double)ty_clock_now_ns() / 1e6;
}

/* The user stack copy that rings of PAGES pages hold 32 of. */
static uint32_t
stack_fit(uint32_t stack, unsigned pages)
{
	size_t fit = (size_t)pages * (size_t)getpagesize() / 32;

	if (stack > fit)
		stack = fit < STACK_MIN ? STACK_MIN : (uint32_t)fit & ~7u;
	return stack;
}

static int
probe_attach(void *ctx, pid_t pid, struct ty_error *e)
{
	struct ty_runprof *p = ctx;
	struct ty_sampler_opts so = {0};
	struct ty_sampler *s = NULL;
	double t0 = mono_ms();
	int rc;

	so.type = PERF_TYPE_SOFTWARE;
	so.config = PERF_COUNT_SW_CPU_CLOCK;
	so.use_freq = 1;
	so.rate = p->hz;
	so.callchain = 1;
	so.pid = pid;
	so.enable_on_exec = 1;
	so.mmap_pages = p->ring_pages;
	for (;;) {
		so.exclude_kernel = p->user_only;
		if (p->stack_size) {
			p->stack_size = stack_fit(p->stack_size, so.mmap_pages);
			so.regs_user = TY_UNWIND_REGS_MASK;
			so.stack_user = p->stack_size;
			so.wakeup_div = 4;
		}
		rc = ty_sampler_open(&s, &so, e);
		if (rc == 0)
			break;
		if ((rc == -EPERM || rc == -ENOMEM) && so.mmap_pages > RING_PAGES_MIN) {
			so.mmap_pages /= 2; /* a user's locked-memory limit */
			continue;
		}
		if ((rc == -EACCES || rc == -EPERM) && !p->user_only) {
			p->user_only = 1; /* perf_event_paranoid >= 2: user space only */
			continue;
		}
		return rc;
	}
	p->ring_pages = so.mmap_pages;
	ty_sampler_free(p->sampler);
	p->sampler = s;
	p->pid = pid;
	if (p->spill && (rc = ty_runprof_spill_start(p->spill, s, e)) < 0) {
		ty_sampler_free(s);
		p->sampler = NULL;
		p->pid = -1;
		return rc;
	}
	p->cost_ms += mono_ms() - t0;
	return 0;
}

static void
probe_detach(void *ctx, pid_t pid)
{
	struct ty_runprof *p = ctx;

	(void)pid;
	if (p->spill)
		ty_runprof_spill_stop(p->spill, NULL, NULL);
	ty_sampler_free(p->sampler);
	p->sampler = NULL;
	p->pid = -1;
}

/* Records to the collector, each sample with a stack copy unwound first:
 * the kernel's part of its chain, then the user frames from the copy, and
 * [truncated] where the copy ended them (as record -g). */
struct chains {
	struct ty_runprof *p;
	struct ty_collector *c;
};

static void
on_record(const struct ty_sampler_rec *rec, void *arg)
{
	struct chains *ch = arg;
	struct ty_runprof *p = ch->p;
	struct ty_sampler_rec *out = p->scratch;
	struct ty_unwind_sample us;
	enum ty_unwind_end end;
	size_t k, n;

	if (rec->type == TY_SAMPLER_REC_MMAP || (rec->type == TY_SAMPLER_REC_COMM && rec->exec))
		ty_unwind_forget(p->uw);
	if (rec->type != TY_SAMPLER_REC_SAMPLE || !rec->regs_abi) {
		ty_collector_record(rec, ch->c);
		return;
	}
	k = ty_unwind_input(rec, TY_UNWIND_REGS_MASK, out, &us);
	n = ty_unwind_sample(p->uw, &us, out->chainbuf + k, TY_SAMPLER_MAX_STACK - 1 - k, &end);
	if (end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED) {
		out->chainbuf[k + n++] = TY_FRAME_TRUNCATED;
		p->cut++;
	}
	out->nr = k + n;
	p->unwound++;
	ty_collector_record(out, ch->c);
}

/* Count P's samples per function into ENTS (one per function of PR, zeroed
 * by the caller; SYM set here). */
static int
count_samples(struct ty_runprof *rp, const struct ty_profile *pr, struct ty_runprof_ent *ents,
	      uint32_t *mark, double *ms)
{
	size_t i;
	uint32_t f, k;

	*ms = 0;
	for (f = 0; f < pr->nfuncs; f++) {
		ents[f].sym =
		    ty_runprof_sym(rp, ty_profile_func_name(pr, f), ty_profile_func_dso(pr, f));
		if (ents[f].sym == UINT32_MAX)
			return -ENOMEM;
		mark[f] = UINT32_MAX;
	}
	for (i = 0; i < pr->nsamples; i++) {
		const struct ty_prof_sample *s = &pr->samples[i];
		uint32_t a = pr->stack_off[s->stack], b = pr->stack_off[s->stack + 1];

		*ms += s->period / 1e6;
		if (a == b)
			continue;
		ents[pr->locs[pr->frames[a]].func].self++;
		for (k = a; k < b; k++) {
			f = pr->locs[pr->frames[k]].func;
			if (mark[f] != (uint32_t)i) { /* once per sample */
				mark[f] = (uint32_t)i;
				ents[f].total++;
			}
		}
	}
	return 0;
}

/* Merge the samples of PR (one run) into the call stacks of command CMD:
 * a location per function (address 0), a weight of 1 a sample. */
static int
merge_stacks(struct ty_runprof *p, size_t cmd, const struct ty_profile *pr)
{
	struct ty_profile *dst;
	uint32_t *loc = NULL, *chain = NULL, f, maxlen = 0, s;
	size_t i;
	int rc = -ENOMEM;

	if (cmd >= p->ncmds)
		return -EINVAL;
	if (!p->stacks && !(p->stacks = calloc(p->ncmds, sizeof(*p->stacks))))
		return -ENOMEM;
	if (!p->stacks[cmd] && !(p->stacks[cmd] = ty_profile_new()))
		return -ENOMEM;
	dst = p->stacks[cmd];
	for (s = 0; s < pr->nstacks; s++)
		if (pr->stack_off[s + 1] - pr->stack_off[s] > maxlen)
			maxlen = pr->stack_off[s + 1] - pr->stack_off[s];
	loc = malloc((pr->nfuncs ? pr->nfuncs : 1) * sizeof(*loc));
	chain = malloc((maxlen ? maxlen : 1) * sizeof(*chain));
	if (!loc || !chain)
		goto out;
	for (f = 0; f < pr->nfuncs; f++) {
		uint32_t df =
		    ty_profile_func(dst, ty_profile_func_name(pr, f), ty_profile_func_dso(pr, f));
		if (df == TY_NONE || (loc[f] = ty_profile_loc(dst, 0, df)) == TY_NONE)
			goto out;
	}
	for (i = 0; i < pr->nsamples; i++) {
		const struct ty_prof_sample *sm = &pr->samples[i];
		struct ty_prof_sample out = {0};
		uint32_t a = pr->stack_off[sm->stack], b = pr->stack_off[sm->stack + 1], k;
		if (a == b || sm->state != TY_STATE_CPU)
			continue;
		for (k = a; k < b; k++)
			chain[k - a] = loc[pr->locs[pr->frames[k]].func];
		if ((out.stack = ty_profile_stack(dst, chain, b - a)) == TY_NONE)
			goto out;
		out.period = 1;
		if (ty_profile_sample(dst, &out) < 0)
			goto out;
	}
	rc = 0;
out:
	free(loc);
	free(chain);
	return rc;
}

static int
probe_collect(void *ctx, pid_t pid, double *values, struct ty_error *e)
{
	struct ty_runprof *p = ctx;
	struct ty_collector *c = NULL;
	struct ty_profile *pr = NULL;
	struct ty_runprof_ent *ents = NULL;
	uint32_t *mark = NULL, f;
	size_t n = 0;
	double t0 = mono_ms(), ms = 0;
	long got;
	int rc = -ENOMEM;

	(void)values;
	if (!p->sampler || p->pid != pid)
		return ty_error_set(e, -EINVAL, "profile: run of process %d was not sampled",
				    (int)pid);
	if (!(c = ty_collector_new(p->syms_table)) || !(pr = ty_profile_new()))
		goto out;
	if (p->spill) {
		struct chains ch = {p, c};
		double thread_ms = 0;

		got = ty_runprof_spill_stop(p->spill, &thread_ms, e);
		p->spill_ms += thread_ms;
		if (got == 0) {
			ty_unwind_forget(p->uw); /* the last run's pids are gone */
			got = ty_runprof_spill_replay(p->spill, on_record, &ch);
		}
	} else {
		got = ty_sampler_drain(p->sampler, ty_collector_record, c, e);
	}
	if (got < 0) {
		if (got == -ENOMEM)
			goto out;
		rc = (int)got;
		goto done;
	}
	p->lost += ty_collector_lost(c);
	if ((rc = ty_collector_finish(c, pr, e)) < 0)
		goto done;
	rc = -ENOMEM;
	ents = calloc(pr->nfuncs ? pr->nfuncs : 1, sizeof(*ents));
	mark = calloc(pr->nfuncs ? pr->nfuncs : 1, sizeof(*mark));
	if (!ents || !mark || count_samples(p, pr, ents, mark, &ms) < 0)
		goto out;
	for (f = 0; f < pr->nfuncs; f++) /* keep the functions sampled */
		if (ents[f].total || ents[f].self)
			ents[n++] = ents[f];
	rc = ty_runprof_add_run(p, p->runner ? p->runner->job : 0, pr->nsamples, ms, ents, n);
	if (rc == 0 && p->keep_stacks)
		rc = merge_stacks(p, p->runner ? p->runner->job : 0, pr);
out:
	if (rc < 0)
		ty_error_set(e, rc, "profile: out of memory");
done:
	free(ents);
	free(mark);
	ty_profile_free(pr);
	ty_collector_free(c);
	ty_sampler_free(p->sampler);
	p->sampler = NULL;
	p->pid = -1;
	p->cost_ms += mono_ms() - t0;
	return rc < 0 ? rc : 0;
}

int
ty_runprof_attach(struct ty_runprof *p, struct ty_runner *r, struct ty_symbols *syms, uint64_t hz,
		  struct ty_error *e)
{
	struct ty_probe probe = {0};

	p->hz = hz ? hz : TY_RUNPROF_HZ_DEFAULT;
	p->callchain = 1;
	p->syms_table = syms;
	p->stack_size = 0;
	p->ring_pages = RING_PAGES_FP;
#if defined(__x86_64__) /* the unwinder knows x86-64 only */
	if (p->stack_ask != TY_RUNPROF_STACK_NONE) {
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		p->stack_size = p->stack_ask ? p->stack_ask : TY_RUNPROF_STACK_DEFAULT;
		if (p->stack_size > 65528) /* the kernel's limit (u16, 8-aligned) */
			p->stack_size = 65528;
		p->stack_size = (p->stack_size + 7) & ~7u;
		p->ring_pages = RING_PAGES_STACK;
		/* a ring per CPU: at most 64 MiB of locked memory in all */
		while (p->ring_pages > RING_PAGES_MIN && ncpu > 0 &&
		       (size_t)ncpu * p->ring_pages * (size_t)getpagesize() > ((size_t)64 << 20))
			p->ring_pages /= 2;
		if (!(p->uw = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms))) ||
		    !(p->scratch = malloc(sizeof(*p->scratch))) ||
		    !(p->spill = ty_runprof_spill_new()))
			return ty_error_set(e, -ENOMEM, "out of memory");
	}
#endif
	p->runner = r;
	probe.name = "profile";
	probe.ctx = p;
	probe.attach = probe_attach;
	probe.collect = probe_collect;
	probe.detach = probe_detach;
	return ty_runner_add_probe(r, &probe, e);
}
