/* runner.c - the schedule: warm-ups, rounds, hooks, adaptive stopping,
 * interruption. Each step runs through ty_runner.exec, by default the real
 * executor in runner-exec.c. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner-exec.h"
#include "tachy/argv.h"
#include "tachy/clock.h"
#include "tachy/runner.h"
#include "tachy/stats.h"

static const char *const hook_names[TY_HOOKS] = {"setup", "prepare", "conclude", "cleanup"};

int64_t
ty_runner_monotonic_ns(void *ctx)
{
	(void)ctx;
	return (int64_t)ty_clock_now_ns();
}

void
ty_runner_init(struct ty_runner *r)
{
	memset(r, 0, sizeof(*r));
	r->memcg.peak_fd = -1;
	r->o.min_runs = 10;
	r->o.precision = 1.0;
	r->o.test = TY_TEST_DEFAULT;
	r->o.max_time = 10.0;
	r->o.confidence = 95.0;
	r->o.order = TY_ORDER_INTERLEAVED;
	r->o.shell_runs = 50;
	r->clock.name = "CLOCK_MONOTONIC";
	r->clock.now_ns = ty_runner_monotonic_ns;
	r->fd[0] = r->fd[1] = r->fd[2] = -1;
	r->drain[0] = r->drain[1] = -1;
	r->sp.pidfd = -1;
}

int
ty_runner_add_probe(struct ty_runner *r, const struct ty_probe *p, struct ty_error *e)
{
	if (r->nprobes >= TY_MAX_PROBES)
		return ty_error_set(e, -E2BIG, "too many probes (at most %d)", TY_MAX_PROBES);
	r->probes[r->nprobes++] = *p;
	return 0;
}

void
ty_runner_stop(struct ty_runner *r)
{
	pid_t p = *(volatile pid_t *)&r->sp.pid;

	if (p > 0) {
		kill(-p, SIGKILL);
		kill(p, SIGKILL);
	}
}

const char *
ty_runner_signame(int sig, char *buf)
{
	const char *d = sigabbrev_np(sig);

	if (d)
		snprintf(buf, 32, "SIG%s", d);
	else
		snprintf(buf, 32, "signal %d", sig);
	return buf;
}

/* ---- the schedule ---- */

struct jobstate {
	long warm, done;
	int started, finished, failed;
	int64_t spent_ns;
	struct ty_welford w;
	long next_check; /* robust centres: the runs at which to look again */
	double hw;	 /* the last half-width found, in percent */
};

struct sched {
	struct ty_runner *r;
	struct ty_job *jobs;
	size_t n;
	struct ty_results *rs;
	struct jobstate *st;
	double *values;
	size_t nvalues;
	uint32_t round;
	size_t failures; /* jobs stopped by a failure (the first said in first_failure) */
	struct ty_error first_failure;
	double t;   /* t quantile of the interval of a mean of t_n runs */
	size_t t_n; /* 0: none yet */
};

static uint64_t
rng_next(struct ty_runner *r)
{
	uint64_t x = r->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->rng = x;
	return x * 2685821657736338717ULL;
}

static int
do_exec(struct sched *S, size_t j, size_t index, enum ty_step step, int hook,
	struct ty_results_run *s, struct ty_error *e)
{
	struct ty_runner *r = S->r;
	ty_runner_exec_fn fn = r->exec ? r->exec : ty_runner_exec_step;

	if (r->stop && *r->stop)
		return 1;
	memset(s, 0, sizeof(*s));
	s->start_ns = r->clock.now_ns(r->clock.ctx) - r->t0; /* the real executor is exact */
	r->job = j;
	return fn(r, &S->jobs[j], index, step, hook, s, S->values, e);
}

static const char *
status_text(const struct ty_results_run *s, double timeout, char *buf, size_t size)
{
	char sig[32];

	if (s->timed_out)
		snprintf(buf, size, "timed out after %g s and was killed", timeout);
	else if (s->signal)
		snprintf(buf, size, "was killed by %s", ty_runner_signame(s->signal, sig));
	else
		snprintf(buf, size, "exited with status %d", s->exit_code);
	return buf;
}

static int
failed(const struct ty_results_run *s)
{
	return s->timed_out || s->signal || s->exit_code != 0;
}

/* Where a failing command's output can be seen: a hint, or "". */
static const char *
output_hint(const struct ty_runner *r)
{
	return r->o.output == TY_OUTPUT_INHERIT || r->o.output == TY_OUTPUT_FILE
		   ? ""
		   : "--show-output shows its output";
}

/* Job J failed (a run, or one of its hooks): it runs no more, its cleanup
 * still runs, the other jobs go on; the message is kept with its result
 * and the first one is the runner's error at the end. */
static int job_failed(struct sched *S, size_t j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
job_failed(struct sched *S, size_t j, const char *fmt, ...)
{
	struct ty_result *res = &S->rs->r[j];
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ty_error_set(&S->first_failure, -ENOMEM, "out of memory");
	if (S->failures++ == 0)
		ty_error_set(&S->first_failure, -ECHILD, "%s", msg);
	S->st[j].failed = S->st[j].finished = 1;
	if (res->stop != TY_STOP_FAILED || !res->failure) {
		res->stop = TY_STOP_FAILED;
		free(res->failure);
		res->failure = msg;
	} else {
		free(msg);
	}
	return 0;
}

/* Run hook HOOK of job J. A hook that fails fails the job (job_failed);
 * returns 0 then, 1 when interrupted, or a negative errno. */
static int
run_hook(struct sched *S, size_t j, int hook, size_t index, struct ty_error *e)
{
	struct ty_job *job = &S->jobs[j];
	const char *hint = output_hint(S->r);
	struct ty_results_run s;
	char buf[96];
	int rc;

	if (!job->hook[hook])
		return 0;
	rc = do_exec(S, j, index, TY_STEP_HOOK, hook, &s, e);
	if (rc)
		return rc;
	if (failed(&s))
		return job_failed(S, j, "the --%s command '%s' of '%s' %s%s%s%s", hook_names[hook],
				  job->hook_text[hook], S->rs->r[j].name,
				  status_text(&s, S->r->o.hook_timeout, buf, sizeof(buf)),
				  *hint ? " (" : "", hint, *hint ? ")" : "");
	return 0;
}

static long
sub_count(long a, long b)
{
	return a > b ? a - b : 0;
}

/* Take the shell's start-up (its median) off a run: wall, user and system time,
 * page faults and context switches (not the probes' counters). */
static void
subtract_shell(struct ty_results_run *s, const struct ty_results_run *shell)
{
	s->wall_ns = s->wall_ns > shell->wall_ns ? s->wall_ns - shell->wall_ns : 0;
	s->usage.user_ns =
	    s->usage.user_ns > shell->usage.user_ns ? s->usage.user_ns - shell->usage.user_ns : 0;
	s->usage.system_ns = s->usage.system_ns > shell->usage.system_ns
				 ? s->usage.system_ns - shell->usage.system_ns
				 : 0;
	s->usage.minflt = sub_count(s->usage.minflt, shell->usage.minflt);
	s->usage.majflt = sub_count(s->usage.majflt, shell->usage.majflt);
	s->usage.nvcsw = sub_count(s->usage.nvcsw, shell->usage.nvcsw);
	s->usage.nivcsw = sub_count(s->usage.nivcsw, shell->usage.nivcsw);
}

/* One run of job J (warm-up or measured), with prepare and conclude. */
static int
step(struct sched *S, size_t j, enum ty_step kind, const struct ty_results_run *shell,
     struct ty_error *e)
{
	struct ty_runner *r = S->r;
	struct jobstate *st = &S->st[j];
	struct ty_result *res = &S->rs->r[j];
	size_t index = kind == TY_STEP_RUN ? (size_t)st->done : (size_t)st->warm;
	struct ty_results_run s;
	int64_t t0 = r->clock.now_ns(r->clock.ctx);
	char buf[96];
	int rc;

	if (!st->started) {
		st->started = 1;
		if ((rc = run_hook(S, j, TY_HOOK_SETUP, 0, e)) || st->finished)
			return rc;
	}
	if ((rc = run_hook(S, j, TY_HOOK_PREPARE,
			   kind == TY_STEP_WARMUP ? TY_RUNNER_HOOK_OF_WARMUP : index, e)) ||
	    st->finished)
		return rc;
	rc = do_exec(S, j, index, kind, 0, &s, e);
	if (rc)
		return rc;
	if (failed(&s) && !r->o.ignore_failure) {
		const char *show = output_hint(r);
		int go_on = !(r->o.timeout > 0 || s.signal);
		if (kind == TY_STEP_RUN) /* in the export, its exit code with it */
			ty_result_add(res, &s, S->values, S->nvalues, NULL);
		return job_failed(S, j, "command '%s' %s in %s %zu%s%s%s%s%s", res->name,
				  status_text(&s, r->o.timeout, buf, sizeof(buf)),
				  kind == TY_STEP_RUN ? "run" : "warm-up run", index + 1,
				  *show || go_on ? " (" : "", show, *show && go_on ? "; " : "",
				  go_on ? "use -i/--ignore-failure to go on" : "",
				  *show || go_on ? ")" : "");
	}
	if ((rc = run_hook(S, j, TY_HOOK_CONCLUDE,
			   kind == TY_STEP_WARMUP ? TY_RUNNER_HOOK_OF_WARMUP : index, e)) ||
	    st->finished)
		return rc;
	st->spent_ns += r->clock.now_ns(r->clock.ctx) - t0;
	if (kind == TY_STEP_WARMUP) {
		st->warm++;
		res->warmup_ns += s.wall_ns;
		res->nwarmup++;
		return 0;
	}
	if (shell)
		subtract_shell(&s, shell);
	s.round = S->round;
	if ((rc = ty_result_add(res, &s, S->values, S->nvalues, e)) < 0)
		return rc;
	st->done++;
	ty_stats_welford_add(&st->w, (double)s.wall_ns);
	return 0;
}

/* Half-width of the interval of J's mean, in percent of it. The t
 * quantile costs more than a short run: the last one is kept. */
static double
mean_halfwidth(struct sched *S, size_t j)
{
	const struct ty_welford *w = &S->st[j].w;

	if (w->n < 2 || w->mean <= 0)
		return INFINITY;
	if (S->t_n != w->n) {
		S->t =
		    ty_stats_t_quantile(1 - (1 - S->r->o.confidence / 100) / 2, (double)(w->n - 1));
		S->t_n = w->n;
	}
	return 100 * S->t * sqrt(ty_stats_welford_var(w) / (double)w->n) / w->mean;
}

/* Half of the interval of J's robust centre (median, trimmed mean), in
 * percent of it: from all its wall times, sorted afresh, so looked at
 * again only when the runs have grown by a sixteenth (at most 6% more runs
 * than needed); NAN when out of memory. */
static double
robust_halfwidth(struct sched *S, size_t j, int force)
{
	struct jobstate *st = &S->st[j];
	const struct ty_result *res = &S->rs->r[j];
	struct ty_centre c;
	double *x;
	size_t i;

	if (!force && st->done < st->next_check)
		return st->hw;
	st->next_check = st->done + (st->done / 16 > 1 ? st->done / 16 : 1);
	st->hw = INFINITY;
	if (res->nruns < 2 || !(x = malloc(res->nruns * sizeof(*x))))
		return st->hw;
	for (i = 0; i < res->nruns; i++)
		x[i] = (double)res->runs[i].wall_ns;
	if (ty_verdict_centre(x, res->nruns, S->r->o.test, S->r->o.confidence, &c) == 0 &&
	    c.exact_ci && c.centre > 0)
		st->hw = 100 * (c.hi - c.lo) / 2 / c.centre;
	free(x);
	return st->hw;
}

static int
robust(const struct ty_runner *r)
{
	return r->o.test == TY_TEST_MANN_WHITNEY || r->o.test == TY_TEST_YUEN;
}

/* Half-width of the interval of J's centre, in percent of it. */
static double
rel_halfwidth(struct sched *S, size_t j)
{
	return robust(S->r) ? robust_halfwidth(S, j, 1) : mean_halfwidth(S, j);
}

/* Fewer runs than this cannot estimate the spread (two equal runs are no
 * proof of a narrow interval): the precision is not judged from them. */
#define PRECISION_MIN_RUNS 5

/* Is J's centre within the precision? For the mean: the normal quantile
 * is smaller than t's and cheap: when it already says "too wide", t is not
 * needed. */
static int
precise(struct sched *S, size_t j)
{
	const struct ty_welford *w = &S->st[j].w;
	double z;

	if (w->n < PRECISION_MIN_RUNS)
		return 0;
	if (robust(S->r))
		return robust_halfwidth(S, j, 0) <= S->r->o.precision;
	z = ty_stats_normal_quantile(1 - (1 - S->r->o.confidence / 100) / 2);
	if (w->n >= 2 && w->mean > 0 &&
	    100 * z * sqrt(ty_stats_welford_var(w) / (double)w->n) / w->mean > S->r->o.precision)
		return 0;
	return mean_halfwidth(S, j) <= S->r->o.precision;
}

/* Adaptive runs stopped for all commands together (interleaved and random
 * orders): a command that stopped on its own as soon as its own interval was
 * narrow would stop early precisely when its first runs happened to be fast
 * and steady (no outlier yet), and its mean would be biased low; comparing
 * it with a command that ran on "proves" differences that are not there
 * (bench/validation.c). Sequential order cannot go back to a command, so
 * there each command stops on its own, as in hyperfine. */
static int
joint(const struct ty_runner *r)
{
	return r->o.runs == 0 && r->o.order != TY_ORDER_SEQUENTIAL;
}

/* Is job J done by itself (-r N, -M N; in sequential order also precision
 * and --max-time)? Sets its stop reason. */
static int
job_done(struct sched *S, size_t j)
{
	struct ty_runner *r = S->r;
	struct jobstate *st = &S->st[j];
	struct ty_result *res = &S->rs->r[j];

	if (r->o.runs > 0) {
		res->stop = TY_STOP_RUNS;
		return st->done >= r->o.runs;
	}
	if (r->o.max_runs > 0 && st->done >= r->o.max_runs) {
		res->stop = TY_STOP_MAX_RUNS;
		return 1;
	}
	if (joint(r) || st->done < r->o.min_runs)
		return 0;
	if (precise(S, j)) {
		res->stop = TY_STOP_PRECISION;
		return 1;
	}
	if ((double)st->spent_ns >= r->o.max_time * 1e9) {
		res->stop = TY_STOP_MAX_TIME;
		return 1;
	}
	return 0;
}

/* Adaptive, interleaved or random: are all unfinished commands done
 * together? Yes once each has its --min-runs and either every one has its
 * precision, or one of them has had --max-time seconds. Sets the stop
 * reasons (precision for a command whose own interval is narrow enough). */
static int
all_done(struct sched *S)
{
	struct ty_runner *r = S->r;
	size_t j;
	int all_precise = 1, late = 0, any = 0;

	for (j = 0; j < S->n; j++) {
		if (S->st[j].finished)
			continue;
		any = 1;
		if (S->st[j].done < r->o.min_runs)
			return 0;
		if (all_precise && !precise(S, j))
			all_precise = 0;
		if ((double)S->st[j].spent_ns >= r->o.max_time * 1e9)
			late = 1;
	}
	if (!any || !(all_precise || late))
		return 0;
	for (j = 0; j < S->n; j++)
		if (!S->st[j].finished)
			S->rs->r[j].stop = precise(S, j) ? TY_STOP_PRECISION : TY_STOP_MAX_TIME;
	return 1;
}

/* Where an adaptive command stopped short of its precision and what would
 * take it further, into BUF: the limit it reached, raised, to about what
 * N runs with a relative half-width HW (NAN: unknown; the precision needs
 * NEED runs at least) and SPENT_NS of their time suggest (the half-width
 * narrows as the square root of the runs). */
static void
stop_text(const struct ty_runner *r, enum ty_stop_reason stop, size_t n, double hw, size_t need,
	  double spent_ns, char *buf, size_t size)
{
	double runs = isfinite(hw) && r->o.precision > 0
			  ? ceil((double)n * (hw / r->o.precision) * (hw / r->o.precision))
			  : (double)need;
	char about[96] = "";

	if (runs < (double)need)
		runs = (double)need;
	if (stop == TY_STOP_MAX_TIME)
		snprintf(about, sizeof(about), "--max-time %gs", r->o.max_time);
	else
		snprintf(about, sizeof(about), "-M %ld runs", r->o.max_runs);
	if (runs > 10000 && (stop == TY_STOP_MAX_TIME || stop == TY_STOP_MAX_RUNS)) {
		/* no limit raised will do: say so */
		snprintf(buf, size,
			 "stopped at %s; about %.0f runs would be needed for %g%%: steadier runs "
			 "(what disturbs them?) or a wider --precision",
			 about, runs, r->o.precision);
		return;
	}
	about[0] = '\0';
	if (stop == TY_STOP_MAX_TIME) {
		if (n && spent_ns > 0)
			snprintf(about, sizeof(about), " (about --max-time %.0f for %.0f runs)",
				 ceil(spent_ns / 1e9 / (double)n * runs), runs);
		snprintf(buf, size, "stopped at --max-time %gs; more runs are needed: raise it%s",
			 r->o.max_time, about);
	} else if (stop == TY_STOP_MAX_RUNS && r->o.max_runs > 0) {
		snprintf(about, sizeof(about), " (about -M %.0f)", runs);
		snprintf(buf, size, "stopped at -M %ld runs; more runs are needed: raise -M%s",
			 r->o.max_runs, about);
	} else {
		snprintf(buf, size, "stopped at %s; more runs are needed (-M, --max-time)",
			 stop == TY_STOP_INTERRUPTED ? "an interruption" : "--max-runs");
	}
}

static int
finish_job(struct sched *S, size_t j, struct ty_error *e)
{
	struct ty_runner *r = S->r;
	struct ty_result *res = &S->rs->r[j];
	double hw;

	S->st[j].finished = 1;
	if (r->o.runs == 0 && res->stop != TY_STOP_PRECISION) {
		char at[160];
		hw = rel_halfwidth(S, j);
		stop_text(r, res->stop, S->st[j].w.n, hw, PRECISION_MIN_RUNS,
			  (double)S->st[j].spent_ns, at, sizeof(at));
		if (S->st[j].w.n < PRECISION_MIN_RUNS)
			ty_result_warn(res,
				       "%ld runs are too few to estimate the spread: the precision "
				       "(%g%%) needs %d or more; %s",
				       (long)S->st[j].w.n, r->o.precision, PRECISION_MIN_RUNS, at);
		else if (isfinite(hw))
			ty_result_warn(res, "the %s is known to within %.*f%% only, not %g%%: %s",
				       ty_verdict_centre_name(r->o.test),
				       hw >= 10	 ? 0
				       : hw >= 1 ? 1
						 : 2,
				       hw, r->o.precision, at);
		else
			ty_result_warn(res, "too few runs for a confidence interval");
	}
	if (S->jobs[j].uncounted[0] && S->r->nprobes)
		ty_result_warn(res,
			       "its counters are left out: %s, and the kernel does not count a "
			       "set-ID program for this user (run tachy as root, or as the user it "
			       "runs as)",
			       S->jobs[j].uncounted);
	if (S->jobs[j].leftover_runs)
		ty_result_warn(res,
			       "%ld run%s left processes running in the command's %s after it "
			       "exited (%ld at most; they ran on during later runs): "
			       "--leftovers=wait waits for them, --leftovers=kill kills them",
			       S->jobs[j].leftover_runs, S->jobs[j].leftover_runs == 1 ? "" : "s",
			       S->jobs[j].leftover_where ? S->jobs[j].leftover_where
							 : "process group",
			       S->jobs[j].leftover_max);
	if (S->r->o.order != TY_ORDER_SEQUENTIAL)
		return 0; /* every cleanup after the last round: cleanups() */
	return run_hook(S, j, TY_HOOK_CLEANUP, (size_t)S->st[j].done, e);
}

/* Did a job before J have the same HOOK (the same words, after the
 * parameters' substitution), so that it has run already? */
static int
hook_seen(const struct sched *S, size_t j, int hook)
{
	size_t k;

	for (k = 0; k < j; k++)
		if (S->jobs[k].hook[hook] && S->jobs[k].hook_text[hook] &&
		    strcmp(S->jobs[k].hook_text[hook], S->jobs[j].hook_text[hook]) == 0)
			return 1;
	return 0;
}

/* Interleaved and random orders: every --setup before the first round
 * (and the warm-ups), each different one once, in the order of the
 * commands; a failing one fails every command that has it. */
static int
setups(struct sched *S, struct ty_error *e)
{
	size_t j, k;
	int rc;

	for (j = 0; j < S->n; j++) {
		S->st[j].started = 1;
		if (!S->jobs[j].hook[TY_HOOK_SETUP] || hook_seen(S, j, TY_HOOK_SETUP))
			continue;
		if ((rc = run_hook(S, j, TY_HOOK_SETUP, 0, e)))
			return rc;
		for (k = j + 1; S->st[j].failed && k < S->n; k++)
			if (S->jobs[k].hook[TY_HOOK_SETUP] &&
			    strcmp(S->jobs[k].hook_text[TY_HOOK_SETUP],
				   S->jobs[j].hook_text[TY_HOOK_SETUP]) == 0)
				job_failed(S, k, "%s", S->rs->r[j].failure);
	}
	return 0;
}

/* Interleaved and random orders: every --cleanup after the last round,
 * each different one once, in the order of the commands (a failed command
 * is cleaned up too; an interrupted benchmark is not). */
static int
cleanups(struct sched *S, struct ty_error *e)
{
	size_t j;
	int rc;

	for (j = 0; j < S->n; j++) {
		if (!S->jobs[j].hook[TY_HOOK_CLEANUP] || hook_seen(S, j, TY_HOOK_CLEANUP))
			continue;
		if ((rc = run_hook(S, j, TY_HOOK_CLEANUP, (size_t)S->st[j].done, e)))
			return rc;
	}
	return 0;
}

/* The time spent that counts for --max-time: J's own, or in joint
 * stopping the most any command has had. */
static int64_t
spent_most(const struct sched *S, size_t j)
{
	int64_t most = S->st[j].spent_ns;
	size_t k;

	for (k = 0; joint(S->r) && k < S->n; k++)
		if (!S->st[k].finished && S->st[k].spent_ns > most)
			most = S->st[k].spent_ns;
	return most;
}

static void
report(struct sched *S, size_t j)
{
	struct ty_runner *r = S->r;
	double left = 0;

	if (!r->progress)
		return;
	if (r->o.runs == 0)
		left = r->o.max_time - (double)spent_most(S, j) / 1e9;
	r->progress(r->progress_ctx, j, &S->rs->r[j], r->o.runs, left);
}

/* A measured step of J, then the end of J if it is done. */
static int
measure(struct sched *S, size_t j, const struct ty_results_run *shell, struct ty_error *e)
{
	int rc = step(S, j, TY_STEP_RUN, shell, e);

	if (rc || S->st[j].finished) /* failed */
		return rc;
	report(S, j);
	if (job_done(S, j))
		return finish_job(S, j, e);
	return 0;
}

static int
finish_all(struct sched *S, struct ty_error *e)
{
	size_t j;
	int rc;

	for (j = 0; j < S->n; j++)
		if (!S->st[j].finished && (rc = finish_job(S, j, e)))
			return rc;
	return 0;
}

static int
warmups(struct sched *S, size_t j, struct ty_error *e)
{
	int rc;

	while (!S->st[j].finished && S->st[j].warm < S->r->o.warmup)
		if ((rc = step(S, j, TY_STEP_WARMUP, NULL, e)))
			return rc;
	return 0;
}

static size_t
active(struct sched *S, size_t *list)
{
	size_t j, k = 0;

	for (j = 0; j < S->n; j++)
		if (!S->st[j].finished)
			list[k++] = j;
	return k;
}

static int
schedule(struct sched *S, const struct ty_results_run *shell, struct ty_error *e)
{
	struct ty_runner *r = S->r;
	size_t *list, k, i, j;
	int rc = 0;

	list = calloc(S->n, sizeof(*list));
	if (!list)
		return ty_error_set(e, -ENOMEM, "out of memory");
	if (r->o.order == TY_ORDER_SEQUENTIAL) {
		for (j = 0; j < S->n && !rc; j++) {
			rc = warmups(S, j, e);
			for (S->round = 0; !rc && !S->st[j].finished; S->round++)
				rc = measure(S, j, shell, e);
			if (!rc && S->st[j].failed) /* cleaned up all the same */
				rc = run_hook(S, j, TY_HOOK_CLEANUP, (size_t)S->st[j].done, e);
		}
		goto out;
	}
	rc = setups(S, e);
	for (j = 0; j < S->n && !rc; j++)
		rc = warmups(S, j, e);
	for (S->round = 0; !rc && (k = active(S, list)) > 0; S->round++) {
		if (r->o.order == TY_ORDER_RANDOM) {
			rc = measure(S, list[rng_next(r) % k], shell, e);
		} else {
			for (i = k - 1; i > 0; i--) {
				size_t x = rng_next(r) % (i + 1), t = list[i];
				list[i] = list[x];
				list[x] = t;
			}
			for (i = 0; i < k && !rc; i++)
				rc = measure(S, list[i], shell, e);
		}
		/* joint stopping: after a whole round (a run in random order) */
		if (!rc && joint(r) && all_done(S))
			rc = finish_all(S, e);
	}
	if (!rc)
		rc = cleanups(S, e);
out:
	free(list);
	return rc;
}

/* Is NAME a shell builtin that no program on PATH stands for? */
static int
shell_builtin(const char *name)
{
	static const char *const builtins[] = {
	    ".",     "alias",  "bg",	 "break",   "cd",   "continue", "eval",	    "exec",
	    "exit",  "export", "fg",	 "hash",    "jobs", "local",	"readonly", "return",
	    "set",   "shift",  "source", "times",   "trap", "type",	"ulimit",   "umask",
	    "unset", "wait",   "read",	 "declare", "let"};
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(name, builtins[i]) == 0)
			return 1;
	return 0;
}

/* Resolve ARGV[0] of job J (HOOK < 0) or of its hook HOOK into PATH. */
static int
resolve_one(struct ty_job *job, int hook, char *path, size_t size, struct ty_error *e)
{
	char **argv = hook < 0 ? job->argv : job->hook[hook];
	char what[TY_ERROR_MAX];
	int rc = ty_spawn_resolve(argv[0], path, size, e);

	if (rc == 0)
		return 0;
	if (rc == -ENOENT && shell_builtin(argv[0]))
		snprintf(what, sizeof(what),
			 "cannot run '%s': a shell builtin, and commands run without a "
			 "shell: run it with one, --shell sh",
			 argv[0]);
	else
		snprintf(what, sizeof(what), "%s", e->msg);
	if (hook < 0)
		return ty_error_set(e, rc, "%s", what);
	return ty_error_set(e, rc, "the --%s command '%s': %s", hook_names[hook],
			    job->hook_text[hook], what);
}

static int
resolve_all(struct ty_job *jobs, size_t n, struct ty_error *e)
{
	size_t j;
	int h, rc;

	for (j = 0; j < n; j++) {
		rc = resolve_one(&jobs[j], -1, jobs[j].path, sizeof(jobs[j].path), e);
		if (rc < 0)
			return rc;
		jobs[j].uncounted[0] = '\0';
		ty_spawn_unobservable(jobs[j].path, jobs[j].uncounted, sizeof(jobs[j].uncounted));
		for (h = 0; h < TY_HOOKS; h++) {
			if (!jobs[j].hook[h])
				continue;
			rc = resolve_one(&jobs[j], h, jobs[j].hook_path[h],
					 sizeof(jobs[j].hook_path[h]), e);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The median of V[0..N) (N > 0; V is sorted). */
static int64_t
median_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

enum { SH_WALL, SH_USER, SH_SYS, SH_MINFLT, SH_MAJFLT, SH_NVCSW, SH_NIVCSW, SH_FIGS };

/* Measure the shell's own start-up: the median of SHELL -c '' runs, each
 * figure apart (a robust centre: a mean is inflated by the few runs that
 * the machine's noise slows down). */
static int
measure_shell(struct sched *S, struct ty_results_run *centre, struct ty_error *e)
{
	struct ty_runner *r = S->r;
	char **argv = NULL;
	size_t n = r->o.shell_runs > 0 ? (size_t)r->o.shell_runs : 0, i;
	int64_t *v;
	struct ty_job job;
	struct ty_results_run s;
	int rc = 0, f;

	memset(&job, 0, sizeof(job));
	memset(centre, 0, sizeof(*centre));
	if ((rc = ty_argv_shell(r->o.shell, "", &argv, e)) < 0)
		return rc;
	job.argv = argv;
	rc = ty_spawn_resolve(argv[0], job.path, sizeof(job.path), e);
	if (rc < 0 || n == 0) {
		free(argv);
		return rc < 0 ? rc : 0;
	}
	if (!(v = malloc(n * SH_FIGS * sizeof(*v)))) {
		free(argv);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n && !rc; i++) {
		ty_runner_exec_fn fn = r->exec ? r->exec : ty_runner_exec_step;
		if (r->stop && *r->stop) {
			rc = 1;
			break;
		}
		memset(&s, 0, sizeof(s));
		if ((rc = fn(r, &job, i, TY_STEP_SHELL, 0, &s, NULL, e)))
			break;
		if (failed(&s)) {
			rc = ty_error_set(e, -ECHILD, "the shell '%s' failed to start", r->o.shell);
			break;
		}
		v[SH_WALL * n + i] = s.wall_ns;
		v[SH_USER * n + i] = s.usage.user_ns;
		v[SH_SYS * n + i] = s.usage.system_ns;
		v[SH_MINFLT * n + i] = s.usage.minflt;
		v[SH_MAJFLT * n + i] = s.usage.majflt;
		v[SH_NVCSW * n + i] = s.usage.nvcsw;
		v[SH_NIVCSW * n + i] = s.usage.nivcsw;
	}
	if (!rc) {
		int64_t m[SH_FIGS];
		for (f = 0; f < SH_FIGS; f++)
			m[f] = median_i64(v + (size_t)f * n, n);
		centre->wall_ns = m[SH_WALL];
		centre->usage.user_ns = m[SH_USER];
		centre->usage.system_ns = m[SH_SYS];
		centre->usage.minflt = (long)m[SH_MINFLT];
		centre->usage.majflt = (long)m[SH_MAJFLT];
		centre->usage.nvcsw = (long)m[SH_NVCSW];
		centre->usage.nivcsw = (long)m[SH_NIVCSW];
	}
	free(v);
	free(argv);
	return rc;
}

/* The probes' value descriptors, concatenated (again at the end: a probe
 * may update supported/scaled/running_share as runs go). */
static void
copy_descs(struct ty_runner *r, struct ty_results *rs)
{
	struct ty_value_desc *d = (struct ty_value_desc *)rs->values;
	size_t i, j, k = 0;

	for (i = 0; i < r->nprobes; i++)
		for (j = 0; j < r->probes[i].nvalues && k < rs->nvalues; j++)
			d[k++] = r->probes[i].values[j];
}

static int
prepare(struct ty_runner *r, struct ty_results *rs, struct sched *S, struct ty_error *e)
{
	size_t i, j;
	int rc;

	for (i = 0; i < r->nprobes; i++)
		S->nvalues += r->probes[i].nvalues;
	rs->nvalues = S->nvalues;
	rs->values = NULL;
	if (S->nvalues) {
		rs->values = calloc(S->nvalues, sizeof(struct ty_value_desc));
		if (!rs->values)
			return ty_error_set(e, -ENOMEM, "out of memory");
		copy_descs(r, rs);
	}
	S->values = calloc(S->nvalues + 1, sizeof(double));
	S->st = calloc(S->n, sizeof(*S->st));
	if (!S->values || !S->st)
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (j = 0; j < S->n; j++)
		ty_stats_welford_init(&S->st[j].w);
	rs->clock = r->clock.name;
	rs->order = r->o.order == TY_ORDER_INTERLEAVED ? "interleaved"
		    : r->o.order == TY_ORDER_RANDOM    ? "random"
						       : "sequential";
	rs->interleaved = r->o.order == TY_ORDER_INTERLEAVED;
	rs->shell = r->o.shell != NULL;
	rs->confidence = r->o.confidence;
	if (!r->exec) {
		if ((rc = ty_spawn_init(&r->sp, e)) < 0)
			return rc;
		r->sp.no_pin = r->o.spawn_no_pin;
		/* without it, peak RSS is floored at ours: said in the results */
		if (!r->o.spawn_self)
			ty_spawn_start_helper(&r->sp, NULL);
		rs->maxrss_method = ty_spawn_rss_method(&r->sp);
		if ((rc = ty_runner_exec_start(r, rs, e)) < 0)
			return rc;
	}
	r->rng = r->o.seed ? r->o.seed : (uint64_t)r->clock.now_ns(r->clock.ctx) | 1;
	r->t0 = r->clock.now_ns(r->clock.ctx);
	return 0;
}

int
ty_runner_run(struct ty_runner *r, struct ty_job *jobs, size_t n, struct ty_results *rs,
	      struct ty_error *e)
{
	struct sched S;
	struct ty_results_run shell;
	size_t j;
	int rc;

	memset(&S, 0, sizeof(S));
	S.r = r;
	S.jobs = jobs;
	S.n = n;
	S.rs = rs;
	for (j = 0; j < n; j++)
		jobs[j].leftover_runs = jobs[j].leftover_max = 0;
	if (!r->exec && (rc = resolve_all(jobs, n, e)) < 0)
		return rc;
	rc = prepare(r, rs, &S, e);
	if (rc == 0 && r->o.shell) {
		rc = measure_shell(&S, &shell, e);
		for (j = 0; j < n; j++)
			rs->r[j].shell_ns = shell.wall_ns;
	}
	if (rc == 0)
		rc = schedule(&S, r->o.shell ? &shell : NULL, e);
	if (rc == 0 && S.failures) {
		rc = S.first_failure.code;
		*e = S.first_failure;
	}
	if (rc == 1) {
		rs->interrupted = 1;
		for (j = 0; j < n; j++)
			if (!S.st[j].finished)
				rs->r[j].stop = TY_STOP_INTERRUPTED;
		rc = ty_error_set(e, -EINTR, "interrupted");
	}
	if (rs->values)
		copy_descs(r, rs);
	if (!r->exec)
		ty_runner_exec_end(r);
	free(S.values);
	free(S.st);
	return rc;
}
