/* t-clock.c - the tick clock: source choice, conversion, measurement. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "tachy/clock.h"

static const char *
fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("TOP");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".", name);
	return path;
}

static uint64_t
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
test_monotonic(void)
{
	struct ty_tick_clock c;
	uint64_t a, b;

	CHECK_INT(ty_clock_init_kind(&c, TY_CLOCK_MONOTONIC, NULL), 0);
	CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	CHECK_NEAR(ty_clock_ticks_to_ns(&c, 12345), 12345, 0);
	CHECK_INT(ty_clock_elapsed_ns(&c, 100, 350), 250);
	CHECK_INT(ty_clock_elapsed_ns(&c, 350, 100), 0);
	a = ty_clock_ticks(&c);
	b = ty_clock_ticks(&c);
	CHECK(b >= a);
	a = (uint64_t)ty_clock_since_init_ns(&c);
	b = (uint64_t)ty_clock_since_init_ns(&c);
	CHECK(b >= a);
	CHECK(a < 1000000000u); /* counted from the set-up, not from boot */
}

/* Fixture machines decide the source; the TSC itself is this CPU's. */
static void
test_choice(void)
{
	struct ty_tick_clock c;

	CHECK_INT(ty_clock_init(&c, fixture("arm-paranoid"), NULL), 0);
	CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	CHECK_STR(c.why, TY_CLOCK_HAVE_X86 ? "this CPU has no TSC" : "not an x86 CPU: no TSC");
	CHECK_INT(ty_clock_init(&c, fixture("tsc-unstable"), NULL), 0);
	CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	CHECK_INT(ty_clock_init(&c, fixture("old-x86"), NULL), 0);
	CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	CHECK_INT(ty_clock_init(&c, fixture("empty"), NULL), 0);
	CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	CHECK_INT(ty_clock_choose(fixture("tsc-unstable"), c.why, sizeof(c.why)),
		  TY_CLOCK_MONOTONIC);
	CHECK_INT(ty_clock_choose(fixture("vm-hpet"), c.why, sizeof(c.why)),
		  TY_CLOCK_HAVE_X86 && ty_clock_cpu_has_tsc() ? TY_CLOCK_TSC : TY_CLOCK_MONOTONIC);
	CHECK_INT(ty_clock_init(&c, fixture("ideal"), NULL), 0);
	if (TY_CLOCK_HAVE_X86 && ty_clock_cpu_has_tsc()) {
		CHECK_STR(ty_clock_name(&c), "tsc");
		CHECK(c.hz > 1e8);
		CHECK_NEAR(c.ns_per_tick * c.hz, 1e9, 1e-3);
	} else {
		CHECK_STR(ty_clock_name(&c), "CLOCK_MONOTONIC");
	}
}

/* The TSC, converted, agrees with CLOCK_MONOTONIC: the TSC interval lies
 * inside the monotonic one, and both cover a 20 ms sleep. */
static void
test_tsc_agrees(void)
{
	struct ty_tick_clock c;
	struct timespec ts = {0, 20 * 1000 * 1000};
	uint64_t m0, t0, t1, m1;
	double hz;
	int i;

	if (ty_clock_init_kind(&c, TY_CLOCK_TSC, NULL) < 0) {
		CHECK_INT(ty_clock_calibrate_tsc(10, &hz, NULL), -ENOTSUP);
		return;
	}
	CHECK_STR(ty_clock_name(&c), "tsc");
	for (i = 0; i < 3; i++) {
		m0 = mono();
		t0 = ty_clock_ticks(&c);
		nanosleep(&ts, NULL);
		t1 = ty_clock_ticks(&c);
		m1 = mono();
		CHECK(ty_clock_elapsed_ns(&c, t0, t1) <= (m1 - m0) * 1.002 + 1000);
		CHECK(ty_clock_elapsed_ns(&c, t0, t1) >= 20e6 * 0.998);
	}
	CHECK_REL(ty_clock_ticks_to_ns(&c, (uint64_t)c.hz), 1e9, 1e-9);
	m0 = (uint64_t)ty_clock_since_init_ns(&c);
	nanosleep(&ts, NULL);
	m1 = (uint64_t)ty_clock_since_init_ns(&c);
	CHECK(m1 - m0 >= 20e6 * 0.998);
	CHECK_INT(ty_clock_calibrate_tsc(10, &hz, NULL), 0);
	CHECK_REL(hz, c.hz, 0.01);
	t0 = ty_clock_ticks(&c);
	for (i = 0; i < 10000; i++) {
		t1 = ty_clock_ticks(&c);
		if (t1 < t0)
			break;
		t0 = t1;
	}
	CHECK_INT(i, 10000);
}

static void
test_measure(void)
{
	struct ty_clock_report *r = calloc(1, sizeof(*r));
	size_t i;
	int saw_mono = 0, saw_coarse = 0;
	double mono_step = 0;

	CHECK_INT(ty_clock_measure(r, NULL), 0);
	CHECK(r->n >= 10);
	for (i = 0; i < r->n; i++) {
		const struct ty_clock_probe *p = &r->probe[i];

		if (!p->available) {
			CHECK(p->why[0] != '\0');
			continue;
		}
		CHECK(p->cost_ns > 0);
		CHECK(p->cost_lo_ns <= p->cost_ns && p->cost_ns <= p->cost_hi_ns);
		CHECK(p->backwards >= 0);
		CHECK(p->cpus >= 1);
		if (strcmp(p->name, "CLOCK_MONOTONIC") == 0) {
			saw_mono = 1;
			CHECK_INT(p->backwards, 0);
			CHECK(p->step_ns > 0);
			mono_step = p->step_ns;
		}
		if (strcmp(p->name, "CLOCK_MONOTONIC_COARSE") == 0) {
			saw_coarse = 1;
			/* It advances; its smallest step is not bounded by its
			 * resolution: a late tick followed by one on time makes a
			 * short step (seen under load in a VM). */
			CHECK(p->step_ns > 0);
		}
	}
	CHECK(saw_mono && saw_coarse && mono_step > 0);
	CHECK(!ty_clock_cpu_has_tsc() || r->tsc_hz > 1e8);
	free(r);
}

/* ty_clock_now_ns is CLOCK_MONOTONIC in ns: a clock_gettime reading
 * taken between two of its readings lies between them. */
static void
test_now_ns(void)
{
	struct timespec ts;
	uint64_t a, m, b;

	a = ty_clock_now_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b = ty_clock_now_ns();
	m = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	CHECK(a > 0);
	CHECK(a <= m);
	CHECK(m <= b);
}

int
main(void)
{
	test_now_ns();
	test_monotonic();
	test_choice();
	test_tsc_agrees();
	test_measure();
	return check_done();
}
