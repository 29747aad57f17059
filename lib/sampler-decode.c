/* sampler-decode.c - the records the kernel writes into a sampling ring,
 * decoded into struct ty_sampler_rec, every read bounds-checked
 * (sampler-decode.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "tachy/sampler-decode.h"

/* A cursor over a record's bytes: every read is bounds-checked. */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t
get64(struct cur *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void
get32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2] = {0, 0};

	if (c->end - c->p < 8)
		c->bad = 1;
	else
		memcpy(v, c->p, 8), c->p += 8;
	*a = v[0];
	*b = v[1];
}

/* The sample_id_all trailer of non-sample records (TID, TIME, CPU). */
static void
decode_trailer(const unsigned char *start, const unsigned char *end,
	       const struct ty_sampler_layout *l, struct ty_sampler_rec *r)
{
	uint64_t t = l->sample_type;
	size_t n = 0;
	struct cur c;
	uint32_t x;

	if (!l->sample_id_all)
		return;
	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	if ((size_t)(end - start) < n)
		return;
	c.p = end - n;
	c.end = end;
	c.bad = 0;
	if (t & PERF_SAMPLE_TID) {
		uint32_t pid, tid;
		get32x2(&c, &pid, &tid);
		if (r->type != TY_SAMPLER_REC_FORK && r->type != TY_SAMPLER_REC_EXIT)
			r->pid = pid, r->tid = tid;
	}
	if (t & PERF_SAMPLE_TIME)
		r->time = get64(&c);
	if (t & PERF_SAMPLE_ID)
		get64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		get64(&c);
	if (t & PERF_SAMPLE_CPU)
		get32x2(&c, &r->cpu, &x);
}

static int
decode_sample(struct cur *c, const struct ty_sampler_layout *l, struct ty_sampler_rec *r)
{
	uint64_t t = l->sample_type, nr, i, kept = 0, v;
	uint32_t x;
	const unsigned char *chain;

	if (t & PERF_SAMPLE_IDENTIFIER)
		r->id = get64(c);
	if (t & PERF_SAMPLE_IP)
		r->ip = get64(c);
	if (t & PERF_SAMPLE_TID)
		get32x2(c, &r->pid, &r->tid);
	if (t & PERF_SAMPLE_TIME)
		r->time = get64(c);
	if (t & PERF_SAMPLE_ADDR)
		get64(c);
	if (t & PERF_SAMPLE_ID)
		get64(c);
	if (t & PERF_SAMPLE_STREAM_ID)
		get64(c);
	if (t & PERF_SAMPLE_CPU)
		get32x2(c, &r->cpu, &x);
	if (t & PERF_SAMPLE_PERIOD)
		r->period = get64(c);
	else
		r->period = l->period;
	if (c->bad)
		return -EINVAL;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		nr = get64(c);
		if (c->bad || nr > (uint64_t)(c->end - c->p) / 8)
			return -EINVAL;
		/* Copy, dropping the PERF_CONTEXT_* markers. */
		chain = c->p;
		for (i = 0; i < nr && kept < TY_SAMPLER_MAX_STACK; i++) {
			memcpy(&v, chain + 8 * i, 8);
			if (v < (uint64_t)PERF_CONTEXT_MAX)
				r->chainbuf[kept++] = v;
		}
		c->p += 8 * nr;
		r->nr = kept;
		r->chain = kept ? r->chainbuf : NULL;
	}
	if (t & PERF_SAMPLE_RAW) { /* a u32 size, then the bytes (perf.data's tracepoints) */
		uint32_t n = 0;
		if (c->end - c->p < 4 ||
		    (memcpy(&n, c->p, 4), c->p += 4, (size_t)n > (size_t)(c->end - c->p)))
			return -EINVAL;
		r->raw = c->p;
		r->raw_size = n;
		c->p += n;
	}
	if (t & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_READ))
		return 0; /* not asked for by the sampler: nothing further is decoded */
	if (t & PERF_SAMPLE_REGS_USER) {
		r->regs_abi = get64(c);
		if (c->bad)
			return -EINVAL;
		if (r->regs_abi) {
			for (i = 0; i < 64; i++) {
				if (!(l->regs_user & (1ull << i)))
					continue;
				v = get64(c);
				if (i < TY_SAMPLER_REGS)
					r->regs[i] = v;
			}
			if (c->bad)
				return -EINVAL;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		r->stack_size = get64(c);
		if (c->bad || r->stack_size > (uint64_t)(c->end - c->p))
			return -EINVAL;
		if (r->stack_size) {
			r->stack = c->p;
			c->p += r->stack_size;
			r->stack_dyn = get64(c);
			if (c->bad)
				return -EINVAL;
			if (r->stack_dyn > r->stack_size)
				r->stack_dyn = r->stack_size;
		}
	}
	return 0;
}

int
ty_sampler_decode(const void *rec, size_t len, const struct ty_sampler_layout *l,
		  struct ty_sampler_rec *r)
{
	const struct perf_event_header *h = rec;
	struct cur c;
	uint32_t x;

	memset(r, 0, offsetof(struct ty_sampler_rec, chainbuf));
	if (len < sizeof(*h) || h->size < sizeof(*h) || h->size > len)
		return -EINVAL;
	c.p = (const unsigned char *)rec + sizeof(*h);
	c.end = (const unsigned char *)rec + h->size;
	c.bad = 0;
	r->type = TY_SAMPLER_REC_OTHER;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r->type = TY_SAMPLER_REC_SAMPLE;
		r->user = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
		return decode_sample(&c, l, r);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		r->type = TY_SAMPLER_REC_MMAP;
		get32x2(&c, &r->pid, &r->tid);
		r->start = get64(&c);
		r->len = get64(&c);
		r->pgoff = get64(&c);
		if (h->type == PERF_RECORD_MMAP2) { /* maj, min, ino, ino_gen, prot, flags */
			uint32_t maj, min;
			get32x2(&c, &maj, &min);
			r->ino = get64(&c);
			c.p += 16 > c.end - c.p ? (c.bad = 1, 0) : 16;
			/* a build-id in their place (PERF_RECORD_MISC_MMAP_BUILD_ID) */
			if (h->misc & (1 << 14))
				r->ino = 0;
			else
				r->dev = makedev(maj, min);
		}
		break;
	case PERF_RECORD_COMM:
		r->type = TY_SAMPLER_REC_COMM;
		r->exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		get32x2(&c, &r->pid, &r->tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->type = h->type == PERF_RECORD_FORK ? TY_SAMPLER_REC_FORK : TY_SAMPLER_REC_EXIT;
		get32x2(&c, &r->pid, &r->ppid);
		get32x2(&c, &r->tid, &r->ptid);
		r->time = get64(&c);
		break;
	case PERF_RECORD_LOST:
		r->type = TY_SAMPLER_REC_LOST;
		get64(&c);
		r->lost = get64(&c);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: /* the other task's ids, then the trailer */
		r->type = TY_SAMPLER_REC_SWITCH;
		r->out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
		r->preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		r->type = h->type == PERF_RECORD_THROTTLE ? TY_SAMPLER_REC_THROTTLE
							  : TY_SAMPLER_REC_UNTHROTTLE;
		r->time = get64(&c);
		break;
	default:
		return 0;
	}
	if (c.bad)
		return -EINVAL;
	if (r->type == TY_SAMPLER_REC_MMAP || r->type == TY_SAMPLER_REC_COMM) {
		/* A NUL-terminated name padded to 8 bytes, then the trailer. */
		const unsigned char *nul = memchr(c.p, '\0', (size_t)(c.end - c.p));
		if (!nul)
			return -EINVAL;
		r->name = (const char *)c.p;
	}
	(void)x;
	decode_trailer(c.p, c.end, l, r);
	return 0;
}
