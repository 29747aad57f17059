/* t-runner.c - the schedule with a fake executor and a fake clock: order,
 * warm-ups, hooks, adaptive stopping, failures, interruption; word
 * splitting; probes on real processes. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
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
	  struct ty_sample *s, double *values, struct ty_error *e)
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

static void
test_shell_argv(void)
{
	struct ty_error e;
	char **v = NULL;

	CHECK_INT(ty_runner_shell_argv("bash --norc", "echo 'a b'", &v, &e), 4);
	CHECK_STR(v[0], "bash");
	CHECK_STR(v[1], "--norc");
	CHECK_STR(v[2], "-c");
	CHECK_STR(v[3], "echo 'a b'");
	CHECK(v[4] == NULL);
	free(v);
	CHECK_INT(ty_runner_shell_argv("sh", "", &v, &e), 3);
	CHECK_STR(v[2], "");
	free(v);
	CHECK_INT(ty_runner_shell_argv("sh |", "x", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "cannot use 'sh |' as the shell") != NULL);
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
	CHECK(rs.r[0].nwarnings && strstr(rs.r[0].warnings[0], "max-runs"));
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

/* ---- word splitting ---- */

static void
check_split(const char *s, int n, const char *joined)
{
	struct ty_error e;
	char **v = NULL, buf[256] = "";
	int got = ty_runner_split(s, &v, &e), i;

	CHECK_INT(got, n);
	if (got < 0)
		return;
	for (i = 0; i < got; i++) {
		strcat(buf, i ? "|" : "");
		strcat(buf, v[i]);
	}
	CHECK(v[got] == NULL);
	CHECK_STR(buf, joined);
	free(v);
}

static void
test_split(void)
{
	struct ty_error e;
	char **v;

	check_split("sleep 0.1", 2, "sleep|0.1");
	check_split("  a\tb  c  \n\n", 3, "a|b|c");
	check_split("echo 'a b' \"c d\"", 3, "echo|a b|c d");
	check_split("echo a\\ b", 2, "echo|a b");
	check_split("echo 'it''s'", 2, "echo|its");
	check_split("echo \"a\\\"b\\\\c\\d\"", 2, "echo|a\"b\\c\\d");
	check_split("echo '' x", 3, "echo||x");
	check_split("awk '{print $1}' f", 3, "awk|{print $1}|f");
	check_split("echo \"a|b\" 'c;d'", 3, "echo|a|b|c;d");
	check_split("a\\\nb", 1, "ab");
	check_split("\\FOO=1 x", 2, "FOO=1|x"); /* a quoted '=': not an assignment */
	check_split("'A'=1 x", 2, "A=1|x");
	check_split("x A=1", 2, "x|A=1");
	CHECK_INT(ty_runner_split("", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("   ", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("echo 'x", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "unterminated single quote") != NULL);
	CHECK_INT(ty_runner_split("echo \"x", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("ls | wc", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "--shell") != NULL);
	CHECK_INT(ty_runner_split("a && b", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("a > f", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("echo $HOME", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("echo \"$HOME\"", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("echo `x`", &v, &e), -EINVAL);
	/* globs, a leading ~ and an assignment: the same hint as '|' */
	CHECK_INT(ty_runner_split("ls *.c", &v, &e), -EINVAL);
	CHECK_STR(e.msg, "cannot split command 'ls *.c': '*' is shell syntax, and commands run "
			 "without a shell: quote it or run it with a shell, --shell sh");
	CHECK_INT(ty_runner_split("ls a?", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("ls [ab]", &v, &e), -EINVAL);
	CHECK_INT(ty_runner_split("cat ~/x", &v, &e), -EINVAL);
	CHECK_STR(e.msg, "cannot split command 'cat ~/x': '~' is shell syntax, and commands run "
			 "without a shell: quote it or run it with a shell, --shell sh");
	CHECK_INT(ty_runner_split("LC_ALL=C sort f", &v, &e), -EINVAL);
	CHECK_STR(e.msg,
		  "cannot split command 'LC_ALL=C sort f': 'LC_ALL=C' is shell syntax, and "
		  "commands run without a shell: run it with env or with a shell, --shell sh");
	check_split("env LC_ALL=C sort", 3, "env|LC_ALL=C|sort"); /* an argument, not the first */
	check_split("test [ -f x", 4, "test|[|-f|x");
	check_split("echo '*' \\? \"~\" a~b", 5, "echo|*|?|~|a~b");
	check_split("=x 1=y", 2, "=x|1=y");
	check_split("[ -f x ]", 4, "[|-f|x|]");
}

/* What dash makes of S: the words its `show` (a script in DIR printing
 * each argument as <ARG>) prints, into OUT; -1 when dash could not run. */
static int
dash_words(const char *dir, const char *s, char *out, size_t size)
{
	int fd[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char path[4400];
		snprintf(path, sizeof(path), "%s:%s", dir,
			 getenv("PATH") ? getenv("PATH") : "/bin");
		setenv("PATH", path, 1);
		dup2(fd[1], 1);
		close(fd[0]);
		execlp("dash", "dash", "-c", s, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (n + 1 < size && (r = read(fd[0], out + n, size - n - 1)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

/* The splitter against dash on a corpus: what tachy accepts without
 * --shell gives the words sh gives; what needs a shell is refused. */
static void
test_split_dash(void)
{
	static const char *const same[] = {
	    "show a b",
	    "show \\\n  /tmp",
	    "show a\\\nb",
	    "show # note",
	    "show a#b \\#c '#d' \"#e\"",
	    "# comment\nshow x",
	    "\n\nshow x\n\n",
	    "show 'a b' \"c d\" e\\ f",
	    "show \"a\\\"b\\\\c\\d\\$e\\`f\"",
	    "show '' \"\" x",
	    "show 'it''s'",
	    "show \"line\nbreak\" 'two\nlines'",
	    "show \"a\\\nb\"",
	    "show x\\",
	    "show [ a ] a]b {a,b} %x ^y a=b x~y",
	    "show --opt=val -- -n",
	    "show 'a*b' \"?\" \\* \\[x] '~'",
	    "  show\ta\t\tb  ",
	    "show \\\n# a comment after all",
	    "'show' x",
	    "\"sh\"ow x",
	    "show \\'x\\' \\\"y",
	    "show a\\ \\ b",
	    "show \xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
	    "sh\\\now x",
	    "show 'if' \"then\" fi { } !",
	    "show FOO=1",
	    "show \\\n\\\n x",
	    "show\\\n",
	    "show 'a\\b' \"\\n\"",
	    "show # ; | & $x `y` *",
	    "show a\\\n#b",
	    "show \t\\\t x",
	};
	static const char *const refused[] = {
	    "show *.c",	      "show a?b",	  "show [ab]",
	    "show ~",	      "show ~/x",	  "FOO=1 show",
	    "_a1=x show",     "show a | b",	  "show a; b",
	    "show a && b",    "show > f",	  "show 2>f",
	    "show < f",	      "show &",		  "show $HOME",
	    "show \"$x\"",    "show `x`",	  "show \"`x`\"",
	    "show $(x)",      "show (x)",	  "if show; then :; fi",
	    "! show",	      "{ show; }",	  "while x",
	    "show a\nshow b", "show # c\nshow d", "show a \\\n\nshow b",
	};
	char dir[] = "/tmp/t-split-XXXXXX", script[64], want[4096], got[4096];
	struct ty_error e;
	size_t i, bad = 0;
	char **v;
	int n, k;
	FILE *fp;

	if (system("command -v dash >/dev/null 2>&1") != 0) {
		printf("# skip: no dash to compare the splitter with\n");
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(script, sizeof(script), "%s/show", dir);
	fp = fopen(script, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n", fp);
	fclose(fp);
	chmod(script, 0755);
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		n = ty_runner_split(same[i], &v, &e);
		if (n < 1) {
			printf("     refused: [%s]: %s\n", same[i], e.msg);
			bad++;
			continue;
		}
		want[0] = '\0';
		for (k = 1; k < n; k++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "<%s>\n", v[k]);
		if (strcmp(v[0], "show") != 0 || dash_words(dir, same[i], got, sizeof(got)) < 0 ||
		    strcmp(got, want) != 0) {
			printf("     differs: [%s]: tachy %s [%s], dash [%s]\n", same[i], v[0],
			       want, got);
			bad++;
		}
		free(v);
	}
	CHECK_INT(bad, 0);
	for (i = 0, bad = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		n = ty_runner_split(refused[i], &v, &e);
		if (n >= 0 || !strstr(e.msg, "--shell")) {
			printf("     not refused: [%s] (%d) %s\n", refused[i], n,
			       n < 0 ? e.msg : "");
			bad++;
			if (n >= 0)
				free(v);
		}
	}
	CHECK_INT(bad, 0);
	unlink(script);
	rmdir(dir);
}

/* Random words: join then split gives them back; random strings never
 * crash the splitter (it splits them or says why not). */
static void
test_join_split_random(void)
{
	static const char alphabet[] = "ab '\"\\|$`;&<>()~#*\n\t=%,";
	struct ty_error e;
	unsigned seed = 12345;
	int round, ok_trip = 1, ok_fuzz = 1;

	for (round = 0; round < 2000; round++) {
		char words[4][12], *argv[5], *joined, **back = NULL, text[24];
		int n = 1 + round % 4, i, j, got;

		for (i = 0; i < n; i++) {
			int len = (int)((seed = seed * 1103515245 + 12345) >> 16) % 11;
			for (j = 0; j < len; j++) {
				seed = seed * 1103515245 + 12345;
				words[i][j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
			words[i][len] = '\0';
			argv[i] = words[i];
		}
		argv[n] = NULL;
		joined = ty_runner_join(argv, (size_t)n);
		got = ty_runner_split(joined, &back, &e);
		if (got != n) {
			ok_trip = 0;
		} else {
			for (i = 0; i < n; i++)
				if (strcmp(back[i], argv[i]) != 0)
					ok_trip = 0;
			free(back);
		}
		free(joined);
		for (j = 0; j < (int)sizeof(text) - 1; j++) {
			seed = seed * 1103515245 + 12345;
			text[j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		text[(round * 7) % (int)sizeof(text)] = '\0';
		text[sizeof(text) - 1] = '\0';
		back = NULL;
		got = ty_runner_split(text, &back, &e);
		if (got > 0) {
			if (back[got] != NULL)
				ok_fuzz = 0;
			free(back);
		} else if (got != -EINVAL || e.msg[0] == '\0') {
			ok_fuzz = 0;
		}
	}
	CHECK(ok_trip);
	CHECK(ok_fuzz);
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
	static const struct ty_value_desc desc[2] = {{"widgets", "", 1, 0, 1.0, 1, 0},
						     {"gadgets", "ns", 1, 0, 1.0, 1, 0}};
	struct probe_ctx pc = {0};
	struct ty_probe p = {"test", &pc, 2, desc, p_attach, p_collect, NULL};
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

int
main(void)
{
	test_interleaved();
	test_sequential_random();
	test_hooks();
	test_hooks_interleaved();
	test_failure_goes_on();
	test_shell_argv();
	test_adaptive();
	test_failure_and_stop();
	test_shell();
	test_split();
	test_split_dash();
	test_join_split_random();
	test_probe();
	test_missing_program();
	return check_done();
}
