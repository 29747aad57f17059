/* t-calls.c - record --calls's tracefs probes left behind: which lines of
 * uprobe_events are tachy's (by name), and the sweep that removes those
 * of tachys that are gone, never another tool's nor a running tachy's. A
 * regular file stands for uprobe_events: what the sweep writes to it is
 * appended, as the kernel's file takes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/calls.h"

static pid_t
pid_of(const char *line, char *name)
{
	return ty_calls_probe_pid(line, strlen(line), name, 64);
}

static void
test_names(void)
{
	char name[64] = "";

	CHECK_INT(pid_of("p:tachy_1234/f0 /usr/bin/prog:0x0000000000001139", name), 1234);
	CHECK_STR(name, "tachy_1234/f0");
	CHECK_INT(pid_of("r:tachy_7/f12 /x:0x10", name), 7);
	CHECK_STR(name, "tachy_7/f12");
	CHECK_INT(pid_of("p:tachy_42/f3", name), 42); /* the line's end */
	CHECK_INT(pid_of("p:tachy_42/f3\n", name), 42);
	/* not tachy's, or not a name tachy gives */
	CHECK_INT(pid_of("p:other_1234/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachyx_1234/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_12x/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_0/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_-5/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_99999999999/f0 /x:0x10", name), 0); /* past a pid */
	CHECK_INT(pid_of("p:tachy_3000000000/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_12/ /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_12/f0;x /x:0x10", name), 0);
	CHECK_INT(pid_of("p:tachy_12", name), 0);
	CHECK_INT(pid_of("x:tachy_12/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("-:tachy_12/f0", name), 0);
	CHECK_INT(pid_of(" p:tachy_12/f0 /x:0x10", name), 0);
	CHECK_INT(pid_of("", name), 0);
	/* a name longer than the room for it */
	CHECK_INT(ty_calls_probe_pid("p:tachy_12/f0 /x", 16, name, 8), 0);
	/* LEN bounds the read: the line cut before its event */
	CHECK_INT(ty_calls_probe_pid("p:tachy_12/f0 /x", 11, name, 64), 0);
}

static void
test_sweep(void)
{
	char dir[] = "/tmp/t-calls-XXXXXX", path[64], buf[4096], *p;
	struct ty_calls c = {0};
	long dead = 0;
	size_t n;
	FILE *f;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	/* a pid past pid_max: no process can have it */
	if ((f = fopen("/proc/sys/kernel/pid_max", "r"))) {
		if (fscanf(f, "%ld", &dead) != 1)
			dead = 0;
		fclose(f);
	}
	if (!CHECK(dead > 0)) {
		rmdir(dir);
		return;
	}
	dead++;
	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	if (!CHECK((f = fopen(path, "w")) != NULL))
		return;
	fprintf(f, "p:tachy_%ld/f0 /usr/bin/prog:0x0000000000001139\n", dead);
	fprintf(f, "p:tachy_%d/f0 /usr/bin/prog:0x0000000000001139\n", (int)getppid());
	fprintf(f, "p:tachy_%d/f0 /usr/bin/prog:0x0000000000001139\n", (int)getpid());
	fprintf(f, "p:other_%ld/f0 /usr/bin/prog:0x0000000000001139\n", dead);
	fprintf(f, "p:tachy_%ldx/f0 /usr/bin/prog:0x0000000000001139\n", dead);
	fprintf(f, "r:tachy_%ld/f1 /usr/bin/prog:0x0000000000001140", dead); /* no newline */
	fclose(f);
	CHECK_INT(ty_calls_sweep(&c, dir), 2);
	CHECK_INT((int)c.swept, 2);
	if ((f = fopen(path, "r"))) {
		char want[256];
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		snprintf(want, sizeof(want), "0x0000000000001140-:tachy_%ld/f0\n-:tachy_%ld/f1\n",
			 dead, dead);
		CHECK(n > strlen(want) && strcmp(buf + n - strlen(want), want) == 0);
		for (p = buf, n = 0; (p = strstr(p, "-:")); p++)
			n++;
		CHECK_INT((int)n, 2); /* only those two */
	}
	CHECK_INT(ty_calls_sweep(NULL, "/nonexistent"), -2); /* -ENOENT */
	unlink(path);
	rmdir(dir);
}

/* The kind of a function's first instruction: what the kernel emulates at
 * the trap, and what it steps out of line (a second trap). */
static void
test_kinds(void)
{
#if defined(__x86_64__)
	static const unsigned char push_rbp[] = {0x55, 0x48, 0x89, 0xe5}, push_r12[] = {0x41, 0x54},
				   endbr[] = {0xf3, 0x0f, 0x1e, 0xfa}, nop[] = {0x90},
				   nopw[] = {0x66, 0x90}, nopl[] = {0x0f, 0x1f, 0x00},
				   jmp[] = {0xe9, 0, 0, 0, 0}, jcc[] = {0x0f, 0x84, 0, 0, 0, 0},
				   test[] = {0x48, 0x85, 0xff}, sub[] = {0x48, 0x83, 0xec, 0x08},
				   short_endbr[] = {0xf3, 0x0f};

	CHECK(ty_calls_kind(push_rbp, sizeof(push_rbp)) == TY_CALLS_PUSH);
	CHECK(ty_calls_kind(push_r12, sizeof(push_r12)) == TY_CALLS_PUSH);
	CHECK(ty_calls_kind(endbr, sizeof(endbr)) == TY_CALLS_ENDBR);
	CHECK(ty_calls_kind(nop, sizeof(nop)) == TY_CALLS_NOP);
	CHECK(ty_calls_kind(nopw, sizeof(nopw)) == TY_CALLS_NOP);
	CHECK(ty_calls_kind(nopl, sizeof(nopl)) == TY_CALLS_NOP);
	CHECK(ty_calls_kind(jmp, sizeof(jmp)) == TY_CALLS_NOP);
	CHECK(ty_calls_kind(jcc, sizeof(jcc)) == TY_CALLS_NOP);
	CHECK(ty_calls_kind(test, sizeof(test)) == TY_CALLS_STEP);
	CHECK(ty_calls_kind(sub, sizeof(sub)) == TY_CALLS_STEP);
	CHECK(ty_calls_kind(short_endbr, sizeof(short_endbr)) == TY_CALLS_STEP);
	CHECK(ty_calls_kind(push_r12, 1) == TY_CALLS_STEP); /* a REX prefix alone */
#endif
	CHECK(ty_calls_kind(NULL, 0) == TY_CALLS_STEP);
}

/* The cost of the hits, each at its kind's: 10 push hits at 5 us and 4
 * stepped at 20 us. */
static void
test_cost(void)
{
	struct ty_calls_fn fn[2] = {{"a", "/x", 0, 10, TY_CALLS_PUSH, 0, 1, 0},
				    {"b", "/x", 16, 4, TY_CALLS_STEP, 16, 3, 0}};
	struct ty_calls c = {0};
	double d;

	c.fn = fn;
	c.n = 2;
	c.kind_ns[TY_CALLS_PUSH] = 5000, c.kind_ns[TY_CALLS_STEP] = 20000;
	c.disturb_ns[TY_CALLS_PUSH] = 100, c.disturb_ns[TY_CALLS_STEP] = 240;
	CHECK(ty_calls_cost_ns(&c, &d) == 10 * 5000.0 + 4 * 20000.0);
	CHECK(d == (10 * 100.0 + 4 * 240.0) / 14);
	fn[0].count = fn[1].count = 0;
	CHECK(ty_calls_cost_ns(&c, &d) == 0 && d == 0);
}

/* What a hit adds to the body: the median of the probed calls less the
 * median of the unprobed, at the ticks' scale; an interrupted call (a
 * preemption, a sample) moves neither; never below 0. */
static void
test_disturbance(void)
{
	uint64_t on[5] = {1300, 1200, 90000, 1250, 1220}, off[4] = {1000, 1010, 50000, 990};
	uint64_t on2[3] = {900, 950, 1000}, off2[3] = {1000, 1000, 1000};

	/* medians 1250 (sorted 1200 1220 1250 1300 90000) and 1005 (990 1000 1010 50000) */
	CHECK(ty_calls_disturbance(on, 5, off, 4, 1) == 245);
	CHECK(on[0] == 1200 && on[4] == 90000 && off[0] == 990); /* sorted in place */
	CHECK(ty_calls_disturbance(on, 5, off, 4, 0.5) == 122.5);
	CHECK(ty_calls_disturbance(on2, 3, off2, 3, 1) == 0); /* faster with: none */
	CHECK(ty_calls_disturbance(on, 0, off, 4, 1) == 0);
	CHECK(ty_calls_disturbance(on, 5, off, 0, 1) == 0);
}

int
main(void)
{
	test_kinds();
	test_cost();
	test_disturbance();
	test_names();
	test_sweep();
	return check_done();
}
