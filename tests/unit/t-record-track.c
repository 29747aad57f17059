/* t-record-track.c - the recorder's mapping tracking on this process:
 * every thread listed once (a second thread blocked on a pipe, no sleep),
 * a sample outside the mappings known makes the next look read
 * /proc/self/maps (then its address is covered), a kernel-only sample
 * asks for nothing, and the proc_maps tick reads the maps of the process
 * attached to. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "tachy/record-track.h"

struct taken {
	long tid[8];
	int n, calls;
};

static int
take(void *arg, long tid)
{
	struct taken *t = arg;
	int i;

	t->calls++;
	for (i = 0; i < t->n; i++)
		if (t->tid[i] == tid)
			return 0;
	if (t->n < 8)
		t->tid[t->n++] = tid;
	return 1;
}

static int up[2],
    down[2]; /* thread -> main, main -> thread: a pipe each, so neither reads its own byte */
static long other_tid;

static void *
blocked(void *arg)
{
	char c;

	(void)arg;
	other_tid = (long)syscall(SYS_gettid);
	if (write(up[1], "r", 1) != 1) /* "running": its tid is set */
		return NULL;
	if (read(down[0], &c, 1) != 1) /* until main lets it go */
		return NULL;
	return NULL;
}

static void
test_each_thread(void)
{
	struct taken t = {{0}, 0, 0};
	pthread_t th;
	char c;
	int ok;

	CHECK_INT(pipe(up), 0);
	CHECK_INT(pipe(down), 0);
	CHECK_INT(pthread_create(&th, NULL, blocked, NULL), 0);
	CHECK(read(up[0], &c, 1) == 1);
	ty_record_track_each_thread((long)getpid(), take, &t);
	CHECK_INT(t.n, 2);
	ok = (t.tid[0] == getpid() && t.tid[1] == other_tid) ||
	     (t.tid[1] == getpid() && t.tid[0] == other_tid);
	CHECK(ok);
	CHECK_INT(t.calls, 4); /* a second list took none */
	CHECK(write(down[1], "g", 1) == 1);
	pthread_join(th, NULL);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	t.n = t.calls = 0;
	ty_record_track_each_thread(999999999L, take, &t); /* no such process */
	CHECK_INT(t.calls, 0);
}

static void
test_reread(void)
{
	struct ty_record_track m;
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_sampler_rec r;
	uint64_t kchain[2] = {0xffffffff81000100ull, 0xffffffff81000200ull};
	uint32_t pid = (uint32_t)getpid();
	uint64_t ip = (uint64_t)(uintptr_t)&test_reread;

	memset(&m, 0, sizeof(m));
	m.syms = syms;
	m.lazy = 1;
	memset(&r, 0, offsetof(struct ty_sampler_rec, chainbuf));
	r.type = TY_SAMPLER_REC_SAMPLE;
	r.pid = r.tid = pid;
	r.user = 0, r.nr = 2, r.chain = kchain; /* the kernel's only: nothing to look up */
	ty_record_track_sample(&m, &r);
	CHECK_INT(m.nrr, 0);
	CHECK_INT(ty_symbols_covers(syms, pid, ip), 0);
	r.user = 1, r.ip = ip, r.nr = 0, r.chain = NULL;
	ty_record_track_sample(&m, &r);
	CHECK_INT(m.nrr, 1);
	ty_record_track_reread(&m);
	CHECK_INT(ty_symbols_covers(syms, pid, ip), 1);
	ty_record_track_sample(&m, &r); /* covered now: the same entry, nothing due */
	CHECK_INT(m.nrr, 1);
	ty_record_track_release(&m);
	CHECK_INT(m.nrr, 0);
	ty_symbols_free(syms);
	/* --proc-maps: the process attached to, at the first tick */
	syms = ty_symbols_new();
	memset(&m, 0, sizeof(m));
	m.syms = syms;
	m.proc_maps = 1;
	m.pid = (pid_t)pid;
	m.c = ty_collector_new(syms);
	CHECK(m.c != NULL);
	ty_record_track_tick(&m);
	CHECK_INT(ty_symbols_covers(syms, pid, ip), 1);
	CHECK(m.maps_at != 0);
	ty_collector_free(m.c);
	ty_record_track_release(&m);
	ty_symbols_free(syms);
}

int
main(void)
{
	test_each_thread();
	test_reread();
	return check_done();
}
