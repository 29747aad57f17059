/* t-runprof-spill.c - a sampler's records copied out of its rings while
 * the sampled process runs (lib/runprof-spill.c): a child spinning for
 * 0.2 s of CPU at 1000 Hz with 8 KiB stack copies gives about 200 samples
 * to rings that hold 30: more than 30 come back only if the thread drained
 * the rings while the child ran. Each comes back whole (its registers, its
 * stack copy, its name for the COMM record). */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "tachy/runprof-spill.h"
#include "tachy/sampler.h"
#include "tachy/unwind.h"

#define STACK 8192
#define REG_SP 7 /* PERF_REG_X86_SP */
#define PAGES 64 /* 256 KiB: 30 samples of 8 KiB */

struct seen {
	pid_t pid;
	long samples, with_stack, bad, named;
};

static void
on_rec(const struct ty_sampler_rec *r, void *arg)
{
	struct seen *s = arg;

	if (r->type == TY_SAMPLER_REC_COMM && r->name && strcmp(r->name, "spillchild") == 0)
		s->named++;
	if (r->type != TY_SAMPLER_REC_SAMPLE)
		return;
	s->samples++;
	if ((pid_t)r->pid != s->pid || !r->regs_abi || r->regs[REG_SP] == 0)
		s->bad++;
	if (r->stack && r->stack_dyn > 0 && r->stack_dyn <= STACK && r->stack_size == STACK)
		s->with_stack++;
}

static void
child(int fd)
{
	struct timespec ts;
	volatile unsigned long x = 0;
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(1);
	prctl(PR_SET_NAME, "spillchild");
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec == 0 && ts.tv_nsec < 200000000);
	_exit(0);
}

int
main(void)
{
	struct ty_runprof_spill *sp = ty_runprof_spill_new();
	struct ty_sampler_opts so = {0};
	struct ty_sampler *s = NULL;
	struct ty_error e;
	struct seen seen = {0};
	double cpu_ms = -1;
	int fds[2], st, ret;
	pid_t pid;

#if !defined(__x86_64__)
	printf("# skipped: the registers checked are x86-64's\n");
	return check_done();
#endif
	CHECK(sp != NULL);
	/* nothing started: stopping and replaying are harmless */
	CHECK_INT(ty_runprof_spill_stop(sp, NULL, NULL), 0);
	CHECK_INT(ty_runprof_spill_replay(sp, on_rec, &seen), 0);
	if (pipe(fds) < 0)
		return 1;
	if ((pid = fork()) == 0) {
		close(fds[1]);
		child(fds[0]);
	}
	close(fds[0]);
	so.type = PERF_TYPE_SOFTWARE;
	so.config = PERF_COUNT_SW_CPU_CLOCK;
	so.use_freq = 1;
	so.rate = 1000;
	so.callchain = 1;
	so.regs_user = TY_UNWIND_REGS_MASK;
	so.stack_user = STACK;
	so.exclude_kernel = 1;
	so.pid = pid;
	so.mmap_pages = PAGES;
	so.wakeup_div = 4;
	ret = ty_sampler_open(&s, &so, &e);
	if (ret < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ty_runprof_spill_free(sp);
		printf("# skipped the sampling checks: no perf events here (%d)\n", ret);
		return check_done();
	}
	CHECK_INT(ty_runprof_spill_start(sp, s, &e), 0);
	CHECK_INT(ty_sampler_enable(s, &e), 0);
	CHECK(write(fds[1], "g", 1) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_INT(ty_runprof_spill_stop(sp, &cpu_ms, &e), 0);
	CHECK(cpu_ms >= 0);
	CHECK(ty_runprof_spill_bytes(sp) > 30 * STACK);
	seen.pid = pid;
	CHECK(ty_runprof_spill_replay(sp, on_rec, &seen) > 30);
	printf("# %ld samples, %ld with a stack copy, %.2f ms of the thread's CPU\n", seen.samples,
	       seen.with_stack, cpu_ms);
	CHECK(seen.samples > 30); /* the rings hold 30: the thread drained them */
	CHECK_INT(seen.with_stack, seen.samples);
	CHECK_INT(seen.bad, 0);
	CHECK_INT(seen.named, 1);
	/* a second run forgets the first's records */
	CHECK_INT(ty_runprof_spill_start(sp, s, &e), 0);
	CHECK_INT(ty_runprof_spill_stop(sp, NULL, &e), 0);
	memset(&seen, 0, sizeof(seen));
	CHECK_INT(ty_runprof_spill_replay(sp, on_rec, &seen), 0);
	ty_runprof_spill_free(sp);
	ty_sampler_free(s);
	close(fds[1]);
	return check_done();
}
