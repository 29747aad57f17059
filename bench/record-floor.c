/* record-floor.c [-v] [-F HZ] [-g] [--stack N] [--pages N] -- COMMAND... -
 * the kernel's floor under `tachy record`: the sampling event tachy record
 * opens, opened the same way on the same command, and its rings drained
 * without a record read or decoded. What this costs the command is the
 * kernel's work for each sample (the timer, the sample written, the user
 * stack copied), which no recorder can save; bench/record-floor.sh puts
 * tachy record's cost against it.
 *
 * What is opened, as lib/record.c and lib/sampler.c open it for
 * `tachy record -F HZ [-g] -- COMMAND` as root (compare with
 * `strace -v -e perf_event_open`): cpu-clock at HZ (the frequency mode,
 * PERF_SAMPLE_PERIOD), sample_type IP|TID|TIME|CPU|PERIOD, with -g also
 * CALLCHAIN (the kernel's part only: exclude_callchain_user) and
 * REGS_USER 0xff01ff with STACK_USER N bytes (default 65528,
 * TY_RECORD_STACK_DEFAULT); comm, comm_exec, task records; inherit,
 * enable_on_exec on a child held until the events are open; one event and
 * one ring per CPU (2048 data pages with -g and a copy over 32 KiB, 1024
 * with a smaller copy, 128 without -g), the drainer woken at half the ring
 * without -g, every 32 stack copies with -g (as dwarf_wakeup). Left out:
 * tachy's mapping trackers and watchers (dummy events, mmap records for the
 * command's first 100 ms, fork/exit/comm records): tachy's, not the
 * sampling's. Needs perf_event_paranoid <= 1 or root (the kernel's part of
 * the samples, as tachy record takes it as root).
 *
 * -v prints, on stderr, the ring bytes the kernel wrote and the drainer's
 * wake-ups. The exit status is the command's (128 + N for a signal). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCPU 256

static void
usage(void)
{
	fprintf(stderr,
		"usage: record-floor [-v] [-F HZ] [-g] [--stack N] [--pages N] -- COMMAND...\n");
	exit(2);
}

static unsigned long
number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > 1000000000ul) {
		fprintf(stderr, "record-floor: not a positive number: %s\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg[MAXCPU];
	struct pollfd p[MAXCPU + 1];
	unsigned long hz = 999, stack = 65528, pages = 0;
	unsigned long long bytes = 0, wakes = 0;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), nring = 0, dwarf = 0, verbose = 0;
	int i, go[2], status = 0, pidfd, done = 0;
	size_t page = (size_t)getpagesize(), len;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-g"))
			dwarf = 1;
		else if (!strcmp(argv[i], "-F") && i + 1 < argc)
			hz = number(argv[++i]);
		else if (!strcmp(argv[i], "--stack") && i + 1 < argc)
			stack = number(argv[++i]);
		else if (!strcmp(argv[i], "--pages") && i + 1 < argc)
			pages = number(argv[++i]);
		else
			usage();
	}
	if (i + 1 >= argc || stack > 65528 || (stack & 7))
		usage();
	argv += i + 1;
	if (!pages)
		pages = !dwarf ? 128 : stack > 32768 ? 2048 : 1024;
	if (pages & (pages - 1)) {
		fprintf(stderr, "record-floor: --pages must be a power of two\n");
		return 2;
	}
	if (ncpu > MAXCPU)
		ncpu = MAXCPU;
	len = (pages + 1) * page;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(pages * page / 2);
	if (dwarf) {
		size_t div = pages * page / (stack * 32);

		a.sample_type |=
		    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = 0xff01ff; /* TY_UNWIND_REGS_MASK */
		a.sample_stack_user = (uint32_t)stack;
		a.exclude_callchain_user = 1;
		a.wakeup_watermark = (uint32_t)(pages * page / (div < 2 ? 2 : div));
	}
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.sample_id_all = 1;

	if (pipe(go) < 0)
		return 1;
	if ((pid = fork()) < 0) {
		perror("record-floor: fork");
		return 1;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1); /* the parent gave up */
		execvp(argv[0], argv);
		fprintf(stderr, "record-floor: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	for (i = 0; i < ncpu; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
		void *m;

		if (fd < 0 && (errno == ENODEV || errno == EINVAL) && i + 1 < ncpu)
			continue; /* an offline CPU */
		if (fd < 0 || (m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
				  MAP_FAILED) {
			fprintf(stderr, "record-floor: CPU %d: %s\n", i, strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 1;
		}
		pg[nring] = m;
		p[nring++] = (struct pollfd){fd, POLLIN, 0};
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	p[nring] = (struct pollfd){pidfd, POLLIN, 0};
	if (write(go[1], "x", 1) != 1)
		return 1;
	close(go[1]);
	while (!done) {
		int k = poll(p, (nfds_t)nring + 1, pidfd < 0 ? 100 : -1);

		if (k < 0 && errno != EINTR)
			break;
		wakes += k > 0;
		done = waitpid(pid, &status, WNOHANG) == pid;
		for (i = 0; i < nring; i++) { /* drained: nothing read */
			uint64_t head = __atomic_load_n(&pg[i]->data_head, __ATOMIC_ACQUIRE);

			bytes += head - pg[i]->data_tail;
			__atomic_store_n(&pg[i]->data_tail, head, __ATOMIC_RELEASE);
			if (p[i].revents & (POLLHUP | POLLERR))
				p[i].fd = -1; /* its task is gone: polled no more */
		}
	}
	if (verbose)
		fprintf(stderr, "record-floor: %llu ring bytes, %llu wake-ups\n", bytes, wakes);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
