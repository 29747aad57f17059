/* t-duty.c - the controller of the chains at switch-outs (lib/duty.c),
 * driven by a simulated program: switch-outs at a given rate, a chain at
 * each while the chains are on, drained at once. */
#include <stdint.h>

#include "check.h"
#include "tachy/duty.h"

struct sim {
	struct ty_duty d;
	uint64_t t;	 /* now */
	int on;		 /* the chains as the simulated kernel has them */
	uint64_t chains; /* taken */
	unsigned ons, offs, reapplied, reoff;
	double carry; /* switch-outs not whole yet */
	size_t every; /* new threads at every step */
};

/* Run until END with switch-outs at RATE a second (spread evenly over each
 * step), FRESH new threads at the first step (at every step when
 * s->every). */
static void
run(struct sim *s, uint64_t end, double rate, size_t fresh)
{
	unsigned bad = 0;

	while (s->t < end) {
		uint64_t next = s->d.at > s->t ? s->d.at : s->t + 1;
		double x = s->carry + rate * (double)(next - s->t) / 1e9;
		uint64_t sw = (uint64_t)x;
		enum ty_duty_action a;
		s->carry = x - (double)sw;
		s->t = next;
		s->d.sw += sw;
		if (s->on) {
			s->d.n += sw;
			s->chains += sw;
		}
		a = ty_duty_step(&s->d, s->t, fresh);
		fresh = s->every;
		bad += s->d.at <= s->t;
		if (a == TY_DUTY_ON && s->on)
			s->reapplied++;
		else if (a == TY_DUTY_ON)
			s->on = 1, s->ons++;
		else if (a == TY_DUTY_OFF && !s->on)
			s->reoff++;
		else if (a == TY_DUTY_OFF)
			s->on = 0, s->offs++;
		bad += s->d.off != !s->on;
	}
	/* every step looks ahead, and says what the state allows */
	CHECK_INT(bad, 0);
}

static void
start(struct sim *s, uint64_t hz, uint64_t seed)
{
	*s = (struct sim){.on = 1};
	ty_duty_init(&s->d, hz, 0, seed);
}

int
main(void)
{
	struct sim s;
	uint64_t sec = 1000000000ull, seed;

	/* Below the rate: always on, every chain; on again every 10th step. */
	start(&s, 999, 1);
	run(&s, 10 * sec, 500, 0);
	CHECK_INT(s.offs, 0);
	CHECK_INT(s.chains, 5000);
	CHECK(s.reapplied >= 40);
	/* Bursts above the rate for a moment, in a quiet program: a bucket
	 * of 249.75 chains keeps them (100 chains in 20 ms, once a second). */
	start(&s, 999, 2);
	{
		uint64_t k;
		for (k = 0; k < 10; k++) {
			run(&s, k * sec + sec / 50, 5000, 0);
			run(&s, (k + 1) * sec, 10, 0);
		}
	}
	CHECK_INT(s.offs, 0);
	/* 100,000 switch-outs a second for 20 s: about 999 chains a second
	 * (the first step's 20 ms at the full rate beside), in windows of
	 * 2 ms or more, several a second, whatever the seed. */
	for (seed = 1; seed <= 5; seed++) {
		double per_s;
		start(&s, 999, seed * 7919);
		run(&s, 20 * sec, 100000, 0);
		per_s = (double)(s.chains - 2000) / 20;
		CHECK(per_s > 600 && per_s < 1500);
		CHECK(s.ons > 40 && s.ons < 400);
	}
	/* The off windows are not all alike (drawn at random). */
	{
		uint64_t lo = UINT64_MAX, hi = 0, t0 = 0;
		start(&s, 999, 12345);
		while (s.t < 20 * sec) {
			int was = s.on;
			run(&s, s.t + 1, 100000, 0);
			if (was && !s.on)
				t0 = s.t;
			else if (!was && s.on && t0) {
				uint64_t len = s.t - t0;
				lo = len < lo ? len : lo;
				hi = len > hi ? len : hi;
			}
		}
		CHECK(hi > lo + lo / 2);
	}
	/* A busy phase, then a quiet one: on again within a step. */
	start(&s, 999, 3);
	run(&s, 5 * sec, 100000, 0);
	if (!s.on)
		run(&s, s.t + 1, 100000, 0); /* to the next step */
	while (s.on)
		run(&s, s.t + 1, 100000, 0); /* until it is off */
	run(&s, s.t + TY_DUTY_CHECK_NS + 1, 100, 0);
	CHECK_INT(s.on, 1);
	{ /* and it stays on: below the rate the bucket cannot empty */
		unsigned offs = s.offs;
		run(&s, s.t + sec, 100, 0);
		CHECK_INT(s.offs, offs);
	}
	/* Off in a busy phase, a new thread (seen at every step from then
	 * on): on again within 200 ms (once the bucket owes a quarter of
	 * itself at most), not after the 2 s an off window may last. */
	start(&s, 1, 7);
	run(&s, sec, 100000, 0);
	while (s.on)
		run(&s, s.t + 1, 100000, 0);
	s.d.hz = 999; /* the off window was long: 2 s */
	{
		uint64_t t = s.t;
		s.every = 1;
		while (!s.on && s.t - t < 3 * sec)
			run(&s, s.t + 1, 100000, 1);
		s.every = 0;
		CHECK_INT(s.on, 1);
		CHECK(s.t - t <= 200000000ull);
	}
	/* Faster still, 500,000 a second: still about 999 chains a second
	 * (what is owed grows with the rate); and a new thread at every
	 * step turns them on early once an off window at the most. */
	start(&s, 999, 5);
	run(&s, 20 * sec, 500000, 0);
	CHECK((double)(s.chains - 10000) / 20 < 1500);
	start(&s, 999, 6);
	s.every = 1;
	run(&s, 20 * sec, 100000, 1);
	CHECK((double)(s.chains - 2000) / 20 < 4000);
	/* Off for 2 s at the most, even at a rate of HZ 1. */
	start(&s, 1, 4);
	run(&s, 10 * sec, 100000, 0);
	CHECK(s.ons >= 4);
	return check_done();
}
