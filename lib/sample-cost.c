/* sample-cost.c - the kernel's work per sample, measured on our own thread. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/perfevent.h"
#include "tachy/sample-cost.h"
#include "tachy/sampler.h"

#define COST_PAGES 256	/* 1 MiB of ring: 40 samples with an 8 KiB stack copy... */
#define COST_HZ 10000	/* ...between two reads, a read every 2.5 ms */
#define COST_SAMPLES 25 /* a round's samples at most: a 2.5 ms loop at COST_HZ */
#define COST_ROUNDS 3
#define COST_CHUNKS 10 /* the ring read 10 times a round: a 64 KiB stack copy fills it fast */

static volatile unsigned long sink;

static void
spin(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i;
}

/* The samples in the ring since *TAIL, consumed. */
static uint64_t
count_samples(struct perf_event_mmap_page *m, size_t size, uint64_t *tail)
{
	const unsigned char *data = (const unsigned char *)m + m->data_offset;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), n = 0;

	while (*tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t at = (size_t)(*tail % size), k;
		for (k = 0; k < sizeof(h); k++) /* may wrap */
			((unsigned char *)&h)[k] = data[(at + k) % size];
		if (h.size < sizeof(h))
			break;
		n += h.type == PERF_RECORD_SAMPLE;
		*tail += h.size;
	}
	__atomic_store_n(&m->data_tail, *tail, __ATOMIC_RELEASE);
	return n;
}

int
ty_sample_cost(const struct ty_sample_cost_opts *o, double *ns, struct ty_error *e)
{
	struct perf_event_attr a;
	size_t page = (size_t)getpagesize(), size = COST_PAGES * page;
	struct perf_event_mmap_page *m;
	double off = -1, on = -1, per_loop, want, loop_ns;
	unsigned long n = 100000;
	uint64_t t0, hz, tail = 0;
	int round, fd, k;

	*ns = 0;
	hz = ty_sampler_max_rate();
	hz = hz && hz < COST_HZ ? hz : COST_HZ;
	/* a round's samples: COST_SAMPLES, or as few as the recording took
	 * (4 at least): a recording of 4 samples is not worth 18 ms of
	 * calibration, and an error on 4 samples' cost is nothing stated */
	want = o->samples && o->samples < COST_SAMPLES ? (double)o->samples : COST_SAMPLES;
	if (want < 4)
		want = 4;
	/* the loop's length: WANT samples at COST_HZ, or 10 samples (WANT if
	 * fewer) where the kernel has lowered the rate it allows */
	loop_ns = want * 1e9 / COST_HZ;
	if ((want < 10 ? want : 10) * 1e9 / (double)hz > loop_ns)
		loop_ns = (want < 10 ? want : 10) * 1e9 / (double)hz;
	t0 = ty_clock_thread_ns();
	spin(n);
	per_loop = (double)(ty_clock_thread_ns() - t0);
	if (per_loop > 0)
		n = (unsigned long)((double)n * loop_ns / per_loop) + 1;
	ty_perfevent_attr_init(&a, o->type, o->config);
	a.disabled = 1;
	a.freq = 1;
	a.sample_freq = hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	if (o->callchain)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->regs_user) {
		a.sample_type |= PERF_SAMPLE_REGS_USER;
		a.sample_regs_user = o->regs_user;
	}
	if (o->stack_user) {
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = o->stack_user;
	}
	if (o->callchain && o->stack_user)
		a.exclude_callchain_user = 1;
	a.exclude_kernel = o->exclude_kernel ? 1 : 0;
	a.exclude_hv = 1;
	a.wakeup_events = 1u << 30; /* nobody polls it */
	if ((fd = ty_perfevent_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) < 0)
		return ty_error_set(e, -errno, "cannot measure a sample's cost: %s",
				    strerror(errno));
	/* smaller where the locked-memory limit (the user's, shared with the
	 * recording's rings and other tools') leaves less room */
	while ((m = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
		   MAP_FAILED &&
	       (errno == EPERM || errno == ENOMEM) && size > 16 * page)
		size /= 4;
	if (m == MAP_FAILED) {
		int err = errno;
		close(fd);
		return ty_error_set(e, -err, "cannot measure a sample's cost: %s", strerror(err));
	}
	for (round = 0; round < COST_ROUNDS; round++) {
		uint64_t s, t1, taken;
		double d;

		t0 = ty_clock_thread_ns();
		for (k = 0; k < COST_CHUNKS; k++) {
			spin(n / COST_CHUNKS);
			count_samples(m, size, &tail);
		}
		d = (double)(ty_clock_thread_ns() - t0);
		if (off < 0 || d < off)
			off = d;
		count_samples(m, size, &tail);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t0 = ty_clock_thread_ns();
		for (k = 0, taken = 0; k < COST_CHUNKS; k++) { /* the ring read between */
			spin(n / COST_CHUNKS);
			taken += count_samples(m, size, &tail);
		}
		t1 = ty_clock_thread_ns();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		taken += count_samples(m, size, &tail);
		s = taken ? taken : 1;
		d = (double)(t1 - t0);
		if (taken && (on < 0 || d - off < on * (double)s))
			on = (d - off) / (double)s;
	}
	munmap(m, size + page);
	close(fd);
	if (on < 0)
		return ty_error_set(e, -EIO, "cannot measure a sample's cost: no sample taken");
	/* a sampled round as fast as the least unsampled: measured, and too
	 * small to see (1 ps, not 0, which says "not measured") */
	*ns = on > 0.001 ? on : 0.001;
	return 0;
}
