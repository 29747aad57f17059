/* sample-cost.c - the kernel's work per sample, measured on our own thread. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/perfevent.h"
#include "tachy/sample-cost.h"
#include "tachy/sampler.h"

#define COST_PAGES 256 /* 1 MiB of ring: 40 samples with an 8 KiB stack copy... */
#define COST_HZ 10000  /* ...between two reads of the ring */
#define COST_CHUNK 30  /* a chunk of the loop: 30 samples' time (3 ms at COST_HZ)... */
#define COST_PAIRS 10  /* ...sampled and not, 10 times each, alternating */
#define COST_ALL 300   /* samples measured at most: fewer where the recording took fewer */
#define COST_SETTLE 3  /* chunks sampled first, not timed: the rate settles */
#define COST_READS 4   /* the ring read 4 times a chunk: a 64 KiB stack copy fills it fast */

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

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int
ty_sample_cost(const struct ty_sample_cost_opts *o, double *ns, struct ty_error *e)
{
	struct perf_event_attr a;
	size_t page = (size_t)getpagesize(), size = COST_PAGES * page;
	struct perf_event_mmap_page *m;
	double off[COST_PAIRS], on[COST_PAIRS], per_loop, taken = 0;
	unsigned long n = 100000;
	uint64_t t0, hz, tail = 0, want, chunk;
	int k, fd, pairs;

	*ns = 0;
	hz = ty_sampler_max_rate();
	hz = hz && hz < COST_HZ ? hz : COST_HZ;
	/* as many samples as the recording took, COST_ALL at most: a
	 * recording of 4 samples is not worth 80 ms of calibration, and an
	 * error on their cost is nothing in what is stated; 3 pairs of 5
	 * samples at least */
	want = o->samples && o->samples < COST_ALL ? o->samples : COST_ALL;
	pairs = want >= COST_ALL ? COST_PAIRS : want >= 90 ? 5 : 3;
	chunk = want / (uint64_t)pairs;
	chunk = chunk < 5 ? 5 : chunk > COST_CHUNK ? COST_CHUNK : chunk;
	/* a chunk's length: CHUNK samples' time at the rate allowed */
	t0 = ty_clock_thread_ns();
	spin(n);
	per_loop = (double)(ty_clock_thread_ns() - t0);
	if (per_loop > 0)
		n = (unsigned long)((double)n * ((double)chunk * 1e9 / (double)hz) / per_loop) + 1;
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
	/* The rate settled first (in frequency mode the kernel starts from a
	 * period of 1 and samples in a burst while it adjusts: those samples
	 * are not what a recording's pay), then chunks with the event on and
	 * off in turn: a chunk's median, not the least, for each (the least
	 * sampled chunk is one that took fewer samples or ran in a lucky
	 * moment, and read up to 8x low on a loaded VM), their difference over the
	 * median count of samples a sampled chunk took. A host's or
	 * scheduler's pause falls in a few chunks of either kind, not in the
	 * medians. */
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(n * COST_SETTLE);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	count_samples(m, size, &tail);
	{
		double cnt[COST_PAIRS];
		for (k = 0; k < 2 * pairs; k++) {
			uint64_t t1;
			int j, i = k / 2, sampled = (k % 2) ^ (i % 2); /* on-off, off-on, ... */
			if (sampled)
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			cnt[i] = 0;
			t0 = ty_clock_thread_ns();
			for (j = 0; j < COST_READS; j++) { /* the same reads unsampled */
				spin(n / COST_READS);
				cnt[i] += (double)count_samples(m, size, &tail);
			}
			t1 = ty_clock_thread_ns();
			if (sampled) {
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				on[i] = (double)(t1 - t0);
				cnt[i] += (double)count_samples(m, size, &tail);
				taken += cnt[i];
			} else {
				off[i] = (double)(t1 - t0);
			}
		}
		munmap(m, size + page);
		close(fd);
		if (!taken)
			return ty_error_set(e, -EIO,
					    "cannot measure a sample's cost: no sample taken");
		taken = median(cnt, (size_t)pairs);
	}
	*ns = taken > 0 ? (median(on, (size_t)pairs) - median(off, (size_t)pairs)) / taken : 0;
	/* a sampled chunk as fast as an unsampled one: measured, and too
	 * small to see (1 ps, not 0, which says "not measured") */
	if (*ns < 0.001)
		*ns = 0.001;
	return 0;
}
