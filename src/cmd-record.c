/* cmd-record.c - tachy record: sample where a command spends its time. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "record-args.h"
#include "tachy/array.h"
#include "tachy/cachedir.h"
#include "tachy/calls.h"
#include "tachy/cpulist.h"
#include "tachy/demangle.h"
#include "tachy/events.h"
#include "tachy/insn.h"
#include "tachy/outfile.h"
#include "tachy/profile-file.h"
#include "tachy/record-system.h"
#include "tachy/record.h"
#include "tachy/sampler.h"
#include "tachy/spawn.h"
#include "tachy/symbols.h"
#include "term.h"

static struct ty_record_stop stop;

static void
on_signal(int sig)
{
	stop.sig = sig;
	stop.count++;
}

/* -p PID -- COMMAND (perf's habit, `-- sleep 5`): PID is recorded while
 * COMMAND runs; its end is the stop word. */
static volatile pid_t timer_pid;

static void
on_timer_end(int sig)
{
	int saved = errno;

	(void)sig;
	if (timer_pid > 0 && waitpid(timer_pid, NULL, WNOHANG) == timer_pid) {
		timer_pid = 0;
		stop.sig = SIGCHLD;
	}
	errno = saved;
}

static int
timer_start(char **argv)
{
	extern char **environ;
	int err;
	pid_t pid;

	signal(SIGCHLD, on_timer_end);
	err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (err)
		return cli_error(err == ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "cannot run '%s': %s",
				 term_safe(argv[0]), strerror(err));
	timer_pid = pid;
	on_timer_end(SIGCHLD); /* it may have ended already */
	return 0;
}

/* PID ended first: the command that timed the recording goes too. */
static void
timer_stop(void)
{
	pid_t pid = timer_pid;

	if (pid > 0) {
		timer_pid = 0;
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
}

/* --call-graph fp | dwarf[,SIZE] | auto, in perf's spelling. */
static int
above_max(const char *opt, uint64_t v, uint64_t max)
{
	return cli_usage_error("%s %llu is above the kernel's limit of %llu samples per second "
			       "(/proc/sys/kernel/perf_event_max_sample_rate)",
			       opt, (unsigned long long)v, (unsigned long long)max);
}

/* Does the command get a process group of its own? Not when tachy runs in
 * the foreground of a terminal: the command keeps the terminal (and Ctrl-C
 * reaches it directly). Elsewhere it does, so that an interrupt sent to
 * tachy alone can be passed on to the command and all its children. */
static int
own_group(void)
{
	pid_t fg = tcgetpgrp(STDIN_FILENO);

	return fg < 0 || fg != getpgrp();
}

struct run {
	struct record_opts *o;
	struct ty_recorder *rec;
	struct ty_symbols *syms;
	struct ty_outfile out; /* -o, opened before the command starts */
	int out_open;
	struct ty_calls calls; /* --calls */
};

/* Does the profile go where tachy's stdout goes (-o -, -o /dev/stdout)? Then
 * the command's stdout must go elsewhere (to stderr), not into the profile. */
static int
profile_on_stdout(const struct run *r)
{
	struct stat a, b;

	if (r->out.is_stdout)
		return 1;
	if (fstat(STDOUT_FILENO, &b) != 0)
		return 0;
	if (stat(r->o->output, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 1; /* -o /dev/stdout: its temporary file replaces stdout's */
	return r->out.fd >= 0 && fstat(r->out.fd, &a) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* What unwinding the user stacks did (--call-graph dwarf). */
static void
unwind_summary(struct run *r)
{
	uint32_t stack;

	if (ty_record_callgraph(r->rec, &stack) == TY_CG_DWARF) {
		struct ty_record_unwind_stats st;
		uint32_t sw = ty_record_switch_stack(r->rec);
		char at[64] = "";
		if (sw && r->o->off_cpu == TY_OFFCPU_ONLY)
			stack = sw;
		else if (sw)
			snprintf(at, sizeof(at), " (%u at a switch-out)", sw);
		ty_record_unwind_stats(r->rec, &st);
		fprintf(stderr,
			"tachy record: user stacks of %u bytes%s unwound: %.1f%% of %llu chains "
			"complete, %.1f%% cut by the copy; %.3f s spent unwinding\n",
			stack, at,
			st.samples ? 100.0 * (double)st.complete / (double)st.samples : 0.0,
			(unsigned long long)st.samples,
			st.samples ? 100.0 * (double)st.truncated / (double)st.samples : 0.0,
			(double)st.unwind_ns / 1e9);
		if (st.exec_calls)
			fprintf(stderr,
				"tachy record: exec probe: %llu execve calls sampled, their chains "
				"given to the samples inside them\n",
				(unsigned long long)st.exec_calls);
		if (getenv("TACHY_UNWIND_DEPTHS")) /* bench/: what stack size real chains need */
			fprintf(
			    stderr,
			    "tachy record: complete chains by stack bytes: <=1K %llu, 2K %llu, 4K "
			    "%llu, 8K %llu, 16K %llu, 32K %llu, 64K %llu, more %llu\n",
			    (unsigned long long)st.depth[0], (unsigned long long)st.depth[1],
			    (unsigned long long)st.depth[2], (unsigned long long)st.depth[3],
			    (unsigned long long)st.depth[4], (unsigned long long)st.depth[5],
			    (unsigned long long)st.depth[6], (unsigned long long)st.depth[7]);
	}
}

/* The share of P's samples that are tachy's own (seed 000's complaint). */
static double
own_share(const struct ty_profile *p, size_t *n)
{
	uint32_t me = (uint32_t)getpid();
	size_t i, j;

	*n = 0;
	for (i = 0; i < p->nsamples; i++)
		for (j = 0; j < p->nthreads; j++)
			if (p->threads[j].tid == p->samples[i].tid) {
				*n += p->threads[j].pid == me;
				break;
			}
	return p->nsamples ? (double)*n / (double)p->nsamples : 0;
}

/* -a with a command: the part of the added CPU that the command's run pays
 * beside tachy (what runs with and without the profiler measure of the
 * command and tachy together): tachy's own CPU and the kernel's work for
 * the command's samples; the other tasks' samples cost them the rest. */
static void
added_command(const struct run *r, double me, double per, double samples)
{
	uint64_t n, cpu_ns;
	double k, base;

	if (!ty_record_command_samples(r->rec, &n, &cpu_ns))
		return;
	k = (double)n * per;
	base = (double)cpu_ns / 1e9 - k;
	fprintf(stderr,
		"tachy record: added CPU to the command's run about %.3f s: tachy's own %.3f s "
		"and the kernel's work for the command's %llu samples, %.3f s",
		me + k, me, (unsigned long long)n, k);
	if (base > 0)
		fprintf(stderr, "; %.1f%% more than its %.3f s without them", 100 * (me + k) / base,
			base);
	fprintf(stderr, " (the other tasks' %.0f samples cost them %.3f s)\n",
		samples > (double)n ? samples - (double)n : 0,
		samples > (double)n ? (samples - (double)n) * per : 0);
}

/* What the profiler added to the CPU time, as the workload pays it: tachy's
 * own and the kernel's work for the samples (charged to the tasks they
 * interrupted: no clock of tachy's sees it), against the CPU those tasks
 * would have used without it. SAMPLES: those of tasks (not idle). */
static void
added_cpu(const struct run *r, const struct ty_profile *p, double me, double samples)
{
	double per = (double)p->meta.sample_cost_ps / 1e12, k = samples * per;
	double base = (double)p->meta.workload_cpu_ns / 1e9 - k;
	const char *why = ty_record_sample_cost_error(r->rec);

	if (!p->meta.sample_cost_ps) {
		if (why) /* said, not left out: the kernel's part is unknown */
			fprintf(stderr,
				"tachy record: added CPU: tachy's own %.3f s, and the kernel's "
				"work for "
				"%.0f samples charged to the %s, not measured (%s)\n",
				me, samples,
				p->meta.system_wide ? "tasks they interrupted" : "workload",
				term_safe(why));
		return;
	}
	fprintf(
	    stderr,
	    "tachy record: added CPU about %.3f s: tachy's own %.3f s and the kernel's work for "
	    "%.0f samples, %.3f s (%.1f us a sample, measured after it) charged to the %s",
	    me + k, me, samples, k, per * 1e6,
	    p->meta.system_wide ? "tasks they interrupted" : "workload");
	if (base > 0)
		fprintf(stderr, "; %.1f%% more than its %.3f s without them\n",
			100 * (me + k) / base, base);
	else
		fprintf(stderr, "\n");
	added_command(r, me, per, samples);
}

/* " (no cycles event here)" after the event's name where it fell back. */
static const char *
fell_back_note(const struct run *r)
{
	static char buf[160];

	if (!ty_record_fell_back(r->rec))
		return "";
	snprintf(buf, sizeof(buf), " (no %s event here)",
		 term_safe(r->o->event ? r->o->event : "cycles"));
	return buf;
}

static void
summary_system(struct run *r, const struct ty_profile *p, const char *rate, const char *space)
{
	size_t own;
	double share = own_share(p, &own);

	fprintf(stderr,
		"tachy record: system-wide on CPUs %s for %.3f s: %zu samples of %s%s %s%s%s "
		"(%.1f%% idle), %llu lost, %llu throttled; %u processes; tachy's own samples "
		"%zu (%.2f%%), its CPU %.3f s; wrote %s\n",
		p->meta.cpus ? p->meta.cpus : "?", (double)p->meta.wall_ns / 1e9, p->nsamples,
		ty_record_event_name(r->rec), fell_back_note(r), rate,
		r->o->callchain ? " with call chains" : "", space, 100 * ty_record_system_idle(p),
		(unsigned long long)p->meta.lost, (unsigned long long)p->meta.throttled,
		p->meta.processes, own, 100 * share, (double)p->meta.profiler_cpu_ns / 1e9,
		r->o->output);
	/* tachy's own samples: their kernel work is in its CPU already */
	added_cpu(r, p, (double)p->meta.profiler_cpu_ns / 1e9,
		  (double)p->nsamples * (1 - ty_record_system_idle(p)) - (double)own);
	unwind_summary(r);
}

/* "profiler CPU 0.047 s, 7.3% of the workload's 0.649 s"; as a ratio when
 * the profiler used more than the workload (a short command: its set-up
 * and reading dominate), never as "3029.81%". */
static void
cpu_share(char *buf, size_t size, double me, double work)
{
	if (!(work > 0))
		snprintf(buf, size, "profiler CPU %.3f s", me);
	else if (me < work)
		snprintf(buf, size, "profiler CPU %.3f s, %.*f%% of the workload's %.3f s", me,
			 100 * me / work < 10 ? 2 : 1, 100 * me / work, work);
	else
		snprintf(buf, size, "profiler CPU %.3f s, %.*fx the workload's %.3f s", me,
			 me / work < 10 ? 1 : 0, me / work, work);
}

static void
summary(struct run *r, const struct ty_profile *p, uint64_t self_cpu)
{
	double work = (double)p->meta.workload_cpu_ns / 1e9, me = (double)self_cpu / 1e9;
	char rate[64], space[96], cover[512], cpu[160];

	if (r->o->period)
		snprintf(rate, sizeof(rate), "every %ld events", r->o->period);
	else
		snprintf(rate, sizeof(rate), "at %ld Hz", r->o->freq);
	if (!ty_record_user_only(r->rec))
		snprintf(space, sizeof(space), " (kernel included)");
	else if (ty_record_kernel_refused(r->rec))
		snprintf(space, sizeof(space), " (user space only: perf_event_paranoid is %d)",
			 ty_sampler_paranoid());
	else
		snprintf(space, sizeof(space), " (user space only)");
	if (p->meta.system_wide && !p->meta.off_cpu) {
		summary_system(r, p, rate, space);
		return;
	}
	cpu_share(cpu, sizeof(cpu), me, work);
	if (p->meta.off_cpu) {
		size_t i, off = 0;
		for (i = 0; i < p->nsamples; i++)
			off += p->samples[i].state != TY_STATE_CPU;
		if (p->meta.system_wide) {
			fprintf(stderr,
				"tachy record: system-wide on CPUs %s for %.3f s: %zu on-CPU "
				"samples and %zu off-CPU intervals%s%s, %llu lost; %u processes; "
				"tachy's CPU %.3f s; wrote %s\n",
				p->meta.cpus ? p->meta.cpus : "?", (double)p->meta.wall_ns / 1e9,
				p->nsamples - off, off, r->o->callchain ? " with call chains" : "",
				space, (unsigned long long)p->meta.lost, p->meta.processes, me,
				r->o->output);
			if (ty_profile_chains_note(p, cover, sizeof(cover)) == 0)
				fprintf(stderr, "tachy record: %s\n", cover);
			unwind_summary(r);
			return;
		}
		fprintf(stderr,
			"tachy record: %zu on-CPU samples%s%s and %zu off-CPU intervals%s%s, "
			"%llu lost; %s; wrote %s\n",
			p->nsamples - off, p->meta.off_cpu == TY_OFFCPU_WALL ? " " : "",
			p->meta.off_cpu == TY_OFFCPU_WALL ? rate : "", off,
			r->o->callchain ? " with call chains" : "", space,
			(unsigned long long)p->meta.lost, cpu, r->o->output);
		if (ty_profile_chains_note(p, cover, sizeof(cover)) == 0)
			fprintf(stderr, "tachy record: %s\n", cover);
		unwind_summary(r);
		return;
	}
	fprintf(stderr,
		"tachy record: %zu samples of %s%s %s%s%s, %llu lost, %llu throttled; %s; wrote "
		"%s\n",
		p->nsamples, ty_record_event_name(r->rec), fell_back_note(r), rate,
		r->o->callchain ? " with call chains" : "", space, (unsigned long long)p->meta.lost,
		(unsigned long long)p->meta.throttled, cpu, r->o->output);
	if (!r->o->pid && ty_profile_coverage(p, cover, sizeof(cover)) == 0)
		fprintf(stderr, "tachy record: %s\n", cover);
	added_cpu(r, p, me, (double)p->nsamples);
	unwind_summary(r);
}

/* Is the profile going to /dev/null (pmcstat -O /dev/null: a recording for
 * its cost alone)? Then nothing is named at the end. */
static int
to_dev_null(const struct ty_outfile *out)
{
	struct stat a, b;

	return out->fd >= 0 && fstat(out->fd, &a) == 0 && S_ISCHR(a.st_mode) &&
	       stat("/dev/null", &b) == 0 && S_ISCHR(b.st_mode) && a.st_rdev == b.st_rdev;
}

/* --calls: the probes on the held command (ty_record_opts.on_child). */
static int
calls_on_child(pid_t pid, void *arg, struct ty_error *e)
{
	struct run *r = arg;

	return ty_calls_open(&r->calls, pid, 1, NULL, 0, e);
}

/* --calls: the functions matched, and a probe hit's cost measured. Exit
 * status 0, else the error's (2: a pattern that matches nothing or too
 * much, or no uprobes here). */
static int
calls_setup(struct run *r)
{
	const struct record_opts *o = r->o;
	char exe[4096] = "";
	struct ty_error e = {0};
	size_t i;
	int ret;

	if (!o->calls.n)
		return 0;
	if (o->argv[0] && !o->pid && ty_spawn_resolve(o->argv[0], exe, sizeof(exe), &e) < 0)
		return cli_error(EXIT_USAGE, "%s", e.msg);
	for (i = 0; i < o->calls.n; i++) {
		if ((ret = ty_calls_add(&r->calls, exe, o->calls.v[i], &e)) < 0)
			return cli_error(ret == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	}
	if ((ret = ty_calls_calibrate(&r->calls, &e)) < 0)
		return cli_error(ret == -EACCES || ret == -ENODEV ? EXIT_USAGE : EXIT_RUNTIME, "%s",
				 e.msg);
	if (o->all && (ret = ty_calls_open(&r->calls, -1, 0, o->cpus.n ? o->cpus.cpus : NULL,
					   (int)o->cpus.n, &e)) < 0)
		return cli_error(ret == -EACCES || ret == -ENODEV ? EXIT_USAGE : EXIT_RUNTIME, "%s",
				 e.msg);
	return 0;
}

/* What of counted function F's (C's) self samples in P its probe's traps
 * put there: those the kernel takes during a trap land as it returns, at
 * the entry, at the end of the first instruction or one instruction late
 * (perf shows the same), where its own code does not branch to. */
static void
calls_trap(struct ty_prof_call *c, const struct ty_profile *p, const struct ty_calls_fn *f)
{
	uint64_t at[3] = {f->vaddr, f->vaddr + (uint64_t)f->resume,
			  f->vaddr + (uint64_t)f->resume2};

	if (f->resume == TY_INSN_BRANCH || f->resume == TY_INSN_UNKNOWN) {
		c->trap_state = f->resume == TY_INSN_BRANCH ? TY_TRAP_BRANCH : TY_TRAP_UNDECODED;
		return;
	}
	c->trap = ty_profile_leaf_weight(p, c->func, at, f->resume <= 0 ? 1 : f->resume2 ? 3 : 2);
	c->trap_state = TY_TRAP_TAKEN;
}

/* --calls: the counts into P, and what the probes cost. */
static int
calls_finish(struct run *r, struct ty_profile *p)
{
	struct ty_error e = {0};
	size_t i;

	if (!r->calls.n)
		return 0;
	if (ty_calls_read(&r->calls, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	for (i = 0; i < r->calls.n; i++) {
		const struct ty_calls_fn *f = &r->calls.fn[i];
		char *d = ty_demangle(f->name);
		uint32_t fn = ty_profile_func(p, d ? d : f->name, f->path);
		free(d);
		if (fn == TY_NONE || ty_profile_calls(p, fn, f->count) < 0)
			return cli_error(EXIT_RUNTIME, "out of memory");
		calls_trap(&p->calls[p->ncalls - 1], p, f);
	}
	{
		uint64_t total = ty_calls_total(&r->calls);
		double dist, cost = ty_calls_cost_ns(&r->calls, &dist);
		/* the mean hit's, at each function's kind of first instruction */
		p->meta.calls_hit_ps =
		    (uint64_t)((total ? cost / (double)total : r->calls.hit_ns) * 1000 + 0.5);
		p->meta.calls_disturb_ps = (uint64_t)(dist * 1000 + 0.5);
	}
	return 0;
}

static void
calls_summary(const struct run *r, const struct ty_profile *p)
{
	uint64_t total = ty_calls_total(&r->calls);
	double cost = ty_calls_cost_ns(&r->calls, NULL) / 1e9;
	double work = (double)p->meta.workload_cpu_ns / 1e9;
	char share[160];

	if (!r->calls.n)
		return;
	ty_profile_calls_share(share, sizeof(share), cost, work);
	fprintf(stderr,
		"tachy record: --calls: %llu calls of %zu functions counted exactly; a probe hit "
		"costs %.0f ns here (measured), so the probes took about %.3f s%s\n",
		(unsigned long long)total, r->calls.n, (double)p->meta.calls_hit_ps / 1000, cost,
		share);
	if (r->calls.swept)
		fprintf(stderr,
			"tachy record: --calls: %zu uprobe%s left in uprobe_events by tachys that "
			"are gone (killed), removed\n",
			r->calls.swept, r->calls.swept == 1 ? "" : "s");
	if (r->calls.no_children)
		cli_warn(
		    "--calls: the command's own calls only, not its children's: the kernel's "
		    "uprobe PMU events are not inherited; with tracefs mounted (mount -t tracefs "
		    "nodev /sys/kernel/tracing) tachy places probes that are, and counts the "
		    "children's calls too");
}

/* The symbol reader's warnings; system-wide, the stripped files (dozens)
 * in one line. */
static void
warnings(struct run *r)
{
	size_t i, stripped = 0;
	char names[256] = "";

	if (r->o->quiet)
		return;
	for (i = 0; ty_cachedir_note(i); i++)
		cli_warn("%s", term_safe(ty_cachedir_note(i)));
	for (i = 0; i < ty_symbols_nwarnings(r->syms); i++) {
		const char *w = ty_symbols_warning(r->syms, i), *b, *e;
		if (!r->o->all || !(e = strstr(w, " is stripped"))) {
			cli_warn("%s", w);
			continue;
		}
		for (b = e; b > w && b[-1] != '/' && b[-1] != ' '; b--)
			;
		if (stripped++ < 4 && strlen(names) + (size_t)(e - b) + 3 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%.*s",
				 stripped > 1 ? ", " : "", (int)(e - b), b);
	}
	if (stripped)
		cli_warn("%zu sampled files are stripped (%s%s): the functions they do not export "
			 "are named FILE+0xADDRESS",
			 stripped, names, stripped > 4 ? ", ..." : "");
}

static int
finish(struct run *r, struct ty_error *err)
{
	struct ty_profile *p = ty_profile_new();
	int ret;

	if (!p)
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_record_finish(r->rec, p, err) < 0) {
		ty_profile_free(p);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	if ((ret = calls_finish(r, p))) {
		ty_profile_free(p);
		return ret;
	}
	warnings(r);
	ret = ty_profile_write_fp(p, r->out.fp, r->o->output, err);
	r->out_open = 0;
	if (ret < 0)
		ty_outfile_abort(&r->out);
	else
		ret = ty_outfile_commit(&r->out, err);
	if (ret < 0) {
		ty_profile_free(p);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	if (!r->o->quiet) {
		if (p->meta.lost)
			cli_warn("%llu samples were lost: the ring buffers filled up (try -m %ld)",
				 (unsigned long long)p->meta.lost,
				 4l * ty_record_ring_pages(r->rec));
		if (p->meta.throttled)
			cli_warn(
			    "the kernel throttled sampling %llu times (perf_event_max_sample_rate "
			    "is %llu): lower -F",
			    (unsigned long long)p->meta.throttled,
			    (unsigned long long)ty_sampler_max_rate());
		summary(r, p, p->meta.profiler_cpu_ns);
		calls_summary(r, p);
	}
	ty_profile_free(p);
	return 0;
}

/* 130 when tachy or the command was interrupted; a warning when the command
 * failed or died from another signal. */
static int
exit_status(const struct run *r)
{
	const struct ty_exit *x = ty_record_exit(r->rec);
	int sig = x ? x->signal : 0;

	if (x && ty_record_interrupted(r->rec))
		return EXIT_INTERRUPTED;
	if (sig == SIGINT || sig == SIGTERM)
		return EXIT_INTERRUPTED;
	if (r->o->quiet)
		return EXIT_OK;
	if (sig) {
		const char *name = sigabbrev_np(sig);
		if (name)
			cli_warn("the command was killed by SIG%s%s", name,
				 x->core_dumped ? " (core dumped)" : "");
		else
			cli_warn("the command was killed by signal %d", sig);
	} else if (x && x->exit_code > 0) {
		cli_warn("the command exited with status %d", x->exit_code);
	}
	return EXIT_OK;
}

int cmd_record(int argc, char **argv);

/* TACHY_UNWIND_DEBUG=FILE (or 1: stderr): why each incomplete chain ended
 * (bench/record-unwind.sh's classification of the failing samples). */
static FILE *
unwind_log(void)
{
	const char *v = getenv("TACHY_UNWIND_DEBUG");
	FILE *f;

	if (!v || !*v || strcmp(v, "0") == 0)
		return NULL;
	if (strcmp(v, "1") == 0 || strcmp(v, "-") == 0)
		return stderr;
	if (!(f = fopen(v, "w")))
		cli_warn("TACHY_UNWIND_DEBUG: cannot write %s: %s", v, strerror(errno));
	return f;
}

static void
on_warning(const char *msg, void *arg)
{
	const struct record_opts *o = arg;

	if (!o->quiet)
		cli_warn("%s", msg);
}

static const char **calls_v; /* --calls's list, freed when the command ends */

static int
record(int argc, char **argv)
{
	struct record_opts o;
	struct run r;
	struct ty_record_opts ro = {0};
	struct ty_error err = {0};
	const struct ty_exit *x;
	uint64_t max;
	int ret;

	ret = record_parse_args(argc, argv, &o);
	calls_v = o.calls.v;
	if (ret != 0)
		return ret < 0 ? cli_finish_stdout(EXIT_OK) : ret;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	if (ty_event_parse(o.event     ? o.event
			   : o.off_cpu ? "cpu-clock"
				       : "cycles",
			   &ro.ev, &err) < 0)
		return cli_usage_error("%s", err.msg);
	if (o.off_cpu == TY_OFFCPU_WALL && ro.ev.kind != TY_EVENT_TASK_CLOCK)
		return cli_usage_error("--wall adds on-CPU samples to off-CPU time in one unit: "
				       "-e must be a clock event (cpu-clock, task-clock), not %s",
				       o.event);
	max = ty_sampler_max_rate();
	if (!o.period && max && (uint64_t)o.freq > max)
		return above_max("-F", (uint64_t)o.freq, max);
	if (max && o.switch_chains != TY_RECORD_CHAINS_ALL && o.switch_chains > max)
		return above_max("--off-cpu-chains", o.switch_chains, max);
	for (size_t i = 0; i < o.calls.n; i++) /* a usage error before the privileges */
		if ((!o.argv[0] || o.pid) && !strchr(o.calls.v[i], ':')) {
			ty_cpulist_release(&o.cpus);
			return cli_usage_error("--calls %s: without a command, name the file: "
					       "--calls FILE:PATTERN",
					       o.calls.v[i]);
		}
	if (o.all && (ret = ty_record_system_check(o.cpus.cpus, (int)o.cpus.n, &err)) < 0) {
		ty_cpulist_release(&o.cpus);
		return cli_error(ret == -EACCES || ret == -ENODEV ? EXIT_USAGE : EXIT_RUNTIME, "%s",
				 err.msg);
	}
	r.o = &o;
	if ((ret = calls_setup(&r))) {
		ty_calls_release(&r.calls);
		ty_cpulist_release(&o.cpus);
		return ret;
	}
	if (!(r.syms = ty_symbols_new())) {
		ty_calls_release(&r.calls);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	cli_symbols_cache(r.syms);
	if (getenv("TACHY_DEBUG_ROOT") && *getenv("TACHY_DEBUG_ROOT"))
		ty_symbols_set_debug_root(r.syms, getenv("TACHY_DEBUG_ROOT"));
	/* A bad -o fails now, not after a long recording. */
	if (ty_outfile_open(&r.out, o.output, &err) < 0) {
		ty_symbols_free(r.syms);
		return cli_error(EXIT_RUNTIME, "%s", err.msg);
	}
	r.out_open = 1;
	if (r.out.fd >= 0) /* the command need not inherit it */
		fcntl(r.out.fd, F_SETFD, FD_CLOEXEC);
	ro.explicit_event = o.event != NULL;
	ro.fallback = o.fallback;
	ro.use_freq = o.period == 0;
	ro.rate = ro.use_freq ? (uint64_t)o.freq : (uint64_t)o.period;
	ro.callgraph = o.callchain ? o.cg : TY_CG_NONE;
	ro.stack_size = (uint32_t)o.stack_size;
	ro.user = o.user;
	ro.pid = (pid_t)o.pid;
	ro.argv = o.pid ? NULL : o.argv; /* with -p, a command only times it */
	ro.stdout_fd = !o.pid && profile_on_stdout(&r) ? STDERR_FILENO : -1;
	ro.same_group = !o.pid && !own_group();
	ro.mmap_pages = (unsigned)o.pages;
	ro.maps = o.proc_maps ? TY_MAPS_PROC : o.mmap_records ? TY_MAPS_MMAP_RECORDS : TY_MAPS_LAZY;
	ro.off_cpu = o.off_cpu;
	ro.switch_chains = o.switch_chains;
	ro.system_wide = o.all;
	ro.no_names = !r.calls.n && to_dev_null(&r.out);
	ro.cpus = o.cpus.n ? o.cpus.cpus : NULL;
	ro.ncpus = (int)o.cpus.n;
	ro.duration_ns = (uint64_t)(o.duration * 1e9);
	if (r.calls.n && !o.all) {
		ro.on_child = calls_on_child;
		ro.on_child_arg = &r;
	}
	ro.warn = on_warning;
	ro.warn_arg = &o;
	ro.unwind_log = unwind_log();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal); /* a closed terminal ends it as Ctrl-C: probes removed */
	ret = ty_record_start(&r.rec, &ro, r.syms, &err);
	if (ret < 0)
		ret = cli_error(ret == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s", err.msg);
	else if (o.pid && o.argv[0] && (ret = timer_start(o.argv)))
		; /* said */
	else if (ty_record_wait(r.rec, &stop, &err) < 0)
		ret = cli_error(EXIT_RUNTIME, "%s", err.msg);
	else if ((x = ty_record_exit(r.rec)) && x->exec_errno)
		ret = cli_error(x->exec_errno == ENOENT ? EXIT_USAGE : EXIT_RUNTIME,
				"cannot run '%s': %s%s", term_safe(o.argv[0]),
				strerror(x->exec_errno),
				x->exec_errno == ENOEXEC
				    ? ": a script needs a first line naming its interpreter "
				      "(#!/bin/sh), or record its interpreter: -- sh SCRIPT"
				    : "");
	else {
		/* what was recorded is written; a signal from now on cuts the
		 * naming short (ty_symbols_set_stop), not the writing */
		stop.sig = 0;
		ty_symbols_set_stop(r.syms, &stop.sig);
		ret = finish(&r, &err);
	}
	timer_stop();
	if (ret == 0)
		ret = exit_status(&r);
	if (r.out_open)
		ty_outfile_abort(&r.out);
	ty_record_free(r.rec);
	ty_symbols_free(r.syms);
	ty_cpulist_release(&o.cpus);
	ty_calls_release(&r.calls);
	if (ro.unwind_log && ro.unwind_log != stderr)
		fclose(ro.unwind_log);
	return ret;
}

int
cmd_record(int argc, char **argv)
{
	int ret = record(argc, argv);

	free(calls_v);
	calls_v = NULL;
	return ret;
}

const struct cmd_info cmd_info_record = {"record", 50, "sample where a command spends its time",
					 cmd_record};
