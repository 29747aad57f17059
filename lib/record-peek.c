/* record-peek.c - call chains of blocked threads read from /proc while they
 * wait (see record-peek.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/record-peek.h"

#define PAGE 4096u
#define REG_SP 7 /* PERF_REG_X86_SP: the unwinder is x86-64's (unwind.h) */
#define REG_IP 8 /* PERF_REG_X86_IP */

int
ty_record_peek_init(struct ty_record_peek *pk, uint64_t hz, uint32_t stack_size, uint64_t now)
{
	memset(pk, 0, sizeof(*pk));
	pk->hz = hz;
	pk->stack_size = stack_size ? stack_size : 2048;
	pk->next_ns = now + TY_RECORD_PEEK_NS;
	pk->filled_ns = now;
	pk->tokens = hz ? (double)(hz / 4 ? hz / 4 : 1) : 0;
	if (!(pk->stack = malloc(pk->stack_size)))
		return -ENOMEM;
	return 0;
}

void
ty_record_peek_free(struct ty_record_peek *pk)
{
	free(pk->stack);
	pk->stack = NULL;
}

/* Read the small file /proc/PID/task/TID/NAME into BUF: its length, or
 * -errno. */
static ssize_t
read_task(uint32_t pid, uint32_t tid, const char *name, char *buf, size_t size)
{
	char path[80];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/%s", pid, tid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The thread's count of runs on a CPU (schedstat's third field), or -1. */
static int64_t
runs(uint32_t pid, uint32_t tid)
{
	char buf[128];
	unsigned long long a, b, c;

	if (read_task(pid, tid, "schedstat", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	return (int64_t)(c & INT64_MAX);
}

/* The stack and instruction pointers of a thread blocked in a system call
 * or a fault, from its syscall file (LINE keeps the whole line): 0, 1 when
 * it runs (or is runnable), or -errno. */
static int
blocked_at(uint32_t pid, uint32_t tid, char *line, size_t size, uint64_t *sp, uint64_t *pc)
{
	ssize_t n = read_task(pid, tid, "syscall", line, size);
	char *last, *prev;

	if (n < 0)
		return (int)n;
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n == 0 || strncmp(line, "running", 7) == 0)
		return 1;
	/* "NR ARG1..ARG6 SP PC" in a system call, "-1 SP PC" in a fault */
	if (!(last = strrchr(line, ' ')))
		return -EINVAL;
	*last = '\0';
	prev = strrchr(line, ' ');
	*last = ' ';
	if (!prev)
		return -EINVAL;
	if (sscanf(prev + 1, "%" SCNx64 " %" SCNx64, sp, pc) != 2 || !*sp || !*pc)
		return -EINVAL;
	return 0;
}

/* Copy [SP, SP + size) of PID into pk->stack a page at a time, so that
 * the end of the stack's mapping ends the copy there: the bytes copied, or
 * -errno. */
static ssize_t
copy_stack(struct ty_record_peek *pk, uint32_t pid, uint64_t sp)
{
	struct iovec local = {pk->stack, pk->stack_size}, remote[64];
	uint64_t at = sp, end = sp + pk->stack_size;
	unsigned long k = 0;
	ssize_t n;

	while (at < end && k < 64) {
		uint64_t next = (at / PAGE + 1) * PAGE;
		if (next > end)
			next = end;
		remote[k].iov_base = (void *)(uintptr_t)at;
		remote[k++].iov_len = (size_t)(next - at);
		at = next;
	}
	local.iov_len = (size_t)(at - sp);
	n = process_vm_readv((pid_t)pid, &local, 1, remote, k, 0);
	return n < 0 ? -errno : n;
}

/* Read thread TID if it is off the CPU (/proc/TID is its process's, for a
 * thread too): 1 when its state went to FN, 0 when not, -errno when the
 * kernel forbids it. */
static int
peek_thread(struct ty_record_peek *pk, struct ty_collector *c, uint32_t tid, ty_record_peek_fn fn,
	    void *arg)
{
	char line[256], again[256];
	uint64_t sp, pc, sp2, pc2, t;
	uint32_t pid = tid;
	int64_t r0 = runs(pid, tid), r1;
	ssize_t got;
	int ret;

	if ((ret = blocked_at(pid, tid, line, sizeof(line), &sp, &pc)) != 0)
		return ret == -EACCES || ret == -EPERM ? ret : 0;
	t = ty_clock_now_ns(); /* off the CPU now, as from the read on */
	if ((got = copy_stack(pk, pid, sp)) <= 0)
		return got == -EPERM || got == -EACCES ? (int)got : 0;
	/* the thread must not have run meanwhile: the copy is of the same
	 * wait (the same count of runs, and the same system call) */
	if (blocked_at(pid, tid, again, sizeof(again), &sp2, &pc2) != 0 ||
	    strcmp(line, again) != 0 || (r1 = runs(pid, tid)) != r0)
		return 0;
	memset(&pk->rec, 0, offsetof(struct ty_sampler_rec, chainbuf));
	pk->rec.type = TY_SAMPLER_REC_SWITCH_SAMPLE;
	pk->rec.pid = ty_collector_pid_of(c, tid);
	pk->rec.tid = tid;
	pk->rec.time = t;
	pk->rec.ip = pc;
	pk->rec.user = 1;
	pk->rec.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	pk->rec.regs[REG_SP] = sp;
	pk->rec.regs[REG_IP] = pc;
	pk->rec.stack = pk->stack;
	pk->rec.stack_size = pk->stack_size;
	pk->rec.stack_dyn = (uint64_t)got;
	fn(&pk->rec, (1ull << REG_SP) | (1ull << REG_IP), arg);
	pk->reads++;
	return 1;
}

void
ty_record_peek_look(struct ty_record_peek *pk, struct ty_collector *c, uint64_t now,
		    ty_record_peek_fn fn, void *arg)
{
	size_t i, n;

	if (pk->denied || now < pk->next_ns)
		return;
	pk->next_ns = now + TY_RECORD_PEEK_NS;
	pk->looks++;
	if (pk->hz) {
		double cap = (double)(pk->hz / 4 ? pk->hz / 4 : 1);
		pk->tokens += (double)(now - pk->filled_ns) * (double)pk->hz / 1e9;
		if (pk->tokens > cap)
			pk->tokens = cap;
		pk->filled_ns = now;
	}
	n = ty_collector_off_cpu(c, pk->tids, TY_RECORD_PEEK_MAX);
	for (i = 0; i < n && (!pk->hz || pk->tokens >= 1); i++) {
		int ret = peek_thread(pk, c, pk->tids[i], fn, arg);
		if (ret < 0 && !pk->reads) { /* never allowed: stop looking */
			pk->denied = ret;
			return;
		}
		if (ret > 0 && pk->hz)
			pk->tokens -= 1;
	}
}
