/* runner-exec.c - the runner's real executor: one step as a held child
 * (its stdin, stdout and environment, TACHY_ITERATION), the clock around
 * release-to-reap, the probes around a measured run, the runs' memory
 * cgroup, and the processes a run leaves behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "runner-exec.h"

extern char **environ;

#define ITER_PREFIX "TACHY_ITERATION="

static int
open_fd(const char *path, int flags, struct ty_error *e)
{
	int fd = open(path, flags | O_CLOEXEC, 0666);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE))
		return ty_error_set(e, -errno, "cannot open '%s': %s (raise the limit, ulimit -n)",
				    path, strerror(errno));
	if (fd < 0)
		return ty_error_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	return fd;
}

static int
setup_env(struct ty_runner *r, struct ty_error *e)
{
	size_t n = 0, k = 0;
	char **p;

	for (p = environ; *p; p++)
		n++;
	r->envp = calloc(n + 2, sizeof(char *));
	if (!r->envp)
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (p = environ; *p; p++)
		if (strncmp(*p, ITER_PREFIX, strlen(ITER_PREFIX)) != 0)
			r->envp[k++] = *p;
	strcpy(r->iter_env, ITER_PREFIX "0");
	r->envp[k++] = r->iter_env;
	r->envp[k] = NULL;
	return 0;
}

static int
setup_io(struct ty_runner *r, struct ty_error *e)
{
	int fd;

	fd = open_fd(r->o.input_file ? r->o.input_file : "/dev/null", O_RDONLY, e);
	if (fd < 0)
		return fd;
	r->fd[0] = fd;
	switch (r->o.output) {
	case TY_OUTPUT_NULL:
		fd = open_fd("/dev/null", O_WRONLY, e);
		break;
	case TY_OUTPUT_FILE:
		fd = open_fd(r->o.output_file, O_WRONLY | O_CREAT | O_TRUNC, e);
		break;
	case TY_OUTPUT_PIPE:
		if (pipe2(r->drain, O_CLOEXEC) != 0)
			return ty_error_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
		fcntl(r->drain[0], F_SETFL, O_NONBLOCK);
		fd = dup(r->drain[1]);
		if (fd >= 0)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
		break;
	case TY_OUTPUT_INHERIT:
		fd = -1;
		break;
	}
	if (fd < 0 && r->o.output != TY_OUTPUT_INHERIT)
		return fd;
	r->fd[1] = fd;
	/* hooks: to /dev/null unless the output is inherited */
	r->fd[2] = r->o.output == TY_OUTPUT_INHERIT ? -1 : open_fd("/dev/null", O_WRONLY, e);
	if (r->o.output != TY_OUTPUT_INHERIT && r->fd[2] < 0)
		return r->fd[2];
	return 0;
}

void
ty_runner_exec_end(struct ty_runner *r)
{
	int i;

	for (i = 0; i < 3; i++)
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	for (i = 0; i < 2; i++)
		if (r->drain[i] >= 0)
			close(r->drain[i]);
	r->fd[0] = r->fd[1] = r->fd[2] = r->drain[0] = r->drain[1] = -1;
	free(r->envp);
	r->envp = NULL;
	ty_spawn_release(&r->sp); /* ends the helper: the group is empty then */
	ty_memcg_close(&r->memcg);
}

static void
set_iteration(struct ty_runner *r, enum ty_step step, size_t index)
{
	char *v = r->iter_env + strlen(ITER_PREFIX);

	if (step == TY_STEP_WARMUP || index == TY_RUNNER_HOOK_OF_WARMUP)
		strcpy(v, "warmup");
	else
		snprintf(v, sizeof(r->iter_env) - strlen(ITER_PREFIX), "%zu", index);
}

static void
probes_detach(struct ty_runner *r, pid_t pid, size_t from, size_t upto)
{
	size_t i;

	for (i = from; i < upto; i++)
		if (r->probes[i].detach)
			r->probes[i].detach(r->probes[i].ctx, pid);
}

static int
probes_attach(struct ty_runner *r, pid_t pid, struct ty_error *e)
{
	size_t i;
	int rc;

	for (i = 0; i < r->nprobes; i++) {
		if (!r->probes[i].attach)
			continue;
		rc = r->probes[i].attach(r->probes[i].ctx, pid, e);
		if (rc < 0) {
			probes_detach(r, pid, 0, i);
			return rc;
		}
	}
	return 0;
}

static int
probes_collect(struct ty_runner *r, pid_t pid, double *values, struct ty_error *e)
{
	size_t i, k = 0, j;
	int rc;

	for (i = 0; i < r->nprobes; i++) {
		for (j = 0; j < r->probes[i].nvalues; j++)
			values[k + j] = NAN;
		if (r->probes[i].collect) {
			rc = r->probes[i].collect(r->probes[i].ctx, pid, values + k, e);
			if (rc < 0) {
				/* the ones collected are done, this one cleans up
				 * after itself; the rest were never collected */
				probes_detach(r, pid, i + 1, r->nprobes);
				return rc;
			}
		}
		k += r->probes[i].nvalues;
	}
	return 0;
}

/* Our own peak resident set in KiB, 0 when unknown. The child is created
 * from our address space, and at exec Linux folds that address space's
 * high-water RSS into the child's ru_maxrss: a child's maxrss is never
 * below this. getrusage is one cheap system call, so this can sit in the
 * run loop (reading /proc/self/status there cost tens of microseconds). */
static long
self_hwm_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

/* The whole tree's peak, where a memory cgroup can be had: the helper goes
 * into a group of our own, and so every run it clones (o.no_memcg: not). */
static void
start_memcg(struct ty_runner *r, struct ty_results *rs)
{
	char name[64];

	memset(&r->memcg, 0, sizeof(r->memcg));
	r->memcg.peak_fd = -1;
	if (r->sp.helper_fd < 0 || r->o.no_memcg)
		return;
	snprintf(name, sizeof(name), "tachy-%ld", (long)getpid());
	if (ty_memcg_open(&r->memcg, "", name, NULL) < 0)
		return;
	if (ty_memcg_enter(&r->memcg, r->sp.helper_pid, NULL) < 0) {
		ty_memcg_close(&r->memcg);
		return;
	}
	ty_spawn_guard_cgroup(&r->sp, r->memcg.dir); /* killed should tachy die */
	rs->tree_method = ty_memcg_method(&r->memcg);
}

/* Set up what every step shares: the runs' memory cgroup (the helper in
 * it), the commands' stdin and stdout, their environment. */
int
ty_runner_exec_start(struct ty_runner *r, struct ty_results *rs, struct ty_error *e)
{
	int rc;

	start_memcg(r, rs);
	if ((rc = setup_io(r, e)) < 0)
		return rc;
	return setup_env(r, e);
}

/* ---- processes left behind ---- */

/* How many live processes are in the process group PGID (a reaped run's;
 * a zombie waiting for init to reap it counts for kill() but not here). */
static long
group_members(pid_t pgid)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	long n = 0, g;
	char state;
	DIR *d;
	int fd;
	ssize_t len;

	if (kill(-pgid, 0) != 0 && errno == ESRCH)
		return 0;
	if (!(d = opendir("/proc")))
		return 1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* pid (comm) state ppid pgrp: comm may hold anything but ')' last */
		if ((p = strrchr(buf, ')')) && sscanf(p + 1, " %c %*d %ld", &state, &g) == 2 &&
		    g == pgid && state != 'Z' && state != 'X')
			n++;
	}
	closedir(d);
	return n;
}

/* Wait until the group PGID has no live process; with KILL, SIGKILL it
 * first. Interrupted (*r->stop): kill. */
static void
group_wait(struct ty_runner *r, pid_t pgid, int kill_it)
{
	struct timespec ts = {0, 1000000};

	if (kill_it)
		kill(-pgid, SIGKILL);
	while (group_members(pgid) > 0) {
		if (!kill_it && r->stop && *r->stop)
			kill(-pgid, SIGKILL), kill_it = 1;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 50000000)
			ts.tv_nsec *= 2;
	}
}

/* Whether PID is in V[0..N). */
static int
pid_in(const pid_t *v, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

/* The processes in the runs' cgroup that a run left: not the helper, and
 * not there before the run (BEFORE, NB: a hook's server, an earlier run's
 * daemon). With KILL, each is sent SIGKILL. Returns how many, or a
 * negative errno when the group cannot be read. */
static long
cgroup_left(struct ty_runner *r, const pid_t *before, size_t nb, int kill_them)
{
	pid_t *now;
	size_t n, i;
	long left = 0;
	int rc;

	if ((rc = ty_memcg_procs(&r->memcg, &now, &n)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (now[i] == r->sp.helper_pid || pid_in(before, nb, now[i]))
			continue;
		left++;
		if (kill_them)
			kill(now[i], SIGKILL);
	}
	free(now);
	return left;
}

/* After a run (its process reaped): what it left in the runs' cgroup
 * (every process it started, whatever session it moved to). Returns 0, or
 * -1 when the cgroup cannot be read (then the process group is looked at). */
static int
cgroup_leftovers(struct ty_runner *r, struct ty_job *job, const pid_t *before, size_t nb)
{
	struct timespec ts = {0, 1000000};
	int kill_it = r->o.leftovers == TY_LEFTOVERS_KILL;
	long n = cgroup_left(r, before, nb, kill_it);

	if (n < 0)
		return -1;
	job->leftover_where = "memory cgroup";
	if (n > 0 && r->o.leftovers == TY_LEFTOVERS_WARN) {
		job->leftover_runs++;
		if (n > job->leftover_max)
			job->leftover_max = n;
		return 0;
	}
	while (n > 0) { /* wait (or kill) until they are gone */
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 50000000)
			ts.tv_nsec *= 2;
		if (!kill_it && r->stop && *r->stop)
			kill_it = 1;
		if ((n = cgroup_left(r, before, nb, kill_it)) < 0)
			return 0;
	}
	return 0;
}

/* After a run (its process reaped): what is left in its group PGID. */
static void
leftovers(struct ty_runner *r, struct ty_job *job, pid_t pgid)
{
	long n;

	job->leftover_where = "process group";
	if (kill(-pgid, 0) != 0 && errno == ESRCH)
		return; /* the usual case: one system call */
	if (r->o.leftovers != TY_LEFTOVERS_WARN) {
		group_wait(r, pgid, r->o.leftovers == TY_LEFTOVERS_KILL);
		return;
	}
	if ((n = group_members(pgid)) > 0) {
		job->leftover_runs++;
		if (n > job->leftover_max)
			job->leftover_max = n;
	}
}

/* With a wrapping probe (a counting engine that runs the command: its
 * wrap argv), O's program and words for a measured run: the wrapper's,
 * then the command's resolved program and its arguments, in *WRAPV (to
 * be freed after the reap). */
static int
wrapped(struct ty_runner *r, struct ty_job *job, struct ty_spawn_opts *o, char ***wrapv,
	struct ty_error *e)
{
	char *const *w = NULL;
	size_t i, nw = 0, na = 0;

	for (i = 0; i < r->nprobes && !w; i++)
		w = r->probes[i].wrap;
	if (!w)
		return 0;
	while (w[nw])
		nw++;
	while (job->argv[na])
		na++;
	if (!(*wrapv = calloc(nw + na + 1, sizeof(**wrapv))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < nw; i++)
		(*wrapv)[i] = w[i];
	(*wrapv)[nw] = job->path;
	for (i = 1; i < na; i++)
		(*wrapv)[nw + i] = job->argv[i];
	o->path = w[0];
	o->argv = *wrapv;
	return 0;
}

static int
exec_step(struct ty_runner *r, struct ty_job *job, size_t index, enum ty_step step, int hook,
	  struct ty_results_run *s, double *values, char ***wrapv, struct ty_error *e)
{
	struct ty_spawn_opts o;
	struct ty_usage u;
	struct ty_exit x;
	int64_t t0, t1;
	int measured = step == TY_STEP_RUN, probed = measured && r->nprobes, rc, have_before = 0;
	size_t i, nv, nbefore = 0;
	pid_t pid, *before = NULL;

	memset(&o, 0, sizeof(o));
	if (step == TY_STEP_HOOK) {
		o.path = job->hook_path[hook];
		o.argv = job->hook[hook];
		o.fd[1] = o.fd[2] = r->fd[2];
		o.drain_fd = -1;
	} else {
		o.path = job->path;
		o.argv = job->argv;
		o.fd[1] = o.fd[2] = r->fd[1];
		o.drain_fd = r->drain[0];
	}
	if (measured && (rc = wrapped(r, job, &o, wrapv, e)) < 0)
		return rc;
	o.fd[0] = r->fd[0];
	o.envp = r->envp;
	o.cpus = r->o.cpus;
	o.pdeathsig = SIGKILL; /* a SIGKILLed tachy leaves no benchmark running */
	o.want_pidfd = o.drain_fd >= 0 || (r->o.timeout > 0 && step != TY_STEP_HOOK) ||
		       (r->o.hook_timeout > 0 && step == TY_STEP_HOOK);
	set_iteration(r, step, index);
	if (r->o.input_file)
		lseek(r->fd[0], 0, SEEK_SET); /* every run reads the input from its start */
	pid = ty_spawn_create(&r->sp, &o, e);
	if (pid < 0)
		return pid;
	if (probed && job->uncounted[0]) {
		/* the kernel would count next to nothing (a set-ID exec takes
		 * our events off it): no figures rather than wrong ones */
		for (i = 0, nv = 0; i < r->nprobes; i++)
			nv += r->probes[i].nvalues;
		for (i = 0; i < nv; i++)
			values[i] = NAN;
		probed = 0;
	}
	if (probed && (rc = probes_attach(r, pid, e)) < 0) {
		ty_spawn_kill(&r->sp, SIGKILL);
		ty_spawn_go(&r->sp);
		ty_spawn_wait(&r->sp, 0, NULL, &u, &x, NULL);
		return rc;
	}
	if (measured && r->memcg.version)
		ty_memcg_reset(&r->memcg);
	/* what is in the runs' cgroup before this run is not its leftovers */
	have_before = step != TY_STEP_HOOK && r->memcg.version &&
		      ty_memcg_procs(&r->memcg, &before, &nbefore) == 0;
	t0 = r->clock.now_ns(r->clock.ctx);
	ty_spawn_go(&r->sp);
	rc = ty_spawn_wait(
	    &r->sp, (int64_t)((step == TY_STEP_HOOK ? r->o.hook_timeout : r->o.timeout) * 1e9),
	    r->stop, &u, &x, e);
	t1 = r->clock.now_ns(r->clock.ctx);
	if (rc < 0 || rc == 1) {
		if (probed)
			probes_detach(r, pid, 0, r->nprobes);
		free(before);
		return rc;
	}
	s->start_ns = t0 - r->t0;
	s->wall_ns = t1 - t0;
	s->usage = u;
	if (measured && r->memcg.version) {
		long kb = ty_memcg_peak_kb(&r->memcg);
		s->usage.tree_peak_kb = kb > 0 ? kb : 0;
	}
	/* read after the run: our peak then is at least what it was at the
	 * child's exec (we may have grown in between: counters, buffers) */
	if (measured && r->sp.helper_fd < 0)
		s->usage.maxrss_floor_kb = self_hwm_kb();
	s->exit_code = x.exit_code;
	s->signal = x.signal;
	s->timed_out = x.timed_out;
	if (step != TY_STEP_HOOK && !x.exec_errno && /* a hook may start a server on purpose */
	    (!have_before || cgroup_leftovers(r, job, before, nbefore) < 0))
		leftovers(r, job, pid);
	free(before);
	if (x.exec_errno) {
		if (probed)
			probes_detach(r, pid, 0, r->nprobes);
		return ty_error_set(e, -x.exec_errno, "cannot run '%s': %s", o.argv[0],
				    strerror(x.exec_errno));
	}
	if (probed)
		return probes_collect(r, pid, values, e);
	return 0;
}

int
ty_runner_exec_step(struct ty_runner *r, struct ty_job *job, size_t index, enum ty_step step,
		    int hook, struct ty_results_run *s, double *values, struct ty_error *e)
{
	char **wrapv = NULL; /* the wrapped words: they live until the reap */
	int rc = exec_step(r, job, index, step, hook, s, values, &wrapv, e);

	free(wrapv);
	return rc;
}
