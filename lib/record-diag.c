/* record-diag.c - the recorder's unwind diagnostics (TACHY_UNWIND_DEBUG).
 * Every sample's chain is kept with why it ended; at the end each one that
 * is incomplete or has a frame in no mapping (judged with the mappings
 * known then, as the profile's names are) is printed with the program it
 * was in, where it was relative to the process's fork and exec, the
 * mapping of its leaf and of its last frame and the cause, then the counts
 * by program and cause. */

#define DIAG_MAX 200000 /* samples kept */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/record-diag.h"

struct ty_record_diag_chain {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t n, stack_dyn, stack_size;
	uint8_t end, stop, user, retried;
	uint64_t *frames; /* innermost first */
};

struct ty_record_diag_proc {
	uint32_t pid, ppid;
	uint64_t fork_time, exec_time; /* 0: none seen */
	char comm[16], old[16];	       /* after and before the last exec */
};

static struct ty_record_diag_proc *
diag_proc(struct ty_record_diag *g, uint32_t pid)
{
	size_t i;

	for (i = 0; i < g->ndp; i++)
		if (g->dp[i].pid == pid)
			return &g->dp[i];
	if (ty_array_grow(&g->dp, sizeof(*g->dp), g->ndp + 1, &g->dpcap) < 0)
		return NULL;
	memset(&g->dp[g->ndp], 0, sizeof(*g->dp));
	g->dp[g->ndp].pid = pid;
	return &g->dp[g->ndp++];
}

void
ty_record_diag_record(struct ty_record_diag *g, const struct ty_sampler_rec *rec)
{
	struct ty_record_diag_proc *p, *pp;

	if (rec->type == TY_SAMPLER_REC_FORK && rec->pid != rec->ppid &&
	    (p = diag_proc(g, rec->pid))) {
		p->ppid = rec->ppid;
		p->fork_time = rec->time;
		if ((pp = diag_proc(g, rec->ppid))) {
			p = diag_proc(g, rec->pid); /* (the array may have moved) */
			if (!p->comm[0])
				memcpy(p->comm, pp->comm, sizeof(p->comm));
			if (!p->old[0] && p->exec_time) /* its exec came first (another ring) */
				memcpy(p->old, pp->comm, sizeof(p->old));
		}
	} else if (rec->type == TY_SAMPLER_REC_COMM && rec->pid == rec->tid &&
		   (p = diag_proc(g, rec->pid))) {
		if (rec->exec) {
			memcpy(p->old, p->comm, sizeof(p->old));
			p->exec_time = rec->time;
		}
		snprintf(p->comm, sizeof(p->comm), "%s", rec->name);
	}
}

/* A stop reason of ty_record_diag_sample: the sample has no user registers. */
#define DIAG_NOREGS 9

void
ty_record_diag_sample(struct ty_record_diag *g, const struct ty_sampler_rec *rec, size_t k,
		      enum ty_unwind_end end, int retried, struct ty_unwinder *uw)
{
	struct ty_unwind_stats st = {0, 0, 0, 0, TY_STOP_END, 0};
	struct ty_record_diag_chain *d;

	if (g->ndg >= DIAG_MAX || ty_array_grow(&g->dg, sizeof(*g->dg), g->ndg + 1, &g->dgcap) < 0)
		return;
	if (uw && rec->regs_abi)
		ty_unwind_stats(uw, &st);
	else
		st.stop = DIAG_NOREGS;
	d = &g->dg[g->ndg];
	*d = (struct ty_record_diag_chain){rec->pid,
					   rec->tid,
					   (uint64_t)rec->time,
					   (uint32_t)(rec->nr - k),
					   (uint32_t)rec->stack_dyn,
					   (uint32_t)rec->stack_size,
					   (uint8_t)end,
					   (uint8_t)st.stop,
					   (uint8_t)rec->user,
					   (uint8_t)retried,
					   NULL};
	if (!(d->frames = malloc(d->n * sizeof(*d->frames))))
		return;
	memcpy(d->frames, rec->chain + k, d->n * sizeof(*d->frames));
	g->ndg++;
}

void
ty_record_diag_root(struct ty_record_diag *g, uint32_t pid, uint64_t pc)
{
	size_t i;

	for (i = 0; i < g->ndg; i++) {
		struct ty_record_diag_chain *d = &g->dg[i];
		uint64_t f;
		if (d->pid != pid || d->end != TY_UNWIND_LOST || !d->n || !d->frames)
			continue;
		f = d->frames[d->n - 1];
		if ((f & ~TY_FRAME_EXACT) - ((f & TY_FRAME_EXACT) ? 0 : 1) == pc) {
			d->end = TY_UNWIND_COMPLETE;
			d->stop = TY_STOP_END;
		}
	}
}

void
ty_record_diag_exec(struct ty_record_diag *g, uint32_t tid, uint64_t time, int complete)
{
	size_t i;

	for (i = 0; i < g->ndg; i++)
		if (g->dg[i].tid == tid && g->dg[i].time == time) {
			g->dg[i].end = complete ? TY_UNWIND_COMPLETE : TY_UNWIND_LOST;
			if (complete)
				g->dg[i].stop = TY_STOP_END;
		}
}

/* "FILE+0xOFFSET" (a file offset), or why there is none; in BUF. */
static const char *
map_name(struct ty_symbols *syms, uint32_t pid, uint64_t ip, uint64_t time, char *buf, size_t len)
{
	struct ty_sym_map m;
	const char *slash;

	ip &= ~TY_FRAME_EXACT;
	if (ip == TY_FRAME_TRUNCATED)
		return "[truncated]";
	if (ip >= (1ull << 47))
		return "(not a user address)";
	if (ty_symbols_find_map(syms, pid, ip, time, &m) < 0)
		return "(no mapping)";
	slash = strrchr(m.path, '/');
	snprintf(buf, len, "%s+%#llx", slash ? slash + 1 : m.path,
		 (unsigned long long)(ip - m.start + m.pgoff));
	return buf;
}

struct diag_count {
	char key[96];
	unsigned long n;
};

void
ty_record_diag_report(struct ty_record_diag *g, FILE *f, struct ty_symbols *syms, pid_t child,
		      uint64_t t0)
{
	static const char *const ends[] = {"complete", "truncated", "lost", "maxed"};
	static const char *const stops[] = {"end",
					    "no mapping",
					    "no CFI in the file",
					    "no CFI row here",
					    "CFA/RA unreadable",
					    "sp not moving up",
					    "kernel address",
					    "above the copy",
					    "above a short copy",
					    "no user registers"};
	struct diag_count *cnt = NULL;
	size_t ncnt = 0, cap = 0, i, j, bad = 0;

	for (i = 0; i < g->ndg; i++) {
		struct ty_record_diag_chain *d = &g->dg[i];
		struct ty_record_diag_proc *p = diag_proc(g, d->pid);
		const char *phase, *comm;
		char key[96], b1[128], b2[128];
		long unm = -1;
		for (j = 0; j < d->n; j++) {
			uint64_t ip = d->frames[j] & ~TY_FRAME_EXACT;
			struct ty_sym_map m;
			if (ip != TY_FRAME_TRUNCATED && ip < (1ull << 47) &&
			    ty_symbols_find_map(syms, d->pid, ip, d->time, &m) < 0) {
				unm = (long)j;
				break;
			}
		}
		if (d->end == TY_UNWIND_COMPLETE && unm < 0)
			continue;
		bad++;
		if (d->n > 1 && d->frames[d->n - 1] == TY_FRAME_TRUNCATED)
			d->n--; /* the last frame shown is the last real one */
		if (!p)
			phase = "unknown pid", comm = "?";
		else if (p->exec_time && d->time < p->exec_time)
			phase = "pre-exec", comm = p->old[0] ? p->old : "?";
		else if (p->exec_time)
			phase = "after exec", comm = p->comm;
		else if (p->fork_time)
			phase = "forked, no exec", comm = p->comm;
		else
			phase = d->pid == (uint32_t)child ? "the command" : "unknown pid",
			comm = p->comm;
		fprintf(
		    f,
		    "unwind: pid %u tid %u %s (%s) t+%.3fs %s: %s, stopped: %s; %u frames, leaf "
		    "%#llx in %s, last %#llx in %s; stack copy %u/%u bytes",
		    d->pid, d->tid, comm, phase, (double)(d->time - t0) / 1e9,
		    d->user ? "user" : "kernel", ends[d->end & 3], stops[d->stop % 10], d->n,
		    d->n ? (unsigned long long)(d->frames[0] & ~TY_FRAME_EXACT) : 0ull,
		    d->n ? map_name(syms, d->pid, d->frames[0], d->time, b1, sizeof(b1)) : "-",
		    d->n ? (unsigned long long)(d->frames[d->n - 1] & ~TY_FRAME_EXACT) : 0ull,
		    d->n ? map_name(syms, d->pid, d->frames[d->n - 1], d->time, b2, sizeof(b2))
			 : "-",
		    d->stack_dyn, d->stack_size);
		if (unm >= 0)
			fprintf(f, "; frame #%ld %#llx in no mapping", unm,
				(unsigned long long)(d->frames[unm] & ~TY_FRAME_EXACT));
		fprintf(f, "%s\n", d->retried ? " (maps read again)" : "");
		snprintf(key, sizeof(key), "%s %s: %s%s", comm, phase,
			 d->end == TY_UNWIND_COMPLETE ? "complete" : stops[d->stop % 10],
			 unm >= 0 ? ", frame in no mapping" : "");
		for (j = 0; j < ncnt && strcmp(cnt[j].key, key) != 0; j++)
			;
		if (j == ncnt) {
			if (ty_array_grow(&cnt, sizeof(*cnt), ncnt + 1, &cap) < 0)
				continue;
			snprintf(cnt[ncnt].key, sizeof(cnt[ncnt].key), "%s", key);
			cnt[ncnt++].n = 0;
		}
		cnt[j].n++;
	}
	fprintf(f, "unwind: %zu of %zu samples incomplete or with a frame in no mapping\n", bad,
		g->ndg);
	for (j = 0; j < ncnt; j++)
		fprintf(f, "unwind: %6lu  %s\n", cnt[j].n, cnt[j].key);
	fflush(f);
	free(cnt);
}

void
ty_record_diag_release(struct ty_record_diag *g)
{
	size_t i;

	for (i = 0; i < g->ndg; i++)
		free(g->dg[i].frames);
	free(g->dg);
	free(g->dp);
	g->dg = NULL;
	g->dp = NULL;
	g->ndg = g->ndp = 0;
}
