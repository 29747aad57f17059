/* duty.h - how many call chains record --off-cpu -g takes at switch-outs:
 * a controller that turns the context-switches event on and off so that
 * chains come at about HZ a second (see tachy-record(1),
 * --off-cpu-chains). Pure: the caller gives the time and the counts, and
 * does what the step says. */
#ifndef TACHY_DUTY_H
#define TACHY_DUTY_H

#include <stddef.h>
#include <stdint.h>

#define TY_DUTY_CHECK_NS 20000000ull	 /* looked at every 20 ms at the least */
#define TY_DUTY_MIN_NS 2000000ull	 /* a window of chains: 2 ms at the least */
#define TY_DUTY_MAX_OFF_NS 2000000000ull /* off for 2 s at the most */

struct ty_duty {
	uint64_t hz;	/* chains a second (0: the controller is off) */
	int off;	/* the chains are off now */
	uint64_t at;	/* the next step is due then */
	uint64_t mark;	/* the last step */
	uint64_t until; /* off: until then at the latest */
	double tokens;	/* the chains the bucket holds */
	uint64_t sw, n; /* switch-outs and chains drained since MARK (the caller adds) */
	uint64_t rng;	/* xorshift64 */
	unsigned steps; /* steps in the state, for sending it again */
	int fresh_seen; /* off: a new thread was seen (to turn them on early) */
};

/* What to do: ON and OFF come again now and then in the state they set
 * (a thread created during a turn may have missed it). */
enum ty_duty_action {
	TY_DUTY_KEEP, /* nothing to do */
	TY_DUTY_ON,   /* turn the chains on (again) */
	TY_DUTY_OFF   /* turn them off (again) */
};

/* Start at T0 (the chains on, the bucket full); SEED for the random share. */
void ty_duty_init(struct ty_duty *d, uint64_t hz, uint64_t t0, uint64_t seed);

/* A step at T (not before d->at): FRESH threads were seen switching for the
 * first time since the last. Returns what to do; d->at says when to look
 * again. */
enum ty_duty_action ty_duty_step(struct ty_duty *d, uint64_t t, size_t fresh);

#endif
