/* switchcost.c MODE -- COMMAND... - what the kernel alone costs a workload
 * per context switch for each piece of what record --off-cpu asks of it:
 * the events of MODE are opened on COMMAND (held until they are, inherited
 * by its threads, one ring per CPU drained by this process, which looks at
 * nothing but the record sizes). MODE is a comma-separated list of:
 *   switch   PERF_RECORD_SWITCH records (on a dummy event unless cs is given)
 *   cs       a context-switches sample at every switch-out (IP TID TIME CPU)
 *   kchain   its kernel call chain     uchain   its user chain (frame pointers)
 *   stack=N  user registers and N bytes of user stack
 *   max=N    at most N frames in the chain (sample_max_stack)
 *   period=N a sample at every Nth switch-out (default 1)
 *   freq=N   about N samples a second a thread (the kernel adapts the
 *            period; with PERF_SAMPLE_PERIOD, which a fixed period > 1 drops)
 *   idle     and beside it a context-switches event with a kernel chain and
 *            a 2048-byte stack copy, never enabled (what record --off-cpu -g
 *            costs while its chains are off)
 *   wm=N     wake the drainer every N bytes (default: half the ring)
 * It prints the records, bytes, wake-ups and the command's CPU time on
 * stderr. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGES 512

int
main(int argc, char **argv)
{
	struct perf_event_attr a;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), i, go[2], status;
	int cs = 0, sw = 0, kc = 0, uc = 0, fds[64];
	unsigned stack = 0, wm = 0, maxstack = 0, period = 1, freq = 0;
	int idle = 0;
	struct perf_event_mmap_page *pg[64];
	size_t page = (size_t)getpagesize(), len = (PAGES + 1) * page;
	unsigned long long recs = 0, bytes = 0, wakes = 0;
	char *m, *tok, mode[256];
	pid_t pid;
	struct rusage ru;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: switchcost MODE -- COMMAND...\n");
		return 2;
	}
	snprintf(mode, sizeof(mode), "%s", argv[1]);
	for (m = mode; (tok = strsep(&m, ","));) {
		if (!strcmp(tok, "cs"))
			cs = 1;
		else if (!strcmp(tok, "switch"))
			sw = 1;
		else if (!strcmp(tok, "kchain"))
			kc = 1;
		else if (!strcmp(tok, "uchain"))
			uc = 1;
		else if (!strncmp(tok, "stack=", 6))
			stack = (unsigned)atoi(tok + 6);
		else if (!strncmp(tok, "max=", 4))
			maxstack = (unsigned)atoi(tok + 4);
		else if (!strncmp(tok, "period=", 7))
			period = (unsigned)atoi(tok + 7);
		else if (!strncmp(tok, "freq=", 5))
			freq = (unsigned)atoi(tok + 5);
		else if (!strcmp(tok, "idle"))
			idle = 1;
		else if (!strcmp(tok, "idlemig")) /* the same, a CPU-migrations event */
			idle = 2;
		else if (!strncmp(tok, "wm=", 3))
			wm = (unsigned)atoi(tok + 3);
		else if (strcmp(tok, "none")) {
			fprintf(stderr, "switchcost: unknown mode %s\n", tok);
			return 2;
		}
	}
	if (pipe(go) < 0)
		return 1;
	if ((pid = fork()) == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(go[0]);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = cs ? PERF_COUNT_SW_CONTEXT_SWITCHES : PERF_COUNT_SW_DUMMY;
	a.sample_period = freq ? freq : period; /* union with sample_freq */
	a.freq = freq > 0;
	/* With PERF_SAMPLE_PERIOD in a software event's sample_type (and no
	 * frequency) the kernel samples every event, whatever the period. */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			(period == 1 || freq ? PERF_SAMPLE_PERIOD : 0) | PERF_SAMPLE_IDENTIFIER;
	if (kc || uc)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_user = !uc;
	a.exclude_callchain_kernel = !kc;
	if (stack) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = 0xff0fff; /* ax..ip, r8..r15 */
		a.sample_stack_user = stack;
	}
	a.sample_max_stack = (uint16_t)maxstack;
	a.context_switch = sw;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.comm = a.task = 1;
	a.watermark = 1;
	a.wakeup_watermark = wm ? wm : (unsigned)(PAGES * page / 2);
	for (i = 0; i < ncpu && i < 64; i++) {
		fds[i] = (int)syscall(SYS_perf_event_open, &a, pid, i, -1, 0);
		if (fds[i] < 0 || (pg[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
						fds[i], 0)) == MAP_FAILED) {
			perror("switchcost: perf_event_open");
			kill(pid, SIGKILL);
			return 1;
		}
		if (idle) {
			struct perf_event_attr b = a;
			int fd;
			b.config = idle == 2 ? PERF_COUNT_SW_CPU_MIGRATIONS
					     : PERF_COUNT_SW_CONTEXT_SWITCHES;
			b.sample_period = 1;
			b.freq = 0;
			b.sample_type |= PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
					 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			b.exclude_callchain_kernel = 0;
			b.exclude_callchain_user = 1;
			b.sample_regs_user = 0xff0fff;
			b.sample_stack_user = 2048;
			b.context_switch = b.comm = b.task = 0;
			b.enable_on_exec = 0;
			fd = (int)syscall(SYS_perf_event_open, &b, pid, i, -1, 0);
			if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fds[i]) < 0) {
				perror("switchcost: perf_event_open (idle)");
				kill(pid, SIGKILL);
				return 1;
			}
		}
	}
	if (write(go[1], "x", 1) != 1)
		return 1;
	for (;;) {
		struct pollfd p[64];
		int done = wait4(pid, &status, WNOHANG, &ru) == pid;
		for (i = 0; i < ncpu; i++)
			p[i] = (struct pollfd){fds[i], POLLIN, 0};
		if (!done && poll(p, (nfds_t)ncpu, 100) > 0)
			wakes++;
		for (i = 0; i < ncpu; i++) { /* walk the records: their sizes only */
			uint64_t head = __atomic_load_n(&pg[i]->data_head, __ATOMIC_ACQUIRE);
			uint64_t tail = pg[i]->data_tail;
			unsigned char *data = (unsigned char *)pg[i] + page;
			while (tail < head) {
				struct perf_event_header h;
				size_t off = tail & (PAGES * page - 1);
				if (off + sizeof(h) > PAGES * page)
					break; /* a header across the end: stop counting */
				memcpy(&h, data + off, sizeof(h));
				if (h.size == 0)
					break;
				tail += h.size, recs++, bytes += h.size;
			}
			__atomic_store_n(&pg[i]->data_tail, head, __ATOMIC_RELEASE);
		}
		if (done)
			break;
	}
	fprintf(stderr,
		"switchcost %s: %llu records, %llu bytes, %llu wake-ups; command CPU %.3f s\n",
		argv[1], recs, bytes, wakes,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
