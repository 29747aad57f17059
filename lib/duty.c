/* duty.c - the chains at switch-outs kept to about HZ a second.
 *
 * A chain costs the kernel ~2.5 us (the sample, its kernel chain, the user
 * stack copy): a program that switches 100,000 times a second would run
 * 1.25x as long. So the chains are kept to about HZ a second by a bucket
 * of HZ/4 chains, refilled at HZ a second, charged with the chains the
 * drain has seen (some come late: at most half a bucket owed, or the last
 * window's chains), so that a burst of up to HZ/4 switch-outs in a quiet program keeps
 * every chain. When it is empty
 * the chains are off until it has filled again to a share of it drawn at
 * random (a quarter to all of it: the windows must not keep step with a
 * loop of the program), TY_DUTY_MAX_OFF_NS at the most, and no longer than
 * the switch-outs (counted from the switch records, which go on all the
 * while: every duration stays exact) come faster than HZ a second, nor than
 * the first new thread of the window appears, the bucket owing a quarter of
 * it at the most (each thread has chains of its own).
 * The state is sent again now and then (a thread forked during a turn may
 * have missed it). */
#include "tachy/duty.h"

void
ty_duty_init(struct ty_duty *d, uint64_t hz, uint64_t t0, uint64_t seed)
{
	*d = (struct ty_duty){0};
	d->hz = hz;
	d->tokens = (double)hz / 4 < 1 ? 1 : (double)hz / 4;
	d->mark = t0;
	d->at = t0 + TY_DUTY_CHECK_NS;
	d->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* The next look while on: when the bucket would be empty at RATE. */
static uint64_t
window(const struct ty_duty *d, double rate)
{
	double ns = rate > 0 ? d->tokens / rate * 1e9 : 1e18;

	return ns < (double)TY_DUTY_MIN_NS     ? TY_DUTY_MIN_NS
	       : ns > (double)TY_DUTY_CHECK_NS ? TY_DUTY_CHECK_NS
					       : (uint64_t)ns;
}

enum ty_duty_action
ty_duty_step(struct ty_duty *d, uint64_t t, size_t fresh)
{
	uint64_t span = t > d->mark ? t - d->mark : 0, off;
	double rate = (double)d->sw * 1e9 / (double)(span ? span : 1);
	double cap = (double)d->hz / 4 < 1 ? 1 : (double)d->hz / 4, x, owed;
	int early;

	if (!d->hz) {
		d->at = t + TY_DUTY_CHECK_NS;
		return TY_DUTY_KEEP;
	}
	/* At most half a bucket owed, or the chains of this step: those of a
	 * window are all paid for, however long it lasted (a fast program,
	 * a drain that woke late), but nothing older. */
	owed = (double)d->n > cap / 2 ? (double)d->n : cap / 2;
	d->tokens += (double)d->hz * (double)span / 1e9 - (double)d->n;
	d->tokens = d->tokens > cap ? cap : d->tokens < -owed ? -owed : d->tokens;
	d->mark = t;
	d->sw = d->n = 0;
	if (d->off) {
		/* on again early for a new thread seen in this off window,
		 * once the bucket owes a quarter of itself at the most: a
		 * short-lived thread would have no chain at all */
		d->fresh_seen |= fresh > 0;
		early = d->fresh_seen && d->tokens >= -cap / 4;
		if (t < d->until && rate > (double)d->hz && !early) {
			d->at = t + TY_DUTY_CHECK_NS < d->until ? t + TY_DUTY_CHECK_NS : d->until;
			/* a thread created while they were turned off may have
			 * missed it: off again now and then */
			return ++d->steps % 5 == 0 ? TY_DUTY_OFF : TY_DUTY_KEEP;
		}
		d->off = 0;
		d->fresh_seen = 0;
		d->at = t + window(d, rate);
		return TY_DUTY_ON;
	}
	if (rate <= (double)d->hz || d->tokens > 0) {
		/* below the rate the bucket cannot empty: look again later;
		 * else when it would be empty */
		d->at = t + (rate <= (double)d->hz ? TY_DUTY_CHECK_NS : window(d, rate));
		/* a thread created while they were turned on may have missed
		 * it (the kernel copies the state at the fork without the
		 * ioctl's lock): on again now and then */
		return ++d->steps % 10 == 0 ? TY_DUTY_ON : TY_DUTY_KEEP;
	}
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	x = 0.25 + 0.75 * (double)(d->rng >> 11) / 9007199254740992.0; /* [0.25, 1) */
	off = (uint64_t)((cap * x - d->tokens) / (double)d->hz * 1e9); /* >= 1/16 s */
	if (off > TY_DUTY_MAX_OFF_NS)
		off = TY_DUTY_MAX_OFF_NS;
	d->off = 1;
	d->until = t + off;
	d->at = off > TY_DUTY_CHECK_NS ? t + TY_DUTY_CHECK_NS : d->until;
	return TY_DUTY_OFF;
}
