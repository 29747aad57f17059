/* t-events.c - event names become the attr perf would use. */
#include <errno.h>

#include "check.h"
#include "tachy/events.h"

static void
generic(void)
{
	struct ty_event ev;
	struct ty_error e;

	CHECK_INT(ty_event_parse("cycles", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_HARDWARE);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_INT(ev.kind, TY_EVENT_CYCLES);
	CHECK_STR(ev.unit, "");
	CHECK_INT(ty_event_parse("cpu-cycles", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_INT(ty_event_parse("task-clock", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_SOFTWARE);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_STR(ev.unit, "msec");
	CHECK_NEAR(ev.scale, 1e-6, 0);
	CHECK_INT(ty_event_parse("cs", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	CHECK_INT(ty_event_parse("faults", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_INT(ty_event_parse("migrations", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_CPU_MIGRATIONS);
	CHECK_INT(ty_event_parse("branch-instructions", &ev, &e), 0);
	CHECK_INT(ev.kind, TY_EVENT_BRANCHES);
	CHECK_INT(ty_event_parse("idle-cycles-backend", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	CHECK_INT(ty_event_parse("major-faults", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	CHECK_STR(ev.name, "major-faults");
	CHECK_INT(ev.attr.exclude_kernel, 0);
}

static void
cache(void)
{
	struct ty_event ev;
	struct ty_error e;

	CHECK_INT(ty_event_parse("L1-dcache-load-misses", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_HW_CACHE);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				      PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	CHECK_INT(ev.kind, TY_EVENT_CACHE_MISS);
	CHECK_INT(ty_event_parse("L1-dcache-loads", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_L1D);
	CHECK_INT(ev.kind, TY_EVENT_CACHE_ACCESS);
	CHECK_INT(ev.cache_id, PERF_COUNT_HW_CACHE_L1D);
	CHECK_INT(ty_event_parse("LLC-store-misses", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
				      PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	CHECK_INT(ty_event_parse("dTLB-load-misses", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	CHECK_INT(ty_event_parse("iTLB-loads", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_ITLB);
	CHECK_INT(ty_event_parse("branch-load-misses", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_BPU | PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	CHECK_INT(ty_event_parse("L1-icache-prefetches", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_L1I | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8);
	CHECK_INT(ty_event_parse("node-loads", &ev, &e), 0);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_CACHE_NODE);
	CHECK_INT(ty_event_parse("L1-dcache-bogus", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("L1-dcache-load-load", &ev, &e), -EINVAL);
}

static void
raw_and_mods(void)
{
	struct ty_event ev;
	struct ty_error e;

	CHECK_INT(ty_event_parse("r1a2", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_RAW);
	CHECK_INT(ev.attr.config, 0x1a2);
	CHECK_INT(ty_event_parse("r00c0:u", &ev, &e), 0);
	CHECK_INT(ev.attr.config, 0xc0);
	CHECK_INT(ev.attr.exclude_kernel, 1);
	CHECK_INT(ev.attr.exclude_user, 0);
	CHECK_INT(ev.attr.exclude_hv, 1);
	CHECK(ev.flags & TY_EVENT_PRIV_GIVEN);
	CHECK_STR(ev.name, "r00c0:u");
	CHECK_INT(ty_event_parse("cycles:k", &ev, &e), 0);
	CHECK_INT(ev.attr.exclude_kernel, 0);
	CHECK_INT(ev.attr.exclude_user, 1);
	CHECK_INT(ty_event_parse("cycles:uk", &ev, &e), 0);
	CHECK_INT(ev.attr.exclude_kernel, 0);
	CHECK_INT(ev.attr.exclude_user, 0);
	CHECK_INT(ty_event_parse("cycles:pp", &ev, &e), 0);
	CHECK_INT(ev.attr.precise_ip, 2);
	CHECK_INT(ty_event_parse("rxyz", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("r", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("r12345678901234567890", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("cycles:", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("cycles:x", &ev, &e), -EINVAL);
	CHECK_STR(e.msg, "bad modifier 'x' in event 'cycles:x' (u, k, h, p)");
	CHECK_INT(ty_event_parse("", &ev, &e), -EINVAL);
	CHECK_INT(ty_event_parse("nosuchevent", &ev, &e), -EINVAL);
	CHECK_STR(e.msg, "unknown event 'nosuchevent'");
}

static void
cpu_names(void)
{
	struct ty_event ev;
	struct ty_error e;
	int ret = ty_event_parse("INST_RETIRED:ANY_P", &ev, &e);

#ifdef HAVE_LIBPFM
	/* Depends on the CPU libpfm4 finds: either encodes or says why. */
	CHECK(ret == 0 || ret == -EINVAL);
	ret = ty_event_parse("NO_SUCH_CPU_EVENT", &ev, &e);
	CHECK_INT(ret, -EINVAL);
	CHECK(strncmp(e.msg, "unknown event 'NO_SUCH_CPU_EVENT'", 33) == 0);
	/* libpfm4's generic names work on any machine */
	CHECK_INT(ty_event_parse("perf::PERF_COUNT_SW_PAGE_FAULTS", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_SOFTWARE);
	CHECK_INT(ev.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_STR(ev.name, "perf::PERF_COUNT_SW_PAGE_FAULTS");
	CHECK_INT(ty_event_parse("perf::instructions:u", &ev, &e), 0);
	CHECK_INT(ev.attr.type, PERF_TYPE_HARDWARE);
	CHECK_INT(ev.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
	CHECK_INT(ev.attr.exclude_kernel, 1);
	CHECK(ev.flags & TY_EVENT_PRIV_GIVEN);
#else
	CHECK_INT(ret, -ENOTSUP);
	CHECK_STR(e.msg,
		  "cannot use CPU event 'INST_RETIRED:ANY_P': tachy was not built with libpfm4");
	CHECK_INT(ty_event_parse("perf::PERF_COUNT_SW_PAGE_FAULTS", &ev, &e), -ENOTSUP);
#endif
}

static void
lists(void)
{
	struct ty_event_list l;
	struct ty_error e;

	ty_event_list_init(&l);
	CHECK_INT(ty_event_list_add_defaults(&l, &e), 0);
	CHECK_INT(l.n, 10);
	CHECK_STR(l.ev[0].name, "task-clock");
	CHECK_STR(l.ev[4].name, "cycles");
	CHECK_STR(l.ev[5].name, "instructions");
	CHECK(l.ev[4].group > 0 && l.ev[4].group == l.ev[5].group);
	CHECK_INT(l.ev[6].group, 0);
	CHECK_STR(l.ev[9].name, "cache-misses");
	/* +LIST adds; duplicates are ignored */
	CHECK_INT(ty_event_list_add(&l, "cycles,L1-dcache-load-misses", &e), 0);
	CHECK_INT(l.n, 11);
	CHECK_INT(ty_event_list_find(&l, "L1-dcache-load-misses"), 10);
	CHECK_INT(ty_event_list_find_kind(&l, TY_EVENT_BRANCH_MISSES), 7);
	CHECK_INT(ty_event_list_find(&l, "nope"), -1);
	ty_event_list_release(&l);

	ty_event_list_init(&l);
	CHECK_INT(ty_event_list_add(&l, "{cycles,instructions}:u,page-faults,{branches,r10}", &e),
		  0);
	CHECK_INT(l.n, 5);
	CHECK_STR(l.ev[0].name, "cycles:u");
	CHECK_INT(l.ev[1].attr.exclude_kernel, 1);
	CHECK_INT(l.ev[2].group, 0);
	CHECK(l.ev[3].group > 0 && l.ev[3].group != l.ev[0].group);
	CHECK_INT(l.ev[4].group, l.ev[3].group);
	/* bad lists: clear error, list unchanged */
	CHECK_INT(ty_event_list_add(&l, "cycles,,instructions", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "cycles,", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "{cycles", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "{cycles}x", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "{cycles}:z", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "{a{b}}", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "cycles}", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "", &e), -EINVAL);
	CHECK_INT(ty_event_list_add(&l, "minor-faults,bogus", &e), -EINVAL);
	CHECK_STR(e.msg, "unknown event 'bogus'");
	CHECK_INT(l.n, 5);
	ty_event_list_release(&l);
}

int
main(void)
{
	generic();
	cache();
	raw_and_mods();
	cpu_names();
	lists();
	return check_done();
}
