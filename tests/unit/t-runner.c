/* t-runner.c - the schedule with a fake executor and a fake clock: order,
 * warm-ups, hooks, adaptive stopping, failures, interruption; probes on
 * real processes. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "tachy/results-export.h"
#include "tachy/runner.h"

/* ---- fake world ---- */

struct fake {
	int64_t now;
	char log[4096]; /* one token per step: "a", "A" (warm-up), "s0" (hook 0 of job 0)... */
	size_t len;
	int64_t wall[4];  /* wall time of each job's runs */
	int64_t jitter;	  /* alternately added and removed */
	int64_t noise[4]; /* per job, added to even runs of the job, removed from odd ones */
	long fail_at;	  /* measured step number that exits 1 (0: none) */
	long stop_at;	  /* measured step number at which *stop is set (0: none) */
	long steps;	  /* measured steps so far */
	volatile int stop;
};

static struct fake F;

static int64_t
fake_now(void *ctx)
{
	(void)ctx;
	return F.now;
}

static void
logc(const char *s)
{
	size_t n = strlen(s);

	if (F.len + n + 1 < sizeof(F.log)) {
		memcpy(F.log + F.len, s, n + 1);
		F.len += n;
	}
}

static size_t
job_index(struct ty_runner *r, struct ty_job *job)
{
	return (size_t)(job - (struct ty_job *)r->exec_ctx);
}

static int
fake_exec(struct ty_runner *r, struct ty_job *job, size_t index, enum ty_step step, int hook,
	  struct ty_results_run *s, double *values, struct ty_error *e)
{
	size_t j = job_index(r, job);
	char tok[8];

	(void)values;
	(void)e;
	if (step == TY_STEP_HOOK) {
		snprintf(tok, sizeof(tok), "%c%zu", "spcx"[hook], j);
		logc(tok);
		F.now += 1000;
		return 0;
	}
	if (step == TY_STEP_SHELL) { /* a slow first run: 100 us, then 101, 102 ... ns */
		s->wall_ns = index == 0 ? 100000 : 100 + (int64_t)index;
		s->usage.minflt = index == 0 ? 1000 : 10;
		F.now += s->wall_ns;
		return 0;
	}
	tok[0] = (char)((step == TY_STEP_WARMUP ? 'A' : 'a') + (int)j);
	tok[1] = '\0';
	if (step == TY_STEP_RUN) {
		F.steps++;
		if (F.stop_at && F.steps == F.stop_at) {
			F.stop = 1;
			return 1;
		}
	}
	logc(tok);
	s->wall_ns = F.wall[j] + ((F.steps & 1) ? F.jitter : -F.jitter) +
		     ((index & 1) ? -F.noise[j] : F.noise[j]);
	F.now += s->wall_ns;
	if (step == TY_STEP_RUN && F.fail_at && F.steps == F.fail_at)
		s->exit_code = 1;
	return 0;
}

static char *argv_a[] = {"a", NULL}, *argv_b[] = {"b", NULL}, *argv_c[] = {"c", NULL};
static char *hook_argv[] = {"hook", NULL};

static void
setup(struct ty_runner *r, struct ty_job *jobs, size_t n, struct ty_results *rs)
{
	static char **argvs[] = {argv_a, argv_b, argv_c};
	struct ty_error e;
	size_t j;

	memset(&F, 0, sizeof(F));
	F.wall[0] = F.wall[1] = F.wall[2] = 1000000;
	ty_runner_init(r);
	r->clock.now_ns = fake_now;
	r->clock.name = "fake";
	r->exec = fake_exec;
	r->exec_ctx = jobs;
	r->stop = &F.stop;
	r->o.seed = 42;
	r->o.test = TY_TEST_WELCH; /* these tests follow the interval of the mean */
	memset(jobs, 0, n * sizeof(*jobs));
	for (j = 0; j < n; j++)
		jobs[j].argv = argvs[j];
	ty_results_init(rs, n, &e);
	for (j = 0; j < n; j++) {
		rs->r[j].command = strdup(argvs[j][0]);
		rs->r[j].name = strdup(argvs[j][0]);
	}
}

static size_t
count(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void
test_interleaved(void)
{
	struct ty_runner r;
	struct ty_job jobs[3];
	struct ty_results rs;
	struct ty_error e;
	size_t i;
	int rounds_ok = 1;

	setup(&r, jobs, 3, &rs);
	r.o.runs = 5;
	r.o.warmup = 2;
	CHECK_INT(ty_runner_run(&r, jobs, 3, &rs, &e), 0);
	/* warm-ups first, in command order, then 5 rounds of a permutation of abc */
	CHECK(strncmp(F.log, "AABBCC", 6) == 0);
	CHECK_INT(strlen(F.log), 6 + 15);
	for (i = 0; i < 5; i++) {
		const char *round = F.log + 6 + 3 * i;
		if (!(memchr(round, 'a', 3) && memchr(round, 'b', 3) && memchr(round, 'c', 3)))
			rounds_ok = 0;
	}
	CHECK(rounds_ok);
	CHECK(strcmp(F.log + 6, "abcabcabcabcabc") != 0); /* shuffled (seed 42) */
	for (i = 0; i < 3; i++) {
		CHECK_INT(rs.r[i].nruns, 5);
		CHECK_INT(rs.r[i].stop, TY_STOP_RUNS);
		CHECK_INT(rs.r[i].runs[4].round, 4);
	}
	/* start times grow in run order */
	CHECK(rs.r[0].runs[1].start_ns > rs.r[0].runs[0].start_ns);
	ty_results_release(&rs);
}

static void
test_sequential_random(void)
{
	struct ty_runner r;
	struct ty_job jobs[2];
	struct ty_results rs;
	struct ty_error e;

	setup(&r, jobs, 2, &rs);
	r.o.runs = 3;
	r.o.warmup = 1;
	r.o.order = TY_ORDER_SEQUENTIAL;
	CHECK_INT(ty_runner_run(&r, jobs, 2, &rs, &e), 0);
	CHECK_STR(F.log, "AaaaBbbb");
	ty_results_release(&rs);

	setup(&r, jobs, 2, &rs);
	r.o.runs = 20;
	r.o.order = TY_ORDER_RANDOM;
	CHECK_INT(ty_runner_run(&r, jobs, 2, &rs, &e), 0);
	CHECK_INT(count(F.log, 'a'), 20);
	CHECK_INT(count(F.log, 'b'), 20);
	CHECK(strncmp(F.log, "abababababab", 12) != 0);
	ty_results_release(&rs);
}

static void
test_hooks(void)
{
	struct ty_runner r;
	struct ty_job jobs[2];
	struct ty_results rs;
	struct ty_error e;
	int h;

	setup(&r, jobs, 2, &rs);
	r.o.runs = 2;
	r.o.warmup = 1;
	r.o.order = TY_ORDER_SEQUENTIAL;
	for (h = 0; h < TY_HOOKS; h++) {
		jobs[0].hook[h] = hook_argv;
		jobs[0].hook_text[h] = "hook";
	}
	jobs[1].hook[TY_HOOK_PREPARE] = hook_argv;
	CHECK_INT(ty_runner_run(&r, jobs, 2, &rs, &e), 0);
	/* setup once, prepare/conclude around every run (warm-ups too), cleanup after the last */
	CHECK_STR(F.log, "s0p0Ac0p0ac0p0ac0x0p1Bp1bp1b");
	ty_results_release(&rs);
}

/* Interleaved: every setup before the first round (the warm-ups too),
 * every cleanup after the last; the same hook text runs once. */
static void
test_hooks_interleaved(void)
{
	static char *other_argv[] = {"other", NULL};
	struct ty_runner r;
	struct ty_job jobs[3];
	struct ty_results rs;
	struct ty_error e;

	setup(&r, jobs, 3, &rs);
	r.o.runs = 2;
	r.o.warmup = 1;
	jobs[0].hook[TY_HOOK_SETUP] = jobs[1].hook[TY_HOOK_SETUP] = hook_argv;
	jobs[0].hook_text[TY_HOOK_SETUP] = jobs[1].hook_text[TY_HOOK_SETUP] = "mkdir work";
	jobs[2].hook[TY_HOOK_SETUP] = other_argv;
	jobs[2].hook_text[TY_HOOK_SETUP] = "other";
	jobs[0].hook[TY_HOOK_CLEANUP] = jobs[1].hook[TY_HOOK_CLEANUP] = hook_argv;
	jobs[0].hook_text[TY_HOOK_CLEANUP] = jobs[1].hook_text[TY_HOOK_CLEANUP] = "rm -r work";
	CHECK_INT(ty_runner_run(&r, jobs, 3, &rs, &e), 0);
	CHECK(strncmp(F.log, "s0s2ABC", 7) == 0);
	CHECK_INT((long)strlen(F.log), 7 + 6 + 2);
	CHECK(strcmp(F.log + strlen(F.log) - 2, "x0") == 0);
	CHECK_INT(rs.r[0].nruns, 2);
	CHECK_INT(rs.r[1].nruns, 2);
	ty_results_release(&rs);
}

/* A command that fails stops; the others run to the end, and the
 * runner's error says the failure after the last round. */
static void
test_failure_goes_on(void)
{
	struct ty_runner r;
	struct ty_job jobs[2];
	struct ty_results rs;
	struct ty_error e;

	setup(&r, jobs, 2, &rs);
	r.o.runs = 5;
	r.o.order = TY_ORDER_SEQUENTIAL;
	F.fail_at = 2; /* the second run of a */
	jobs[0].hook[TY_HOOK_CLEANUP] = hook_argv;
	jobs[0].hook_text[TY_HOOK_CLEANUP] = "hook";
	CHECK_INT(ty_runner_run(&r, jobs, 2, &rs, &e), -ECHILD);
	CHECK(strstr(e.msg, "'a' exited with status 1 in run 2") != NULL);
	CHECK_INT(rs.r[0].stop, TY_STOP_FAILED);
	CHECK(rs.r[0].failure && strstr(rs.r[0].failure, "in run 2") != NULL);
	CHECK_INT(rs.r[0].nruns, 2); /* the failed run is kept, with its exit code */
	CHECK_INT(rs.r[1].nruns, 5);
	CHECK(rs.r[1].failure == NULL);
	CHECK_STR(F.log, "aax0bbbbb"); /* a failed command is cleaned up */
	ty_results_release(&rs);
}

/* Two commands, the first with +-2% noise, the second steady; -m 3. */
static void
run_noisy_pair(struct ty_runner *r, struct ty_job *jobs, struct ty_results *rs, enum ty_order order,
	       long max_runs)
{
	struct ty_error e;

	setup(r, jobs, 2, rs);
	F.noise[0] = 20000;
	r->o.min_runs = 3;
	r->o.max_runs = max_runs;
	r->o.order = order;
	CHECK_INT(ty_runner_run(r, jobs, 2, rs, &e), 0);
}

static void
test_adaptive(void)
{
	struct ty_runner r;
	struct ty_job jobs[2];
	struct ty_results rs;
	struct ty_error e;

	/* constant times: the interval is empty at once, but the precision is
	 * judged only from 5 runs (enough to estimate the spread) */
	setup(&r, jobs, 1, &rs);
	r.o.min_runs = 4;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 5);
	CHECK_INT(rs.r[0].stop, TY_STOP_PRECISION);
	CHECK_INT(rs.r[0].nwarnings, 0);
	ty_results_release(&rs);

	/* +-50% noise never reaches 1%: stops at -M with a warning */
	setup(&r, jobs, 1, &rs);
	F.jitter = 500000;
	r.o.min_runs = 3;
	r.o.max_runs = 30;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 30);
	CHECK_INT(rs.r[0].stop, TY_STOP_MAX_RUNS);
	CHECK_INT(rs.r[0].nwarnings, 1);
	CHECK(rs.r[0].nwarnings && strstr(rs.r[0].warnings[0], "stopped at -M 30 runs"));
	ty_results_release(&rs);

	/* 1 s runs with --max-time 5: five runs (min-runs 3) */
	setup(&r, jobs, 1, &rs);
	F.wall[0] = 1000000000;
	F.jitter = 300000000;
	r.o.min_runs = 3;
	r.o.max_time = 5;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 5);
	CHECK_INT(rs.r[0].stop, TY_STOP_MAX_TIME);
	ty_results_release(&rs);

	/* min-runs wins over max-time */
	setup(&r, jobs, 1, &rs);
	F.wall[0] = 1000000000;
	F.jitter = 300000000;
	r.o.min_runs = 8;
	r.o.max_time = 2;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 8);
	ty_results_release(&rs);

	/* interleaved: all commands stop together, when the noisy one (+-2%)
	 * has its precision, though the steady one had it after 3 runs */
	run_noisy_pair(&r, jobs, &rs, TY_ORDER_INTERLEAVED, 50);
	CHECK(rs.r[0].nruns > 10 && rs.r[0].nruns < 50);
	CHECK_INT(rs.r[1].nruns, rs.r[0].nruns);
	CHECK_INT(rs.r[0].stop, TY_STOP_PRECISION);
	CHECK_INT(rs.r[1].stop, TY_STOP_PRECISION);
	CHECK_INT(rs.r[0].nwarnings + rs.r[1].nwarnings, 0);
	CHECK_INT(rs.r[1].runs[rs.r[1].nruns - 1].round, (uint32_t)rs.r[0].nruns - 1);
	CHECK_INT(strlen(F.log), 2 * rs.r[0].nruns);
	ty_results_release(&rs);

	/* the same with -M 8: both stop at 8, only the noisy one is warned */
	run_noisy_pair(&r, jobs, &rs, TY_ORDER_INTERLEAVED, 8);
	CHECK_INT(rs.r[0].nruns, 8);
	CHECK_INT(rs.r[1].nruns, 8);
	CHECK_INT(rs.r[0].nwarnings, 1);
	ty_results_release(&rs);

	/* --max-time counts per command: when the slow one (1 s runs) has had
	 * 5 s, both stop; the fast one has its precision, the slow one not */
	setup(&r, jobs, 2, &rs);
	F.wall[0] = 1000000000;
	F.noise[0] = 300000000;
	r.o.min_runs = 3;
	r.o.max_time = 5;
	CHECK_INT(ty_runner_run(&r, jobs, 2, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 5);
	CHECK_INT(rs.r[1].nruns, 5);
	CHECK_INT(rs.r[0].stop, TY_STOP_MAX_TIME);
	CHECK_INT(rs.r[1].stop, TY_STOP_PRECISION);
	CHECK_INT(rs.r[0].nwarnings, 1);
	CHECK_INT(rs.r[1].nwarnings, 0);
	ty_results_release(&rs);

	/* random order: the steady one runs on too, until the noisy one is done */
	run_noisy_pair(&r, jobs, &rs, TY_ORDER_RANDOM, 0);
	CHECK(rs.r[0].nruns > 10);
	CHECK(rs.r[1].nruns >= 3);
	CHECK(rs.r[0].nruns + rs.r[1].nruns > 20);
	CHECK_INT(rs.r[0].stop, TY_STOP_PRECISION);
	CHECK_INT(rs.r[1].stop, TY_STOP_PRECISION);
	ty_results_release(&rs);

	/* sequential order cannot come back to a command: each stops on its own */
	run_noisy_pair(&r, jobs, &rs, TY_ORDER_SEQUENTIAL, 0);
	CHECK(rs.r[0].nruns > 10);
	CHECK_INT(rs.r[1].nruns, 5); /* -m 3, but precision needs 5 runs */
	ty_results_release(&rs);
}

static void
test_failure_and_stop(void)
{
	struct ty_runner r;
	struct ty_job jobs[1];
	struct ty_results rs;
	struct ty_error e;

	setup(&r, jobs, 1, &rs);
	r.o.runs = 5;
	F.fail_at = 3;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), -ECHILD);
	CHECK(strstr(e.msg, "'a' exited with status 1 in run 3") != NULL);
	CHECK_INT(rs.r[0].stop, TY_STOP_FAILED);
	ty_results_release(&rs);

	setup(&r, jobs, 1, &rs);
	r.o.runs = 5;
	r.o.ignore_failure = 1;
	F.fail_at = 3;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	CHECK_INT(rs.r[0].nruns, 5);
	CHECK_INT(rs.r[0].runs[2].exit_code, 1);
	ty_results_release(&rs);

	setup(&r, jobs, 1, &rs);
	r.o.runs = 10;
	F.stop_at = 4;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), -EINTR);
	CHECK_INT(rs.r[0].nruns, 3);
	CHECK_INT(rs.interrupted, 1);
	CHECK_INT(rs.r[0].stop, TY_STOP_INTERRUPTED);
	ty_results_release(&rs);
}

static void
test_shell(void)
{
	struct ty_runner r;
	struct ty_job jobs[1];
	struct ty_results rs;
	struct ty_error e;

	setup(&r, jobs, 1, &rs);
	r.o.runs = 2;
	r.o.shell = "sh";
	r.o.shell_runs = 5;
	CHECK_INT(ty_runner_run(&r, jobs, 1, &rs, &e), 0);
	/* the median of 100000, 101, 102, 103, 104: the slow run does not count */
	CHECK_INT(rs.r[0].shell_ns, 103);
	CHECK_INT(rs.r[0].runs[0].wall_ns, 1000000 - 103);
	CHECK_INT(rs.shell, 1);
	ty_results_release(&rs);
}

/* ---- probes on real processes ---- */

struct probe_ctx {
	int attached, collected, held_ok;
};

static int
p_attach(void *ctx, pid_t pid, struct ty_error *e)
{
	struct probe_ctx *p = ctx;
	char link[64], exe[PATH_MAX], self[PATH_MAX];
	ssize_t n, m;

	(void)e;
	p->attached++;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && m > 0) {
		exe[n] = self[m] = '\0';
		/* not exec'd yet: still us, or the spawner helper it was cloned from */
		p->held_ok += strcmp(exe, self) == 0 || strstr(exe, "tachy-spawner") != NULL;
	}
	return 0;
}

static int
p_collect(void *ctx, pid_t pid, double *values, struct ty_error *e)
{
	struct probe_ctx *p = ctx;

	(void)e;
	values[0] = 100 + p->collected++;
	values[1] = pid > 0 ? 1 : 0;
	return 0;
}

static void
test_probe(void)
{
	static const struct ty_value_desc desc[2] = {{"widgets", "", 1, 0, 1.0, 1, 0, 0, NULL},
						     {"gadgets", "ns", 1, 0, 1.0, 1, 0, 0, NULL}};
	struct probe_ctx pc = {0};
	struct ty_probe p = {.name = "test",
			     .ctx = &pc,
			     .nvalues = 2,
			     .values = desc,
			     .attach = p_attach,
			     .collect = p_collect};
	char *argv[] = {"true", NULL};
	struct ty_runner r;
	struct ty_job job;
	struct ty_results rs;
	struct ty_error e;

	ty_runner_init(&r);
	r.o.runs = 3;
	r.o.warmup = 1;
	CHECK_INT(ty_runner_add_probe(&r, &p, &e), 0);
	memset(&job, 0, sizeof(job));
	job.argv = argv;
	ty_results_init(&rs, 1, &e);
	rs.r[0].command = strdup("true");
	rs.r[0].name = strdup("true");
	CHECK_INT(ty_runner_run(&r, &job, 1, &rs, &e), 0);
	CHECK_INT(pc.attached, 3); /* measured runs only */
	CHECK_INT(pc.held_ok, 3);
	CHECK_INT(rs.nvalues, 2);
	CHECK_STR(ty_results_figure_name(&rs, TY_FIG_BUILTIN + 1), "gadgets");
	CHECK_INT(rs.r[0].nruns, 3);
	CHECK_NEAR(ty_results_value(&rs, &rs.r[0], 2, TY_FIG_BUILTIN), 102, 0);
	CHECK_NEAR(ty_results_value(&rs, &rs.r[0], 0, TY_FIG_BUILTIN + 1), 1, 0);
	CHECK(rs.r[0].runs[0].wall_ns > 0);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_NEAR(rs.r[0].sum[TY_FIG_BUILTIN].mean, 101, 1e-9);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		ty_results_write_json(&rs, fp, NULL, NULL);
		fclose(fp);
		CHECK(strstr(buf, "\"widgets\": 100,") != NULL);
		CHECK(strstr(buf, "\"gadgets\": 1\n") != NULL);
		CHECK(strstr(buf, "\"widgets\": {\n            \"unit\": \"\",") != NULL);
		CHECK(strstr(buf, "\"supported\": true,") != NULL);
		CHECK(strstr(buf, "\"running_share\": 1") != NULL);
		free(buf);
	}
	ty_results_release(&rs);
}

static void
test_missing_program(void)
{
	char *argv[] = {"no-such-program-tachy", NULL};
	struct ty_runner r;
	struct ty_job job;
	struct ty_results rs;
	struct ty_error e;

	ty_runner_init(&r);
	memset(&job, 0, sizeof(job));
	job.argv = argv;
	ty_results_init(&rs, 1, &e);
	CHECK_INT(ty_runner_run(&r, &job, 1, &rs, &e), -ENOENT);
	CHECK_STR(e.msg, "cannot run 'no-such-program-tachy': command not found");
	CHECK_INT(rs.r[0].nruns, 0);
	ty_results_release(&rs);
}

/* ty_runner_stop (what a signal handler calls) kills the command that runs
 * now: here called while the run is held before exec, so the run of
 * sleep 30 ends killed at once, and without *stop it is a failed run. */
static int
stop_attach(void *ctx, pid_t pid, struct ty_error *e)
{
	(void)pid, (void)e;
	ty_runner_stop(ctx);
	return 0;
}

static void
test_stop_kills(void)
{
	static const struct ty_value_desc desc[1] = {{"x", "", 1, 0, 1.0, 1, 0, 0, NULL}};
	char *argv[] = {"sleep", "30", NULL};
	struct ty_runner r;
	struct ty_probe p = {
	    .name = "stop", .ctx = &r, .nvalues = 1, .values = desc, .attach = stop_attach};
	struct ty_job job;
	struct ty_results rs;
	struct ty_error e;

	ty_runner_init(&r);
	ty_runner_stop(&r); /* between steps: nothing to stop */
	r.o.runs = 1;
	CHECK_INT(ty_runner_add_probe(&r, &p, &e), 0);
	memset(&job, 0, sizeof(job));
	job.argv = argv;
	ty_results_init(&rs, 1, &e);
	rs.r[0].command = strdup("sleep 30");
	rs.r[0].name = strdup("sleep 30");
	CHECK_INT(ty_runner_run(&r, &job, 1, &rs, &e), -ECHILD);
	CHECK_STR(e.msg, "command 'sleep 30' was killed by SIGKILL in run 1 (--show-output "
			 "shows its output)");
	ty_results_release(&rs);
}

int
main(void)
{
	test_interleaved();
	test_sequential_random();
	test_hooks();
	test_hooks_interleaved();
	test_failure_goes_on();
	test_adaptive();
	test_failure_and_stop();
	test_shell();
	test_probe();
	test_missing_program();
	test_stop_kills();
	return check_done();
}
