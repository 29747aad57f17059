/* cmd-record.c - tachy record: sample where a command spends its time. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tachy/array.h"
#include "tachy/events.h"
#include "tachy/outfile.h"
#include "tachy/profile.h"
#include "tachy/record.h"
#include "tachy/sampler.h"
#include "tachy/symbols.h"

static const char usage_text[] =
    "usage: tachy record [-g] [-F HZ | -c PERIOD] [-e EVENT] [-o FILE] [-m PAGES]\n"
    "                    [--proc-maps | --mmap-records] [--user | --kernel]\n"
    "                    [--off-cpu | --wall] [-q]\n"
    "                    (-- COMMAND [ARG...] | -p PID)\n"
    "\n"
    "Sample where COMMAND (with all its threads and children) or the running\n"
    "process PID spends its time, and write a self-contained profile.\n"
    "\n"
    "  -F, --freq HZ        samples per second (default 999)\n"
    "  -c, --period N       one sample every N events instead of -F\n"
    "  -e, --event EVENT    what to sample, as tachy run -e names it; default\n"
    "                       cycles where the CPU has it, else cpu-clock\n"
    "  -g, --call-graph     record call chains (frame pointers)\n"
    "  -o, --output FILE    profile file (default tachy.prof, - for stdout: the\n"
    "                       command's stdout then goes to stderr)\n"
    "  -p, --pid PID        attach to a running process (all its threads) until it\n"
    "                       exits or Ctrl-C\n"
    "  -m, --mmap-pages N   ring buffer pages per CPU, a power of two (default 128)\n"
    "      --proc-maps      no mmap records at all: read /proc/PID/maps every\n"
    "                       50 ms instead (processes that live less than that\n"
    "                       keep raw addresses)\n"
    "      --mmap-records   mmap records for the whole run (by default they stop\n"
    "                       100 ms after start when the command has started no\n"
    "                       other process: every mmap(2) pays for them)\n"
    "      --user           user space only\n"
    "      --kernel         kernel samples too, or fail (default: kernel samples\n"
    "                       where allowed -- root, CAP_PERFMON or\n"
    "                       perf_event_paranoid <= 1 -- else user space only)\n"
    "      --off-cpu        off-CPU time instead of samples: every switch-out of\n"
    "                       every thread with its call chain and how long the\n"
    "                       thread stayed off the CPU (sleeping, I/O, lock,\n"
    "                       runnable)\n"
    "      --wall           on-CPU samples (a clock event, default cpu-clock) and\n"
    "                       off-CPU time together: a wall-clock profile\n"
    "  -q, --quiet          no summary line\n"
    "  -h, --help           this help\n"
    "\n"
    "At the end one line says how many samples were taken and lost, and the CPU\n"
    "time the profiler used against the workload's; a second line what share of\n"
    "the workload's CPU time the samples cover. See tachy-record(1).\n";

struct opts {
	const char *event, *output;
	long freq, period, pid, pages;
	int callchain, user, quiet, proc_maps, mmap_records, off_cpu;
	char **argv;
};

static struct ty_record_stop stop;

static void
on_signal(int sig)
{
	stop.sig = sig;
	stop.count++;
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"freq", required_argument, NULL, 'F'},
	    {"period", required_argument, NULL, 'c'},
	    {"event", required_argument, NULL, 'e'},
	    {"call-graph", no_argument, NULL, 'g'},
	    {"output", required_argument, NULL, 'o'},
	    {"pid", required_argument, NULL, 'p'},
	    {"mmap-pages", required_argument, NULL, 'm'},
	    {"user", no_argument, NULL, 'U'},
	    {"kernel", no_argument, NULL, 'K'},
	    {"proc-maps", no_argument, NULL, 'M'},
	    {"mmap-records", no_argument, NULL, 'R'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"off-cpu", no_argument, NULL, 'O'},
	    {"wall", no_argument, NULL, 'W'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, freq_given = 0, user_given = 0, kernel_given = 0, pages_given = 0;

	memset(o, 0, sizeof(*o));
	o->output = "tachy.prof";
	o->freq = 999;
	o->pages = 128;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+F:c:e:go:p:m:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (cli_parse_long("-F", optarg, 1, 10000000, &o->freq))
				return EXIT_USAGE;
			freq_given = 1;
			break;
		case 'c':
			if (cli_parse_long("-c", optarg, 1, 1L << 62, &o->period))
				return EXIT_USAGE;
			break;
		case 'e':
			o->event = optarg;
			break;
		case 'g':
			o->callchain = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			if (cli_parse_long("-p", optarg, 1, 1L << 22, &o->pid))
				return EXIT_USAGE;
			break;
		case 'm':
			if (cli_parse_long("-m", optarg, 1, 1L << 20, &o->pages))
				return EXIT_USAGE;
			if (o->pages & (o->pages - 1))
				return cli_usage_error(
				    "-m %ld: the ring size must be a power of two", o->pages);
			pages_given = 1;
			break;
		case 'O':
		case 'W':
			if (o->off_cpu &&
			    o->off_cpu != (c == 'O' ? TY_OFFCPU_ONLY : TY_OFFCPU_WALL))
				return cli_usage_error("--off-cpu and --wall exclude each other "
						       "(--wall has both)");
			o->off_cpu = c == 'O' ? TY_OFFCPU_ONLY : TY_OFFCPU_WALL;
			break;
		case 'U':
			o->user = 1, user_given = 1;
			break;
		case 'K':
			o->user = -1, kernel_given = 1;
			break;
		case 'M':
			o->proc_maps = 1;
			break;
		case 'R':
			o->mmap_records = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return cli_usage_error("unknown or incomplete option");
		}
	}
	o->argv = argv + optind;
	if (freq_given && o->period)
		return cli_usage_error("-F and -c exclude each other (a frequency or a period)");
	if (o->proc_maps && o->mmap_records)
		return cli_usage_error("--proc-maps and --mmap-records exclude each other");
	if (user_given && kernel_given)
		return cli_usage_error("--user and --kernel exclude each other");
	if (o->pid && o->argv[0])
		return cli_usage_error("give either -p PID or a command, not both");
	if (!o->pid && !o->argv[0])
		return cli_usage_error("no command to record (tachy record [options] -- COMMAND)");
	if (o->off_cpu == TY_OFFCPU_ONLY && (o->event || freq_given || o->period))
		return cli_usage_error("--off-cpu samples at every switch-out: -e, -F and -c are "
				       "--wall's (on-CPU samples beside the off-CPU time)");
	if (o->off_cpu && !pages_given) /* two records and a sample per switch */
		o->pages = 512;
	return 0;
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
	struct opts *o;
	struct ty_recorder *rec;
	struct ty_symbols *syms;
	struct ty_outfile out; /* -o, opened before the command starts */
	int out_open;
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

static void
summary(struct run *r, const struct ty_profile *p, uint64_t self_cpu)
{
	double work = (double)p->meta.workload_cpu_ns / 1e9, me = (double)self_cpu / 1e9;
	char rate[64], space[96], cover[512];

	if (r->o->period)
		snprintf(rate, sizeof(rate), "every %ld events", r->o->period);
	else
		snprintf(rate, sizeof(rate), "at %ld Hz", r->o->freq);
	if (!ty_record_user_only(r->rec))
		snprintf(space, sizeof(space), " (kernel included)");
	else if (ty_record_kernel_refused(r->rec))
		snprintf(space, sizeof(space), " (user space only: perf_event_paranoid is %d)",
			 ty_record_paranoid());
	else
		snprintf(space, sizeof(space), " (user space only)");
	if (p->meta.off_cpu) {
		size_t i, off = 0;
		for (i = 0; i < p->nsamples; i++)
			off += p->samples[i].state != TY_STATE_CPU;
		fprintf(stderr,
			"tachy record: %zu on-CPU samples%s%s and %zu off-CPU intervals%s%s, "
			"%llu lost; profiler CPU %.3f s = %.2f%% of the workload's %.3f s; "
			"wrote %s\n",
			p->nsamples - off, p->meta.off_cpu == TY_OFFCPU_WALL ? " " : "",
			p->meta.off_cpu == TY_OFFCPU_WALL ? rate : "", off,
			r->o->callchain ? " with call chains" : "", space,
			(unsigned long long)p->meta.lost, me, work > 0 ? 100 * me / work : 0, work,
			r->o->output);
		return;
	}
	fprintf(stderr,
		"tachy record: %zu samples of %s%s %s%s%s, %llu lost, %llu throttled; profiler "
		"CPU %.3f s = %.2f%% of the workload's %.3f s; wrote %s\n",
		p->nsamples, ty_record_event_name(r->rec),
		ty_record_fell_back(r->rec) ? " (no cycles event here)" : "", rate,
		r->o->callchain ? " with call chains" : "", space, (unsigned long long)p->meta.lost,
		(unsigned long long)p->meta.throttled, me, work > 0 ? 100 * me / work : 0, work,
		r->o->output);
	if (!r->o->pid && ty_profile_coverage(p, cover, sizeof(cover)) == 0)
		fprintf(stderr, "tachy record: %s\n", cover);
}

static int
finish(struct run *r, struct ty_error *err)
{
	struct ty_profile *p = ty_profile_new();
	size_t i;
	int ret;

	if (!p)
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_record_finish(r->rec, p, err) < 0) {
		ty_profile_free(p);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	for (i = 0; i < ty_symbols_nwarnings(r->syms); i++)
		if (!r->o->quiet)
			cli_warn("%s", ty_symbols_warning(r->syms, i));
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
				 (unsigned long long)p->meta.lost, r->o->pages * 4);
		if (p->meta.throttled)
			cli_warn(
			    "the kernel throttled sampling %llu times (perf_event_max_sample_rate "
			    "is %llu): lower -F",
			    (unsigned long long)p->meta.throttled,
			    (unsigned long long)ty_sampler_max_rate());
		summary(r, p, p->meta.profiler_cpu_ns);
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

/* The per-boot kernel symbol cache: $TACHY_CACHE_DIR ("" disables it),
 * else $XDG_CACHE_HOME/tachy, else $HOME/.cache/tachy; not in another
 * user's home (sudo keeping HOME), where root would leave root's files. */
static void
set_cache_dir(struct ty_symbols *s)
{
	const char *v = getenv("TACHY_CACHE_DIR");
	char dir[4096];
	struct stat st;
	int n = -1;

	if (v) {
		ty_symbols_set_cache_dir(s, v);
		return;
	}
	if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
		n = snprintf(dir, sizeof(dir), "%s/tachy", v);
	else if ((v = getenv("HOME")) && *v == '/' && stat(v, &st) == 0 && st.st_uid == geteuid())
		n = snprintf(dir, sizeof(dir), "%s/.cache/tachy", v);
	if (n > 0 && (size_t)n < sizeof(dir))
		ty_symbols_set_cache_dir(s, dir);
}

int cmd_record(int argc, char **argv);

static void
on_warning(const char *msg, void *arg)
{
	const struct opts *o = arg;

	if (!o->quiet)
		cli_warn("%s", msg);
}

int
cmd_record(int argc, char **argv)
{
	struct opts o;
	struct run r;
	struct ty_record_opts ro = {0};
	struct ty_error err = {0};
	const struct ty_exit *x;
	uint64_t max;
	int ret;

	if ((ret = parse_args(argc, argv, &o)) != 0)
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
		return cli_usage_error("-F %ld is above the kernel's limit of %llu samples per "
				       "second (/proc/sys/kernel/perf_event_max_sample_rate)",
				       o.freq, (unsigned long long)max);
	if (!(r.syms = ty_symbols_new()))
		return cli_error(EXIT_RUNTIME, "out of memory");
	set_cache_dir(r.syms);
	/* A bad -o fails now, not after a long recording. */
	if (ty_outfile_open(&r.out, o.output, &err) < 0) {
		ty_symbols_free(r.syms);
		return cli_error(EXIT_RUNTIME, "%s", err.msg);
	}
	r.out_open = 1;
	if (r.out.fd >= 0) /* the command need not inherit it */
		fcntl(r.out.fd, F_SETFD, FD_CLOEXEC);
	ro.explicit_event = o.event != NULL;
	ro.use_freq = o.period == 0;
	ro.rate = ro.use_freq ? (uint64_t)o.freq : (uint64_t)o.period;
	ro.callgraph = o.callchain ? TY_CG_FP : TY_CG_NONE;
	ro.user = o.user;
	ro.pid = (pid_t)o.pid;
	ro.argv = o.argv;
	ro.stdout_fd = !o.pid && profile_on_stdout(&r) ? STDERR_FILENO : -1;
	ro.same_group = !o.pid && !own_group();
	ro.mmap_pages = (unsigned)o.pages;
	ro.maps = o.proc_maps ? TY_MAPS_PROC : o.mmap_records ? TY_MAPS_MMAP_RECORDS : TY_MAPS_LAZY;
	ro.off_cpu = o.off_cpu;
	ro.warn = on_warning;
	ro.warn_arg = &o;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = ty_record_start(&r.rec, &ro, r.syms, &err);
	if (ret < 0)
		ret = cli_error(ret == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s", err.msg);
	else if (ty_record_wait(r.rec, &stop, &err) < 0)
		ret = cli_error(EXIT_RUNTIME, "%s", err.msg);
	else if ((x = ty_record_exit(r.rec)) && x->exec_errno)
		ret = cli_error(x->exec_errno == ENOENT ? EXIT_USAGE : EXIT_RUNTIME,
				"cannot run '%s': %s", o.argv[0], strerror(x->exec_errno));
	else
		ret = finish(&r, &err);
	if (ret == 0)
		ret = exit_status(&r);
	if (r.out_open)
		ty_outfile_abort(&r.out);
	ty_record_free(r.rec);
	ty_symbols_free(r.syms);
	return ret;
}

const struct cmd_info cmd_info_record = {"record", 50, "sample where a command spends its time",
					 cmd_record};
