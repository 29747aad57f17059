/* system-floor.c - the kernel's own cost of `tachy record -a`: the same
 * sampling event on every online CPU (cpu-clock at HZ, frequency mode,
 * IP|TID|TIME|CPU|PERIOD, kernel included, mmap/comm/task records, the
 * same 128-page rings and half-ring wake-up as lib/sampler.c opens for
 * -a), for the life of a command; the rings are drained (data_tail moved
 * to data_head at each wake-up) without reading one record. What a
 * workload loses under it is what the kernel spends on the samples and
 * the records: no profiler can cost less (bench/record-system.sh part 3).
 *   cc -O2 -Iinclude -o system-floor bench/system-floor.c build/std/libtachy.a -lm -pthread
 *   ./system-floor HZ CMD [ARG]...   (root, or perf_event_paranoid <= 0) */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tachy/perfevent.h"

#define PAGES 128 /* lib/sampler.c's default ring: 128 data pages */
#define MAXCPU 1024

int
main(int argc, char **argv)
{
	static struct pollfd pfd[MAXCPU];
	static void *ring[MAXCPU];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(PAGES + 1) * (size_t)page;
	struct perf_event_attr a;
	unsigned long long wakes = 0;
	int n = 0, c, st;
	pid_t pid;

	if (argc < 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: system-floor HZ CMD [ARG]...\n");
		return 2;
	}
	if (ncpu < 1 || ncpu > MAXCPU)
		ncpu = ncpu < 1 ? 1 : MAXCPU;
	ty_perfevent_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.freq = 1;
	a.sample_freq = (uint64_t)atoi(argv[1]);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(PAGES * (size_t)page / 2);
	for (c = 0; c < ncpu; c++) {
		int fd = ty_perfevent_open(&a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (fd == -ENODEV || fd == -EINVAL) /* an offline CPU */
				continue;
			fprintf(stderr, "system-floor: cpu %d: %s\n", c, strerror(-fd));
			return 1;
		}
		ring[n] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring[n] == MAP_FAILED) {
			perror("system-floor: mmap");
			return 1;
		}
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		n++;
	}
	pid = fork();
	if (pid < 0) {
		perror("system-floor: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("system-floor: exec");
		_exit(127);
	}
	for (c = 0; c < n; c++)
		ioctl(pfd[c].fd, PERF_EVENT_IOC_ENABLE, 0);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (poll(pfd, (nfds_t)n, 100) < 0 && errno != EINTR) {
			perror("system-floor: poll");
			return 1;
		}
		for (c = 0; c < n; c++) {
			struct perf_event_mmap_page *m = ring[c];
			uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
			if (head != m->data_tail) {
				__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
				wakes++;
			}
		}
	}
	fprintf(stderr, "system-floor: %d CPUs at %s Hz, %llu drains\n", n, argv[1], wakes);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
