/* t-sampler.c - decoding of the records the kernel writes into the rings. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tachy/sampler.h"

static const struct ty_sampler_layout layout = {
    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
    .sample_id_all = 1,
};

static size_t
put64(unsigned char *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
	return off + 8;
}

static size_t
put32x2(unsigned char *b, size_t off, uint32_t x, uint32_t y)
{
	memcpy(b + off, &x, 4);
	memcpy(b + off + 4, &y, 4);
	return off + 8;
}

static void
header(unsigned char *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = {type, misc, (uint16_t)size};
	memcpy(b, &h, sizeof(h));
}

static void
test_sample(void)
{
	unsigned char b[256];
	size_t o = 8;
	struct ty_sampler_rec r;

	o = put64(b, o, 0x401000);  /* ip */
	o = put32x2(b, o, 42, 43);  /* pid, tid */
	o = put64(b, o, 123456789); /* time */
	o = put32x2(b, o, 1, 0);    /* cpu */
	o = put64(b, o, 1001001);   /* period */
	o = put64(b, o, 4);	    /* nr */
	o = put64(b, o, (uint64_t)PERF_CONTEXT_USER);
	o = put64(b, o, 0x401000);
	o = put64(b, o, 0x402000);
	o = put64(b, o, 0x403000);
	header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_SAMPLE);
	CHECK_INT(r.ip, 0x401000);
	CHECK_INT(r.pid, 42);
	CHECK_INT(r.tid, 43);
	CHECK_INT(r.time, 123456789);
	CHECK_INT(r.cpu, 1);
	CHECK_INT(r.period, 1001001);
	CHECK_INT(r.nr, 3); /* the context marker is dropped */
	CHECK_INT(r.chain[0], 0x401000);
	CHECK_INT(r.chain[2], 0x403000);
	CHECK(r.user);
	/* A record claiming more chain than it holds is rejected. */
	put64(b, 8 + 40, 1000);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), -EINVAL);
	/* Shorter than its fixed fields. */
	header(b, PERF_RECORD_SAMPLE, 0, 24);
	CHECK_INT(ty_sampler_decode(b, 24, &layout, &r), -EINVAL);
	/* Size beyond the buffer. */
	header(b, PERF_RECORD_SAMPLE, 0, 200);
	CHECK_INT(ty_sampler_decode(b, 100, &layout, &r), -EINVAL);
}

static void
test_mmap2(void)
{
	unsigned char b[256];
	size_t o = 8;
	struct ty_sampler_rec r;

	memset(b, 0, sizeof(b));
	o = put32x2(b, o, 7, 7);
	o = put64(b, o, 0x7f0000000000);
	o = put64(b, o, 0x20000);
	o = put64(b, o, 0x1000);
	o += 32; /* maj, min, ino, ino_generation, prot, flags */
	memcpy(b + o, "/usr/lib/libx.so", 17);
	o += 24;
	o = put32x2(b, o, 7, 8); /* trailer: pid, tid */
	o = put64(b, o, 555);	 /* time */
	o = put32x2(b, o, 0, 0); /* cpu */
	header(b, PERF_RECORD_MMAP2, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_MMAP);
	CHECK_INT(r.start, 0x7f0000000000);
	CHECK_INT(r.len, 0x20000);
	CHECK_INT(r.pgoff, 0x1000);
	CHECK_STR(r.name, "/usr/lib/libx.so");
	CHECK_INT(r.time, 555);
	/* A name without its NUL is rejected. */
	memset(b + 8 + 64, 'x', o - 8 - 64);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), -EINVAL);
}

static void
test_others(void)
{
	unsigned char b[128];
	size_t o = 8;
	struct ty_sampler_rec r;

	o = put64(b, o, 99); /* id */
	o = put64(b, o, 17); /* lost */
	header(b, PERF_RECORD_LOST, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_LOST);
	CHECK_INT(r.lost, 17);
	o = 8;
	o = put32x2(b, o, 10, 5); /* pid, ppid */
	o = put32x2(b, o, 11, 5); /* tid, ptid */
	o = put64(b, o, 777);
	header(b, PERF_RECORD_FORK, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_FORK);
	CHECK_INT(r.pid, 10);
	CHECK_INT(r.ppid, 5);
	CHECK_INT(r.tid, 11);
	CHECK_INT(r.time, 777);
	o = 8;
	o = put64(b, o, 888);
	o = put64(b, o, 1);
	o = put64(b, o, 2);
	header(b, PERF_RECORD_THROTTLE, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_THROTTLE);
	header(b, 9999, 0, 16);
	CHECK_INT(ty_sampler_decode(b, 16, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_OTHER);
	CHECK(ty_sampler_max_rate() > 0);
}

/* PERF_RECORD_SWITCH: out or in, preempted or not, its thread, time and
 * CPU from the sample_id trailer; a sample's PERF_SAMPLE_IDENTIFIER. */
static void
test_switch(void)
{
	static const struct ty_sampler_layout id_layout = {
	    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	    .sample_id_all = 1,
	};
	unsigned char b[128];
	size_t o = 8;
	struct ty_sampler_rec r;

	o = put32x2(b, o, 40, 41); /* trailer: pid, tid */
	o = put64(b, o, 5000);	   /* time */
	o = put32x2(b, o, 1, 0);   /* cpu */
	header(b, PERF_RECORD_SWITCH,
	       PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_SWITCH);
	CHECK_INT(r.out, 1);
	CHECK_INT(r.preempt, 1);
	CHECK_INT(r.tid, 41);
	CHECK_INT(r.time, 5000);
	CHECK_INT(r.cpu, 1);
	header(b, PERF_RECORD_SWITCH, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &layout, &r), 0);
	CHECK_INT(r.out, 0);
	CHECK_INT(r.preempt, 0);
	o = 8;
	o = put64(b, o, 0xabc); /* identifier */
	o = put64(b, o, 0x1234);
	o = put32x2(b, o, 40, 41);
	o = put64(b, o, 6000);
	o = put32x2(b, o, 0, 0);
	o = put64(b, o, 1);
	header(b, PERF_RECORD_SAMPLE, 0, o);
	CHECK_INT(ty_sampler_decode(b, o, &id_layout, &r), 0);
	CHECK_INT(r.type, TY_SAMPLER_REC_SAMPLE);
	CHECK_INT(r.id, 0xabc);
	CHECK_INT(r.ip, 0x1234);
	CHECK_INT(r.time, 6000);
}

int
main(void)
{
	test_switch();
	test_sample();
	test_mmap2();
	test_others();
	return check_done();
}
