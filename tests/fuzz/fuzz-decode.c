/* fuzz-decode.c - libFuzzer target for ty_sampler_decode, the reader of the
 * records the kernel writes into a perf_event ring. The first 8 bytes pick
 * the layout (which of the sampler's sample_type bits, sample_id_all, the
 * user registers), the rest is one record, its header's size set to the
 * bytes there are. A record is decoded or refused, never read beyond its
 * end: what it points to (the chain, a name, the stack copy) lies within. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/sampler-decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
within(const void *p, size_t n, const unsigned char *buf, size_t len)
{
	const unsigned char *q = p;
	return q >= buf && q <= buf + len && n <= (size_t)(buf + len - q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t bits[] = {PERF_SAMPLE_PERIOD, PERF_SAMPLE_CALLCHAIN,
					PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
					PERF_SAMPLE_IDENTIFIER};
	struct ty_sampler_layout l = {0};
	struct ty_sampler_rec *r;
	struct perf_event_header h;
	unsigned char *rec;
	size_t len, i;

	if (size < 8 + sizeof(h) || size - 8 > 65535)
		return 0;
	l.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	for (i = 0; i < 4; i++)
		if (data[0] & (1u << i))
			l.sample_type |= bits[i];
	l.sample_id_all = (data[0] >> 4) & 1;
	l.regs_user = l.sample_type & PERF_SAMPLE_REGS_USER ? (uint64_t)data[1] << 8 | data[2] : 0;
	l.period = data[3];
	len = size - 8;
	if (!(rec = malloc(len)) || !(r = calloc(1, sizeof(*r)))) {
		free(rec);
		return 0;
	}
	memcpy(rec, data + 8, len);
	memcpy(&h, rec, sizeof(h));
	h.size = (uint16_t)len;
	memcpy(rec, &h, sizeof(h));
	if (ty_sampler_decode(rec, len, &l, r) == 0) {
		if (r->nr > TY_SAMPLER_MAX_STACK || (r->nr && r->chain != r->chainbuf))
			abort();
		if (r->name && !within(r->name, strnlen(r->name, len) + 1, rec, len))
			abort();
		if (r->stack &&
		    (!within(r->stack, r->stack_size, rec, len) || r->stack_dyn > r->stack_size))
			abort();
	}
	free(r);
	free(rec);
	return 0;
}
