/* profile-perfdata-load.c - a perf.data recording to a profile: the
 * collector and the unwinder that tachy record uses, fed from the file
 * (profile-perfdata-load.h). */
#include "tachy/profile-perfdata-load.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/buildid.h"
#include "tachy/collect.h"
#include "tachy/profile-perfdata-sched.h"
#include "tachy/unwind.h"

_Static_assert(TY_UNWIND_EXACT == TY_FRAME_EXACT, "one exact-pc bit");

struct load {
	struct ty_perfdata *pd;
	const struct ty_perfdata_load_opts *o;
	struct ty_collector *c;
	struct ty_unwinder *uw;
	struct ty_perfdata_load_stats *st;
	int ev, system_wide;
	uint64_t first, last; /* the event's samples' times */
	struct ty_sampler_rec scratch;
	/* a sched_switch recording: off-CPU time (profile-perfdata-sched.h) */
	int sched;
	struct ty_tp_switch sw;
	uint32_t prev, next; /* the sample's fields */
	uint64_t state, outs, ins;
};

static void warn(const struct load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(const struct load *l, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!l->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->o->warn(msg, l->o->warn_arg);
}

/* The mappings, names, forks and exits (and switches) in time order. */
static void
on_event(const struct ty_sampler_rec *r, int ev, void *arg)
{
	struct load *l = arg;

	(void)ev;
	if (l->system_wide && r->tid == 0 && r->type == TY_SAMPLER_REC_SWITCH)
		return; /* the idle task is not off the CPU when a CPU works */
	if (l->sched && r->type == TY_SAMPLER_REC_SWITCH) {
		if (r->out) /* the tracepoint's say it, with a chain */
			return;
		l->ins++; /* perf record --switch-events: the switch-ins of a command's threads */
	}
	ty_collector_record(r, l->c);
}

/* A sample with a user stack: the kernel's part of its chain, then the
 * user frames unwound from the copy, [truncated] where the copy ended it
 * (lib/record.c's unwind, without /proc: the file says all there is). */
static const struct ty_sampler_rec *
unwind(struct load *l, const struct ty_sampler_rec *rec)
{
	struct ty_sampler_rec *out = &l->scratch;
	struct ty_unwind_sample us;
	enum ty_unwind_end end;
	size_t room, n, k;

	k = ty_unwind_input(rec, l->pd->events[l->ev].regs_user & TY_UNWIND_REGS_MASK, out, &us);
	room = TY_SAMPLER_MAX_STACK - 1 - k;
	n = ty_unwind_sample(l->uw, &us, out->chainbuf + k, room, &end);
	if (end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED)
		out->chainbuf[k + n++] = TY_FRAME_TRUNCATED;
	out->nr = k + n;
	l->st->unwound++;
	l->st->complete += end == TY_UNWIND_COMPLETE;
	l->st->truncated += end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED;
	return out;
}

/* A sched_switch sample R (its fields in L): the switch-out of prev_pid
 * (the sample's task, its chain) with the state it left in, and the
 * switch-in of next_pid, into the collector's off-CPU pairing. The idle
 * task's switches are not its being off the CPU. */
static void
sched_switch(struct load *l, const struct ty_sampler_rec *r)
{
	struct ty_sampler_rec s;
	uint32_t state = ty_tp_switch_state(l->state);

	memcpy(&s, r, offsetof(struct ty_sampler_rec, chainbuf)); /* the chain stays R's */
	if (l->prev) {
		if (s.tid != l->prev)
			s.pid = ty_collector_pid_of(l->c, l->prev), s.tid = l->prev;
		s.type = TY_SAMPLER_REC_SWITCH_SAMPLE;
		ty_collector_record(&s, l->c);
		s.preempt = state == TY_STATE_RUNNABLE;
		ty_collector_sched_switch(l->c, &s, 1, state);
		l->outs++;
	}
	if (l->next) {
		s.tid = l->next;
		s.pid = ty_collector_pid_of(l->c, l->next);
		s.preempt = 0;
		ty_collector_sched_switch(l->c, &s, 0, 0);
		l->ins++;
	}
}

static void
on_sample(const struct ty_sampler_rec *r, int ev, void *arg)
{
	struct load *l = arg;

	if (ev != l->ev)
		return;
	if (!l->st->samples || r->time < l->first)
		l->first = r->time;
	if (r->time > l->last)
		l->last = r->time;
	l->st->samples++;
	if (l->sched && r->type == TY_SAMPLER_REC_SAMPLE &&
	    ty_tp_switch_read(&l->sw, r->raw, r->raw_size, &l->prev, &l->state, &l->next) < 0) {
		l->st->raw_short++;
		return;
	}
	if (l->uw && r->regs_abi) { /* in the kernel too: the user regs at its entry */
		r = unwind(l, r);
	} else if (r->nr > 1 && r->chain[r->nr - 1] < 4096) {
		/* a frame-pointer chain ends where the outermost frame's
		 * saved pointer was 0: that is no caller */
		memcpy(&l->scratch, r, sizeof(l->scratch));
		l->scratch.chain = l->scratch.chainbuf;
		while (l->scratch.nr > 1 && l->scratch.chain[l->scratch.nr - 1] < 4096)
			l->scratch.nr--;
		r = &l->scratch;
	}
	if (l->sched)
		sched_switch(l, r);
	else
		ty_collector_record(r, l->c);
}

/* Each file the recording names a build-id of: the file of that path here
 * where it is that build, else the copy in perf's build-id cache, else
 * from debuginfod, else the file here, with a warning where it is another
 * build (a recording from another machine, or a package
 * updated since). Which source named a file is said where the file here
 * differs. */
static int
resolve_buildids(struct load *l, struct ty_symbols *syms)
{
	struct ty_buildid_finder *f = ty_buildid_finder_new(l->o->buildid_dir, l->o->debuginfod);
	size_t i, said = 0;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < l->pd->nbids; i++) {
		const struct ty_perfdata_buildid *b = &l->pd->bids[i];
		char here[129] = "", src[4200], why[4400] = "", lwhy[200];
		uint64_t dev = 0, ino = 0, ldev, lino;
		enum ty_buildid_from from;
		int same;
		if (b->kernel || b->path[0] != '/' || !*b->hex)
			continue;
		same = ty_buildid_check(b->path, b->hex, here, &ldev, &lino, lwhy, sizeof(lwhy));
		if (same > 0)
			continue; /* the recorded build is here (a copy would be the same) */
		from = ty_buildid_find(f, b->hex, b->path, src, sizeof(src), &dev, &ino, why,
				       sizeof(why));
		if (from == TY_BUILDID_NONE && l->o->debuginfod && !*why)
			snprintf(why, sizeof(why), "debuginfod has no file of build-id %s", b->hex);
		if (*why && said < 8)
			warn(l, "%s", why);
		if (from != TY_BUILDID_NONE) {
			if (ty_symbols_set_source(syms, b->path, src, dev, ino) < 0) {
				ty_buildid_finder_free(f);
				return -ENOMEM;
			}
			l->st->from_cache += from == TY_BUILDID_CACHE;
			l->st->from_debuginfod += from == TY_BUILDID_DEBUGINFOD;
		}
		if (same < 0 || !*here)
			continue; /* missing here, or without a build-id */
		l->st->buildids_differ++;
		if (said++ >= 8)
			continue;
		if (from != TY_BUILDID_NONE)
			warn(l,
			     "%s here is not the file recorded (build-id %s, recorded %s): named "
			     "from the recorded build %s (%s)",
			     b->path, here, b->hex,
			     from == TY_BUILDID_CACHE ? "in perf's build-id cache"
						      : "from debuginfod",
			     src);
		else
			warn(l,
			     "%s here is not the file recorded (build-id %s, recorded %s): its "
			     "names may be wrong; put the recorded build in perf's build-id "
			     "cache (perf buildid-cache -a FILE)%s, or report where it was "
			     "recorded",
			     b->path, here, b->hex,
			     l->o->debuginfod ? "" : ", set DEBUGINFOD_URLS");
	}
	if (said > 8)
		warn(l, "%zu more files differ from those recorded", said - 8);
	ty_buildid_finder_free(f);
	return 0;
}

/* Does perf's command line say -a (or --all-cpus)? */
static int
system_wide(const char *cmdline)
{
	const char *s = cmdline, *w = s ? strchr(s, ' ') : NULL;

	if (w && strncmp(w, " sched record", 13) == 0)
		return 1; /* perf sched record: perf record -a of the scheduler's tracepoints */
	while (s && *s) {
		size_t n = strcspn(s, " ");
		if (n == 2 && strncmp(s, "--", 2) == 0)
			return 0; /* the workload's words follow */
		if ((n == 11 && strncmp(s, "--all-cpus", 10) == 0) ||
		    (n > 1 && s[0] == '-' && s[1] != '-' && memchr(s + 1, 'a', n - 1) &&
		     strspn(s + 1, "agvqnNs") == n - 1))
			return 1;
		s += n;
		s += *s == ' ';
	}
	return 0;
}

static int
set_meta(struct load *l, struct ty_profile *p)
{
	const struct ty_perfdata_event *ev = &l->pd->events[l->ev];
	struct ty_prof_meta *m = &p->meta;
	uint64_t busy = 0;
	size_t i;

	m->event = strdup(ev->name);
	m->command = strdup(l->pd->cmdline ? l->pd->cmdline : "perf record");
	m->use_freq = ev->freq;
	m->rate = ev->period_or_freq;
	m->callchain = (ev->sample_type & PERF_SAMPLE_CALLCHAIN) || l->uw;
	m->period_ns = ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
							  ev->config == PERF_COUNT_SW_TASK_CLOCK);
	if (l->sched) { /* every sample is an interval off the CPU, in ns */
		m->period_ns = 1;
		m->off_cpu = TY_OFFCPU_ONLY;
		m->use_freq = 0;
		m->rate = 1;
	}
	m->wall_ns = l->last - l->first;
	m->start_mono_ns = l->first;
	m->user_only = ev->exclude_kernel;
	m->processes = (uint32_t)ty_collector_pids(l->c, NULL, 0);
	for (i = 0; i < p->nsamples; i++)
		if (!l->system_wide || p->samples[i].tid != 0)
			busy += p->samples[i].period;
	m->workload_cpu_ns = m->period_ns && !l->sched ? busy : 0;
	if (l->system_wide) {
		char list[32];
		uint32_t n = l->pd->nrcpus ? l->pd->nrcpus : 1;
		snprintf(list, sizeof(list), n > 1 ? "0-%u" : "0", n - 1);
		m->system_wide = 1;
		m->cpus = strdup(list);
		if (!m->cpus)
			return -ENOMEM;
	}
	return m->event && m->command ? 0 : -ENOMEM;
}

/* A tracepoint's event: sched_switch's samples are read as off-CPU time
 * (its fields from the format in the file's tracing data); another
 * tracepoint's are samples as they are. An event named sched_switch whose
 * format is missing or lacks the fields is an error. */
static int
sched_setup(struct load *l, struct ty_error *e)
{
	const struct ty_perfdata_event *ev = &l->pd->events[l->ev];
	char name[64], why[160];

	if (ty_tp_format(l->pd->tracing, l->pd->tracing_len, ev->config, name, sizeof(name), &l->sw,
			 why, sizeof(why)) == 0) {
		l->sched = strcmp(name, "sched_switch") == 0;
		return 0;
	}
	if (!strstr(ev->name, "sched_switch"))
		return 0;
	return ty_error_set(e, -EINVAL,
			    "%s: %s, so its samples cannot be read as time off the CPU; record "
			    "again with perf record (it writes the formats), or choose another "
			    "event with -e NAME",
			    ev->name, why);
}

/* What a sched_switch recording gave: the samples whose raw record was
 * cut, and an error where no thread came back on a CPU (a recording of
 * one command's threads has their switch-outs only). */
static int
sched_check(struct load *l, const struct ty_profile *p, struct ty_error *e)
{
	if (l->st->raw_short)
		warn(l,
		     "%llu samples of %s whose raw record is shorter than its format's fields "
		     "(%u bytes) were skipped",
		     (unsigned long long)l->st->raw_short, l->pd->events[l->ev].name, l->sw.need);
	if (p->nsamples)
		return 0;
	if (!l->outs && !l->ins)
		return ty_error_set(e, -EINVAL,
				    "none of the %llu samples of %s holds a switch: their raw "
				    "records are shorter than its format's fields (%u bytes)",
				    (unsigned long long)l->st->samples, l->pd->events[l->ev].name,
				    l->sw.need);
	return ty_error_set(
	    e, -EINVAL,
	    "no thread of the recording's %llu switch-outs came back on a CPU in it: %s",
	    (unsigned long long)l->outs,
	    l->system_wide ? "the recording is too short, or its switch-ins were lost"
			   : "without -a, perf record sees a command's threads leave the CPU, "
			     "not return; record with -a (as perf sched record does) or add "
			     "--switch-events");
}

/* The event O->event names, or the first; -1 with E listing them. */
static int
choose_event(struct ty_perfdata *pd, const char *name, struct ty_error *e)
{
	char list[TY_ERROR_MAX / 2] = "";
	size_t i, n = 0;
	int ev;

	if (!name)
		return 0;
	if ((ev = ty_perfdata_find_event(pd, name)) >= 0)
		return ev;
	for (i = 0; i < pd->nevents && n + 2 < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      pd->events[i].name);
	return ty_error_set(e, -EINVAL, "no event '%s' in the recording; it has: %s", name, list);
}

int
ty_perfdata_load(struct ty_perfdata *pd, const struct ty_perfdata_load_opts *o,
		 struct ty_symbols *syms, struct ty_profile **out,
		 struct ty_perfdata_load_stats *st, struct ty_error *e)
{
	struct load *l = calloc(1, sizeof(*l));
	struct ty_profile *p = NULL;
	const struct ty_perfdata_event *ev;
	int r;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if (!l)
		return ty_error_set(e, -ENOMEM, "out of memory");
	l->pd = pd;
	l->o = o;
	l->st = st;
	if ((l->ev = choose_event(pd, o->event, e)) < 0) {
		free(l);
		return -EINVAL;
	}
	st->event = l->ev;
	ev = &pd->events[l->ev];
	if (ev->sample_type & PERF_SAMPLE_READ) {
		/* its values come before the chain, which the decoder does not
		 * expect: the samples' chains are not read */
		pd->events[l->ev].layout.sample_type &=
		    ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_STACK_USER);
		warn(l,
		     "event %s was read as a group (PERF_SAMPLE_READ): its samples' call chains "
		     "are not read, only where each was taken",
		     ev->name);
	}
	l->system_wide = system_wide(pd->cmdline);
	if (ev->type == PERF_TYPE_TRACEPOINT && (r = sched_setup(l, e)) < 0) {
		free(l);
		return r;
	}
	if (!(l->c = ty_collector_new(syms)))
		goto oom;
#if defined(__x86_64__)
	if ((ev->layout.sample_type & PERF_SAMPLE_REGS_USER) &&
	    (ev->layout.sample_type & PERF_SAMPLE_STACK_USER) &&
	    !(l->uw = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms))))
		goto oom;
#endif
	if (ty_perfdata_each(pd, 0, on_event, l) < 0)
		goto oom;
	if (resolve_buildids(l, syms) < 0)
		goto oom;
	if (ty_perfdata_each(pd, 1, on_sample, l) < 0)
		goto oom;
	if (!st->samples) {
		r = ty_error_set(e, -EINVAL, "no samples of %s in the recording%s", ev->name,
				 pd->nevents > 1 ? " (choose another event with -e NAME)" : "");
		goto fail;
	}
	if (!(p = ty_profile_new()))
		goto oom;
	if ((r = ty_collector_finish(l->c, p, e)) < 0)
		goto fail;
	if (l->sched && (r = sched_check(l, p, e)) < 0)
		goto fail;
	if (set_meta(l, p) < 0)
		goto oom;
	ty_collector_free(l->c);
	ty_unwind_free(l->uw);
	free(l);
	*out = p;
	return 0;
oom:
	r = ty_error_set(e, -ENOMEM, "out of memory");
fail:
	ty_profile_free(p);
	ty_collector_free(l->c);
	ty_unwind_free(l->uw);
	free(l);
	return r;
}
