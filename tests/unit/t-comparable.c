/* t-comparable.c - judging whether two sides are comparable, on synthetic
 * facts: each kind of difference, and equal facts giving nothing. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tachy/comparable.h"
#include "tachy/results-saved.h"

static struct ty_comparable_side
quiet(const char *name)
{
	struct ty_comparable_side s = {
	    .name = name,
	    .host = "bench1",
	    .cpu_model = "Intel(R) Xeon(R) E-2278G",
	    .kernel = "6.1.0-13-amd64",
	    .cpus = 2,
	    .load = 0.10,
	    .busy = 0,
	    .cpu_s = 2.0,
	    .wall_s = 2.02,
	    .nivcsw = 20,
	};
	return s;
}

static void
test_equal(void)
{
	struct ty_comparable_side a = quiet("old.json"), b = quiet("new.json");
	struct ty_comparable_finding f[4];

	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 0);
	/* a little more load, well under half the CPUs: nothing */
	b.load = 0.8;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 0);
	/* nothing known on one side: nothing */
	memset(&b, 0, sizeof(b));
	b.name = "new.json";
	b.cpus = b.busy = -1;
	b.load = b.nivcsw = -1;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 0);
}

static void
test_load(void)
{
	struct ty_comparable_side a = quiet("old.json"), b = quiet("new.json");
	struct ty_comparable_finding f[4];

	a.load = 1.9;
	a.busy = 2;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK_INT(f[0].kind, TY_COMPARABLE_LOAD);
	CHECK_STR(ty_comparable_kind_key(f[0].kind), "load");
	CHECK_STR(f[0].facts,
		  "old.json ran at load 1.90 on 2 CPUs with 2 other processes running, its runs "
		  "waiting for a CPU 1% of their time, preempted 10 times a second of CPU time; "
		  "new.json ran at load 0.10 on 2 CPUs, its runs waiting for a CPU 1% of their "
		  "time, preempted 10 times a second of CPU time");
	CHECK_STR(f[0].fix, "measure both in one `tachy run` (interleaved), or re-measure old.json "
			    "on a machine as quiet as for new.json");

	/* the load average said nothing (the work began after the start), the
	 * runs did: the new side waited and was preempted */
	a = quiet("old.json");
	b.wall_s = 6.0;
	b.nivcsw = 500;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK(strstr(f[0].facts, "new.json ran at load 0.10 on 2 CPUs, its runs waiting for a CPU "
				 "67% of their time, preempted 250 times a second of CPU time"));
	/* no load recorded (an older export): the runs' facts alone */
	a.load = b.load = -1;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK_STR(f[0].facts, "old.json's runs waited for a CPU 1% of their time, preempted 10 "
			      "times a second of CPU time; new.json's runs waited for a CPU 67% of "
			      "their time, preempted 250 times a second of CPU time");
	CHECK(strstr(f[0].fix, "re-measure new.json"));

	/* preempted often but too little CPU time to tell: nothing */
	a.cpu_s = b.cpu_s = 0.01;
	a.wall_s = 0.0101;
	b.wall_s = 0.03;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 0);

	/* preempted more but waiting as little: nothing (the program's own threads) */
	a = quiet("old.json");
	b = quiet("new.json");
	b.nivcsw = 1000;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 0);
}

static void
test_machine_kernel(void)
{
	struct ty_comparable_side a = quiet("old.json"), b = quiet("new.json");
	struct ty_comparable_finding f[4];

	b.kernel = "6.5.0-1-amd64";
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK_INT(f[0].kind, TY_COMPARABLE_KERNEL);
	CHECK_STR(f[0].facts, "old.json ran under kernel 6.1.0-13-amd64, new.json under "
			      "6.5.0-1-amd64");

	/* another machine: said once, the kernel with it */
	b.host = "vm";
	b.cpu_model = "AMD EPYC";
	b.cpus = 4;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK_INT(f[0].kind, TY_COMPARABLE_MACHINE);
	CHECK_STR(f[0].facts, "old.json ran on 'bench1' (Intel(R) Xeon(R) E-2278G, 2 CPUs), "
			      "new.json on 'vm' (AMD EPYC, 4 CPUs)");
	CHECK_STR(f[0].fix, "compare results of one machine: measure both sides on it");

	/* one host name, another CPU count (a resized VM) */
	b = quiet("new.json");
	b.cpus = 8;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 1);
	CHECK_INT(f[0].kind, TY_COMPARABLE_MACHINE);

	/* machine and load, MAX 1: two found, one written */
	b.load = 7;
	CHECK_INT(ty_comparable_judge(&a, &b, f, 1), 2);
	CHECK_INT(ty_comparable_judge(&a, &b, f, 4), 2);
	CHECK_INT(f[1].kind, TY_COMPARABLE_LOAD);
}

static void
test_stale(void)
{
	struct ty_comparable_range later[3] = {
	    {"c6", 1.00, 1.04}, {"c7", 0.99, 1.03}, {"c8", 1.01, 1.05}};
	struct ty_comparable_finding f;

	/* 1.20 lies above every later range by more than 5% */
	CHECK_INT(ty_comparable_stale("prog", "c5", 1.20, later, 3, &f), 1);
	CHECK_INT(f.kind, TY_COMPARABLE_STALE);
	CHECK_STR(ty_comparable_kind_key(f.kind), "stale_baseline");
	CHECK_STR(f.facts, "the median of 'prog' at c5 lies above every run of the 3 results "
			   "after it (12.5% to 17.5% below it)");
	CHECK_STR(f.fix, "if no commit between changed 'prog', c5 was measured under other "
			 "conditions: re-measure it, or compare against a later commit");
	/* below every later range */
	CHECK_INT(ty_comparable_stale("prog", "c5", 0.75, later, 3, &f), 1);
	CHECK(strstr(f.facts, "lies below every run of the 3 results after it (32.0% to 40.0% "
			      "above it)"));
	/* inside, or just outside: nothing */
	CHECK_INT(ty_comparable_stale("prog", "c5", 1.02, later, 3, &f), 0);
	CHECK_INT(ty_comparable_stale("prog", "c5", 1.08, later, 3, &f), 0);
	/* one later result is a change, not a stale baseline */
	CHECK_INT(ty_comparable_stale("prog", "c5", 1.20, later, 1, &f), 0);
	/* one later result reaching the baseline: nothing */
	later[1].hi = 1.25;
	CHECK_INT(ty_comparable_stale("prog", "c5", 1.20, later, 3, &f), 0);
}

#ifdef HAVE_JANSSON
#include "tachy/results-read.h"

static const char loaded_doc[] =
    "{\"results\": [{\"command\": \"prog\", \"times\": [0.3, 0.3], \"user\": 0.1, \"system\": 0,"
    " \"tachy\": {\"name\": \"prog\", \"runs\": ["
    "{\"wall_ns\": 300000000, \"user_ns\": 100000000, \"system_ns\": 0, \"nivcsw\": 40},"
    "{\"wall_ns\": 300000000, \"user_ns\": 100000000, \"system_ns\": 0, \"nivcsw\": 60}]}}],"
    " \"tachy\": {\"schema\": 1, \"environment\": {\"hostname\": \"vm\", \"cores\": 2,"
    " \"kernel\": \"6.1\", \"cpu_model\": null, \"load_average\": 1.93,"
    " \"busy_processes\": 3}}}";

static void
test_side_of(void)
{
	struct ty_results_saved f;
	struct ty_comparable_side s;
	struct ty_error e = {0};

	if (ty_results_read_text(&f, loaded_doc, "loaded.json", &e) != 0) {
		CHECK_STR(e.msg, "");
		return;
	}
	ty_comparable_side_of(&s, "loaded.json", &f, 1);
	CHECK_STR(s.name, "loaded.json");
	CHECK_STR(s.host, "vm");
	CHECK_STR(s.kernel, "6.1");
	CHECK(s.cpu_model == NULL);
	CHECK_INT(s.cpus, 2);
	CHECK_NEAR(s.load, 1.93, 1e-9);
	CHECK_INT(s.busy, 3);
	CHECK_NEAR(s.cpu_s, 0.2, 1e-9);
	CHECK_NEAR(s.wall_s, 0.6, 1e-9);
	CHECK_NEAR(s.nivcsw, 100, 1e-9);
	ty_results_saved_release(&f);

	/* nothing */
	ty_comparable_side_of(&s, "none", NULL, 0);
	CHECK(s.host == NULL);
	CHECK_INT(s.cpus, -1);
	CHECK(s.load < 0 && s.busy < 0 && s.nivcsw < 0);
}
#endif

int
main(void)
{
	test_equal();
	test_load();
	test_machine_kernel();
	test_stale();
#ifdef HAVE_JANSSON
	test_side_of();
#endif
	return check_done();
}
