/* t-collect.c - the collector: sampler records to a resolved profile
 * (mappings, exec and its grafts' completeness, same addresses in other
 * epochs, switches and off-CPU
 * pairing, imputed chains, runs, peeked stacks, thread names). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "folded.h"
#include "tachy/collect.h"
#include "tachy/profile-file.h"
#include "tachy/profile-views.h"

__attribute__((noinline)) int tprof_hot(int x);

__attribute__((noinline)) int
tprof_hot(int x)
{
	return x + 1;
}

static void
test_collector(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	uint32_t pid = (uint32_t)getpid();
	char *s;

	ty_symbols_load_maps(syms, "/proc", pid, 0, &e);
	memset(&r, 0, sizeof(r));
	r.type = TY_SAMPLER_REC_COMM;
	r.pid = r.tid = pid;
	r.name = "t-profile";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE;
	r.ip = (uint64_t)(uintptr_t)&tprof_hot + 1;
	r.period = 1000;
	ty_collector_record(&r, c);
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_LOST;
	r.lost = 3;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_THROTTLE;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_samples(c), 2);
	CHECK_INT(ty_collector_lost(c), 3);
	CHECK_INT(ty_collector_throttled(c), 1);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	s = folded(p);
#ifdef HAVE_LIBELF
	CHECK_STR(s, "tprof_hot 2\n");
#else
	CHECK(s && strncmp(s, "[unknown] 0x", 12) == 0);
#endif
	free(s);
	CHECK_INT(p->meta.lost, 3);
	CHECK_INT(p->nthreads, 1);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* Symbols with a kernel of execve's functions (a kallsyms file made at
 * PATH, a mkstemp template). */
static struct ty_symbols *
exec_syms(char *path)
{
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct ty_symbols *syms = ty_symbols_new();

	fputs("ffffffff81000000 T _stext\nffffffff81000100 T __x64_sys_execve\n"
	      "ffffffff81000200 T begin_new_exec\nffffffff81000300 T do_open_execat\n"
	      "ffffffff81000400 t elf_load\nffffffff81000500 T _etext\n",
	      fp);
	fclose(fp);
	ty_symbols_set_kallsyms(syms, path);
	return syms;
}

/* The exec window: samples inside execve once the new image is in place
 * (after the exec's COMM, or in begin_new_exec) keep only the old
 * program's pc, looked up in its old mappings, under an [exec] frame;
 * samples early in the exec keep their whole chain. */
static void
test_collector_exec(void)
{
	char path[] = "/tmp/t-kallsyms-XXXXXX";
	struct ty_symbols *syms = exec_syms(path);
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	const uint64_t k = 0xffffffff81000000ull;
	uint64_t early[] = {k + 0x310, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x400205};
	uint64_t late[] = {k + 0x410, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t bne[] = {k + 0x210, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t konly[] = {k + 0x410, k + 0x110};
	char *s;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = 9;
	r.type = TY_SAMPLER_REC_MMAP, r.time = 5;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/old";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.period = 1, r.time = 50, r.nr = 4, r.chain = early;
	ty_collector_record(&r, c);
	r.time = 99, r.chain = bne; /* the image switched, no COMM yet */
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_COMM, r.time = 100, r.exec = 1, r.name = "new", r.nr = 0,
	r.chain = NULL;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_MMAP, r.time = 101, r.exec = 0;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/new";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 150, r.nr = 4, r.chain = late;
	ty_collector_record(&r, c);
	r.time = 160, r.nr = 2, r.chain = konly;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	s = folded(p);
	CHECK_STR(s,
		  "[exec];[unknown] 0x100 in old;__x64_sys_execve;begin_new_exec 1\n"
		  "[exec];[unknown] 0x100 in old;__x64_sys_execve;elf_load 1\n"
		  "[exec];__x64_sys_execve;elf_load 1\n"
		  "[unknown] 0x204 in old;[unknown] 0x100 in old;__x64_sys_execve;do_open_execat "
		  "1\n");
	free(s);
	unlink(path);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* The exec probe's entry samples: a sample in the exec window takes the
 * callers of its execve call from the entry before it (one exec at most
 * between them), a sample in the probe's step out of line (its user leaf
 * at the start of a [uprobes] slot, in no file) takes the whole of the
 * entry's chain; a window with no entry of its own keeps its [exec]. The
 * entries are no samples. */
static void
test_collector_exec_entry(void)
{
	char path[] = "/tmp/t-kallsyms-XXXXXX";
	struct ty_symbols *syms = exec_syms(path);
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	const uint64_t k = 0xffffffff81000000ull;
	uint64_t entry[] = {0x400100 | TY_FRAME_EXACT, 0x400305, 0x400405};
	uint64_t xol[] = {k + 0x410, 0x7fffffffe080 | TY_FRAME_EXACT, 0x400305};
	uint64_t late[] = {k + 0x410, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t bne[] = {k + 0x210, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t again[] = {k + 0x410, k + 0x110, 0x400100 | TY_FRAME_EXACT};
	char *s;

	memset(&r, 0, sizeof(r));
	r.type = TY_SAMPLER_REC_FORK, r.pid = r.tid = 9, r.ppid = r.ptid = 8, r.time = 1;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_forked(c, 9), 1);
	CHECK_INT(ty_collector_forked(c, 8), 0);
	r.type = TY_SAMPLER_REC_MMAP, r.time = 5;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/old";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_EXEC_ENTRY, r.period = 1, r.time = 40, r.nr = 3, r.chain = entry;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 45, r.chain = xol;
	ty_collector_record(&r, c);
	r.time = 99, r.nr = 4, r.chain = bne; /* the image switched, no COMM yet */
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_COMM, r.time = 100, r.exec = 1, r.name = "new", r.nr = 0,
	r.chain = NULL;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_MMAP, r.time = 101, r.exec = 0;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/new";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 150, r.nr = 4, r.chain = late;
	ty_collector_record(&r, c);
	/* an exec with no entry (not through the probed execve) */
	r.type = TY_SAMPLER_REC_COMM, r.time = 300, r.exec = 1, r.name = "newer", r.nr = 0,
	r.chain = NULL;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 350, r.nr = 3, r.chain = again;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_samples(c), 4);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	s = folded(p);
	CHECK_STR(
	    s, "[exec];[unknown] 0x100 in new;__x64_sys_execve;elf_load 1\n"
	       "[unknown] 0x404 in old;[unknown] 0x304 in old;[unknown] 0x100 in "
	       "old;__x64_sys_execve;begin_new_exec 1\n"
	       "[unknown] 0x404 in old;[unknown] 0x304 in old;[unknown] 0x100 in "
	       "old;__x64_sys_execve;elf_load 1\n"
	       "[unknown] 0x404 in old;[unknown] 0x304 in old;[unknown] 0x100 in old;elf_load 1\n");
	free(s);
	unlink(path);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* Completeness after the graft: a sample inside an execve call (the exec
 * window, or the probe's step out of line) whose own chain the unwinder
 * lost and that takes the chain of a call it completed is complete now,
 * one whose chain was complete and takes a lost call's is not; the same
 * verdict both ways, no graft (no call before it), an off-CPU interval's
 * borrowed chain: nothing noted. The unwinder's verdict splits a chain of
 * the same addresses in two. */
static void
test_collector_exec_grafts(void)
{
	char path[] = "/tmp/t-kallsyms-XXXXXX";
	struct ty_symbols *syms = exec_syms(path);
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	const struct ty_collector_graft *g;
	const uint64_t k = 0xffffffff81000000ull;
	uint64_t entry[] = {0x400100 | TY_FRAME_EXACT, 0x400305, 0x400405};
	uint64_t lost[] = {0x400100 | TY_FRAME_EXACT, 0x400305};
	uint64_t xol[] = {k + 0x410, 0x7fffffffe080 | TY_FRAME_EXACT, 0x400305};
	uint64_t late[] = {k + 0x410, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t bne[] = {k + 0x210, k + 0x110, 0x400100 | TY_FRAME_EXACT, 0x7ffd00001234};
	uint64_t again[] = {k + 0x410, k + 0x110, 0x400100 | TY_FRAME_EXACT};
	size_t n;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = 9;
	r.type = TY_SAMPLER_REC_MMAP, r.time = 5;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/old";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.period = 1, r.time = 30, r.nr = 4, r.chain = bne;
	ty_collector_record(&r, c); /* no call before it: no graft */
	r.type = TY_SAMPLER_REC_EXEC_ENTRY, r.time = 40, r.nr = 3, r.chain = entry, r.complete = 1;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 45, r.chain = xol, r.complete = 0;
	ty_collector_record(&r, c); /* complete now */
	r.time = 46, r.complete = 1;
	ty_collector_record(&r, c); /* complete both ways */
	/* off the CPU in the step: its own chain (counted), then one without
	 * a chain that borrows it (not counted) */
	r.type = TY_SAMPLER_REC_SWITCH_SAMPLE, r.time = 47, r.complete = 0;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH, r.nr = 0, r.chain = NULL;
	r.out = 1, r.time = 48;
	ty_collector_record(&r, c);
	r.out = 0, r.time = 49;
	ty_collector_record(&r, c);
	r.out = 1, r.time = 50;
	ty_collector_record(&r, c);
	r.out = 0, r.time = 51;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 99, r.nr = 4, r.chain = bne;
	ty_collector_record(&r, c); /* complete now */
	r.type = TY_SAMPLER_REC_COMM, r.time = 100, r.exec = 1, r.name = "new", r.nr = 0,
	r.chain = NULL;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_MMAP, r.time = 101, r.exec = 0;
	r.start = 0x400000, r.len = 0x1000, r.pgoff = 0, r.name = "/nonexistent/new";
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 150, r.nr = 4, r.chain = late;
	ty_collector_record(&r, c); /* complete now */
	/* a later call, its chain lost */
	r.type = TY_SAMPLER_REC_EXEC_ENTRY, r.time = 200, r.nr = 2, r.chain = lost;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 210, r.nr = 3, r.chain = xol, r.complete = 1;
	ty_collector_record(&r, c); /* no longer complete */
	r.time = 220, r.complete = 0;
	ty_collector_record(&r, c); /* lost both ways */
	r.type = TY_SAMPLER_REC_COMM, r.time = 300, r.exec = 1, r.name = "newer", r.nr = 0,
	r.chain = NULL;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SAMPLE, r.time = 350, r.nr = 3, r.chain = again;
	ty_collector_record(&r, c); /* lost both ways */
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	n = ty_collector_grafts(c, &g);
	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK_INT(g[0].time, 45);
		CHECK_INT(g[0].complete, 1);
		CHECK_INT(g[1].time, 99);
		CHECK_INT(g[1].complete, 1);
		CHECK_INT(g[2].time, 150);
		CHECK_INT(g[2].complete, 1);
		CHECK_INT(g[3].time, 210);
		CHECK_INT(g[3].complete, 0);
		CHECK_INT(g[4].time, 48); /* the off-CPU interval's */
		CHECK_INT(g[4].complete, 1);
		CHECK_INT(g[0].tid, 9);
		CHECK_INT(g[4].tid, 9);
	}
	unlink(path);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* One address, two files one after the other (a library unloaded and
 * another loaded in its place): the samples of each are resolved against
 * their own file, not merged into the first one's. */
static void
test_collector_same_address(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	uint64_t t[] = {20, 30, 35, 50, 60};
	char *s;
	int i;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = 7;
	r.type = TY_SAMPLER_REC_MMAP;
	r.start = 0x7f0000001000ull, r.len = 0x1000, r.pgoff = 0x1000;
	r.name = "/nonexistent/liba.so", r.time = 10;
	ty_collector_record(&r, c);
	for (i = 0; i < 5; i++) {
		if (t[i] == 50) {
			r.type = TY_SAMPLER_REC_MMAP;
			r.name = "/nonexistent/libb.so", r.time = 40;
			ty_collector_record(&r, c);
		}
		r.type = TY_SAMPLER_REC_SAMPLE;
		r.ip = 0x7f0000001100ull;
		r.period = 1000;
		r.time = t[i];
		r.user = 1;
		ty_collector_record(&r, c);
	}
	CHECK_INT(ty_symbols_epoch(syms, 7, 39), 0);
	CHECK_INT(ty_symbols_epoch(syms, 7, 40), 1);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	s = folded(p);
	CHECK_STR(s, "[unknown] 0x1100 in liba.so 3\n[unknown] 0x1100 in libb.so 2\n");
	free(s);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* Off-CPU samples: their states survive a round trip; trees end them in a
 * pseudo-frame per state, folded counts turn to nanoseconds, flat rows
 * split their off-CPU self time, and keep() leaves one side. */
static void
test_collector_switches(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	uint64_t chain[2] = {0x5000, 0x6000};
	size_t i, off = 0;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = 7;
	r.type = TY_SAMPLER_REC_SAMPLE; /* on-CPU at 100 */
	r.ip = 0x1000;
	r.period = 50;
	r.time = 100;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH; /* back in at 301 (another ring, drained first) */
	r.out = 0, r.time = 301, r.cpu = 1;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH_SAMPLE; /* the chain at the switch-out */
	r.time = 200, r.cpu = 0, r.nr = 2, r.chain = chain;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH;
	r.nr = 0, r.chain = NULL;
	r.out = 1, r.time = 201;
	ty_collector_record(&r, c);
	r.out = 1, r.preempt = 1, r.time = 400; /* preempted, back at 450 */
	ty_collector_record(&r, c);
	r.out = 0, r.preempt = 0, r.time = 450;
	ty_collector_record(&r, c);
	r.out = 1, r.time = 500; /* never back */
	ty_collector_record(&r, c);
	/* Thread 70001 (past 16 bits): its sample, then another thread's
	 * switch-out (8, with no sample and no on-CPU sample), then its own
	 * switch-out: not next to each other, the sample is still its. Their
	 * switch-ins come first, from another ring. */
	r.preempt = 0, r.cpu = 1;
	r.pid = r.tid = 8, r.out = 0, r.time = 700;
	ty_collector_record(&r, c);
	r.pid = r.tid = 70001, r.out = 0, r.time = 650;
	ty_collector_record(&r, c);
	r.cpu = 0;
	r.type = TY_SAMPLER_REC_SWITCH_SAMPLE, r.time = 600, r.nr = 2, r.chain = chain;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH, r.nr = 0, r.chain = NULL;
	r.pid = r.tid = 8, r.out = 1, r.time = 605;
	ty_collector_record(&r, c);
	r.pid = r.tid = 70001, r.out = 1, r.time = 601;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_INT(p->nsamples, 5);
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		uint32_t n = p->stack_off[s->stack + 1] - p->stack_off[s->stack];
		if (s->state == TY_STATE_CPU)
			continue;
		off++;
		if (s->time == 201) {
			CHECK_INT(s->period, 100);
			CHECK_INT(s->state, TY_STATE_BLOCKED); /* no kernel names here */
			CHECK_INT(n, 2);
		} else if (s->tid == 70001) {
			CHECK_INT(s->time, 601);
			CHECK_INT(s->period, 49);
			CHECK_INT(n, 2);
		} else if (s->tid == 8) {
			CHECK_INT(s->time, 605);
			CHECK_INT(s->period, 95);
			CHECK_INT(n, 0);
		} else {
			CHECK_INT(s->time, 400);
			CHECK_INT(s->period, 50);
			CHECK_INT(s->state, TY_STATE_RUNNABLE);
			CHECK_INT(n, 1); /* the on-CPU sample's stack */
			CHECK_INT(s->stack, p->samples[0].stack);
		}
	}
	CHECK_INT(off, 4);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* A thread that moves between two CPUs: its switch-outs in one ring, its
 * switch-ins in the other, each ring drained in chunks of different sizes
 * (the entries come as sorted runs, interleaved); a second thread's
 * entries in order between them. Every interval is paired exactly. */
static void
test_collector_runs(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	uint64_t chain[1] = {0x5000};
	size_t i, outs = 0, ins = 0, n = 1000, chunk = 1, off = 0, other = 0;

	memset(&r, 0, sizeof(r));
	r.pid = 7;
	r.type = TY_SAMPLER_REC_SWITCH;
	while (outs < n || ins < n) {
		for (i = 0; i < chunk && ins < n; i++, ins++) { /* ring 1: back in */
			r.tid = 7, r.type = TY_SAMPLER_REC_SWITCH, r.cpu = 1, r.out = 0;
			r.time = 1000 * ins + 10 + ins % 7;
			ty_collector_record(&r, c);
		}
		for (i = 0; i < chunk + 3 && outs < n; i++, outs++) { /* ring 0: out */
			r.tid = 7, r.cpu = 0, r.time = 1000 * outs;
			r.type = TY_SAMPLER_REC_SWITCH_SAMPLE, r.nr = 1, r.chain = chain;
			ty_collector_record(&r, c);
			r.type = TY_SAMPLER_REC_SWITCH, r.nr = 0, r.chain = NULL, r.out = 1;
			ty_collector_record(&r, c);
			r.tid = 9, r.out = 1, r.time = 1000 * outs + 1; /* thread 9, in order */
			ty_collector_record(&r, c);
			r.out = 0, r.time = 1000 * outs + 3;
			ty_collector_record(&r, c);
		}
		chunk = chunk * 3 % 17 + 1;
	}
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_INT(p->nsamples, 2 * n);
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		uint32_t len = p->stack_off[s->stack + 1] - p->stack_off[s->stack];
		if (s->tid == 9) {
			CHECK_INT(s->period, 2);
			other++;
			continue;
		}
		CHECK_INT(s->time % 1000, 0);
		CHECK_INT(s->period, 10 + s->time / 1000 % 7);
		CHECK_INT(len, 1);
		off++;
	}
	CHECK_INT(off, n);
	CHECK_INT(other, n);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* One switch-out of thread TID at T, back in at T + DUR; with a
 * context-switch sample of CHAIN (one frame) when CHAIN is not 0. */
static void
interval(struct ty_collector *c, uint32_t tid, uint64_t t, uint64_t dur, int preempt,
	 uint64_t chain)
{
	struct ty_sampler_rec r;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = tid;
	if (chain) {
		r.type = TY_SAMPLER_REC_SWITCH_SAMPLE, r.time = t, r.nr = 1, r.chain = &chain;
		ty_collector_record(&r, c);
		r.nr = 0, r.chain = NULL;
	}
	r.type = TY_SAMPLER_REC_SWITCH, r.time = t, r.out = 1, r.preempt = preempt;
	ty_collector_record(&r, c);
	r.time = t + dur, r.out = 0, r.preempt = 0;
	ty_collector_record(&r, c);
}

/* A chain of one frame, FRAME, read for thread TID at T (record-peek.c). */
static void
peek(struct ty_collector *c, uint32_t tid, uint64_t t, uint64_t frame)
{
	struct ty_sampler_rec r;

	memset(&r, 0, sizeof(r));
	r.type = TY_SAMPLER_REC_SWITCH_SAMPLE;
	r.pid = r.tid = tid, r.time = t, r.nr = 1, r.chain = &frame;
	ty_collector_peek(c, &r);
}

/* The address of off-CPU sample S's one frame (0: none). */
static uint64_t
frame_of(const struct ty_profile *p, const struct ty_prof_sample *s)
{
	if (p->stack_off[s->stack + 1] == p->stack_off[s->stack])
		return 0;
	return p->locs[p->frames[p->stack_off[s->stack]]].addr;
}

/* Chains read while a wait lasted (user space only, record-peek.c): a
 * peek inside an interval is its chain (counted as its own), whatever the
 * order the records came in; the kernel's chain at the switch-out comes
 * first; a peek while the thread ran is no interval's. ty_collector_off_cpu
 * lists the threads whose latest switch record is a switch-out, in an
 * interval not read yet, and not ended. */
static void
test_collector_peek(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	uint32_t tids[4];
	uint64_t k = 0x9000;
	size_t i, seen = 0;

	memset(&r, 0, sizeof(r));
	r.pid = r.tid = 7;
	r.type = TY_SAMPLER_REC_SAMPLE; /* on-CPU at 100 */
	r.ip = 0x1000, r.period = 50, r.time = 100;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH, r.out = 1, r.time = 201;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 1);
	CHECK_INT(tids[0], 7);
	CHECK_INT(ty_collector_pid_of(c, 7), 7);
	peek(c, 7, 250, 0x7000);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 0); /* read already */
	r.out = 0, r.time = 301;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 0); /* back on the CPU */
	peek(c, 7, 350, 0x7100);			/* on the CPU: no interval's */
	peek(c, 7, 550, 0x8000);			/* before its interval's records came */
	r.out = 1, r.preempt = 1, r.time = 400;
	ty_collector_record(&r, c);
	r.out = 0, r.preempt = 0, r.time = 450;
	ty_collector_record(&r, c);
	r.out = 1, r.time = 500;
	ty_collector_record(&r, c);
	r.out = 0, r.time = 600;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH_SAMPLE, r.time = 700, r.nr = 1, r.chain = &k;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_SWITCH, r.nr = 0, r.chain = NULL, r.out = 1, r.time = 700;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 1); /* the peek at 550 is older */
	peek(c, 7, 750, 0xa000);
	r.out = 0, r.time = 800;
	ty_collector_record(&r, c);
	r.out = 1, r.time = 900; /* then it ends */
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 1);
	r.type = TY_SAMPLER_REC_EXIT, r.time = 901;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_off_cpu(c, tids, 4), 0);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_INT(p->nsamples, 5);
	CHECK_INT(p->meta.off_cpu_chained, 3);
	CHECK_INT(p->meta.off_cpu_chained_ns, 300);
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		uint64_t f = frame_of(p, s);
		if (s->state == TY_STATE_CPU)
			continue;
		seen++;
		if (s->time == 201)
			CHECK_INT(f, 0x7000);
		else if (s->time == 400) /* preempted: no donor, its last sample */
			CHECK_INT(f, 0x1000);
		else if (s->time == 500)
			CHECK_INT(f, 0x8000);
		else
			CHECK_INT(f, 0x9000); /* the kernel's */
	}
	CHECK_INT(seen, 4);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* Chains at a sample of the switch-outs: an interval without one takes the
 * chain of one of its thread's, preempted or not as it was, of the 16
 * nearest in time the one with the nearest duration, then the nearest in
 * time; a thread with none has none (no on-CPU sample either). The
 * profile counts the intervals with their own chain and their time; the
 * note says so, and nothing when every interval has its own. */
static void
test_collector_impute(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	char note[512];
	size_t i, seen = 0;
	uint64_t t;

	/* thread 7: long sleeps (chain 0xa000) among short waits (0xb000) */
	interval(c, 7, 1000, 5000, 0, 0xa000);
	interval(c, 7, 7000, 10, 0, 0xb000);
	interval(c, 7, 8000, 4500, 0, 0);      /* long: 0xa000 */
	interval(c, 7, 13000, 12, 0, 0);       /* short: 0xb000 */
	interval(c, 7, 14000, 300, 1, 0xc000); /* preempted */
	interval(c, 7, 15000, 9, 1, 0);	       /* preempted: 0xc000, not 0xb000 */
	/* thread 9: 40 chained intervals of 0xd000 early, 40 of 0xe000 late,
	 * all of one duration; one without a chain near the late ones */
	for (i = 0, t = 0; i < 40; i++, t += 100)
		interval(c, 9, t, 50, 0, 0xd000);
	interval(c, 9, 99000, 50, 0, 0); /* ties: the nearest in time, 0xe000 */
	for (i = 0, t = 100000; i < 40; i++, t += 100)
		interval(c, 9, t, 50, 0, 0xe000);
	interval(c, 11, 500, 70, 0, 0); /* thread 11: no chain at all */
	/* thread 12: the donors are the 16 around it in time (8 before, 8
	 * after), not one far off with its very duration */
	for (i = 0, t = 0; i < 20; i++, t += 10000) {
		interval(c, 12, t, 100, 0, 0xf000);
		if (i == 9)
			interval(c, 12, t + 200, 5000, 0, 0);
	}
	interval(c, 12, 1000000, 5000, 0, 0xf100);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_INT(p->nsamples, 6 + 81 + 1 + 22);
	CHECK_INT(p->meta.off_cpu_chained, 3 + 80 + 21);
	CHECK_INT(p->meta.off_cpu_chained_ns, 5000 + 10 + 300 + 80 * 50 + 2000 + 5000);
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		uint64_t f = frame_of(p, s);
		uint64_t want = 1;
		if (s->tid == 7 && s->time == 8000)
			want = 0xa000;
		else if (s->tid == 7 && s->time == 13000)
			want = 0xb000;
		else if (s->tid == 7 && s->time == 15000)
			want = 0xc000;
		else if (s->tid == 9 && s->time == 99000)
			want = 0xe000;
		else if (s->tid == 11)
			want = 0;
		else if (s->tid == 12 && s->time == 90200)
			want = 0xf000;
		if (want == 1)
			continue;
		CHECK_INT(f, want);
		CHECK_INT(s->state, s->time == 15000 ? TY_STATE_RUNNABLE : TY_STATE_BLOCKED);
		seen++;
	}
	CHECK_INT(seen, 6);
	CHECK_INT(ty_profile_chains_note(p, note, sizeof(note)), -1); /* not off-CPU */
	p->meta.off_cpu = TY_OFFCPU_ONLY;
	p->meta.callchain = 1;
	p->meta.switch_chain_hz = 999;
	CHECK_INT(ty_profile_chains_note(p, note, sizeof(note)), 0);
	/* 16310 ns of 25951 */
	CHECK(strstr(note, "104 of 110 off-CPU intervals have a call chain of their own "
			   "(--off-cpu-chains 999), 62.8% of the off-CPU time") != NULL);
	p->meta.off_cpu_chained = 110; /* every one: said so */
	CHECK_INT(ty_profile_chains_note(p, note, sizeof(note)), 0);
	CHECK_STR(note, "all 110 off-CPU intervals have a call chain of their own, 100% of the "
			"off-CPU time");
	p->meta.off_cpu_chained = 0; /* none: nothing to say */
	CHECK_INT(ty_profile_chains_note(p, note, sizeof(note)), -1);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* The name of thread TID in P ("" when it is not there). */
static const char *
thread_name(const struct ty_profile *p, uint32_t tid)
{
	uint32_t i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return p->strings[p->threads[i].comm];
	return "";
}

/* Thread names: COMM records in the order they happened, not read (a
 * wrapper's exec read after the command's, from another ring); a thread
 * without a COMM of its own has its creator's final name, even when its
 * FORK was read before the creator's exec. */
static void
test_collector_names(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;

	memset(&r, 0, sizeof(r));
	r.type = TY_SAMPLER_REC_FORK; /* thread 31 of process 30, read first */
	r.pid = 30, r.tid = 31, r.ppid = 30, r.ptid = 30, r.time = 300;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_FORK; /* and thread 32, created by 31 */
	r.pid = 30, r.tid = 32, r.ppid = 30, r.ptid = 31, r.time = 400;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_COMM, r.pid = r.tid = 30, r.exec = 1;
	r.name = "prog", r.time = 200; /* the command's exec */
	ty_collector_record(&r, c);
	r.name = "taskset", r.time = 100; /* the wrapper's, read later */
	ty_collector_record(&r, c);
	r.exec = 0, r.pid = 30, r.tid = 33, r.name = "worker", r.time = 500;
	ty_collector_record(&r, c);
	/* process 40 creates 41, then renames itself: 41 keeps the name
	 * 40 had then */
	r.type = TY_SAMPLER_REC_COMM, r.pid = r.tid = 40, r.name = "prog", r.time = 100;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_FORK, r.pid = 40, r.tid = 41, r.ppid = 40, r.ptid = 40,
	r.time = 200;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_COMM, r.pid = r.tid = 40, r.name = "main-loop", r.time = 300;
	ty_collector_record(&r, c);
	/* 42 names itself; its FORK is read after */
	r.type = TY_SAMPLER_REC_COMM, r.pid = 40, r.tid = 42, r.name = "io", r.time = 250;
	ty_collector_record(&r, c);
	r.type = TY_SAMPLER_REC_FORK, r.pid = 40, r.tid = 42, r.ppid = 40, r.ptid = 40,
	r.time = 240;
	ty_collector_record(&r, c);
	/* a name read from /proc when attaching (time 0) gives way to a COMM
	 * record, whichever is read first */
	r.type = TY_SAMPLER_REC_COMM, r.pid = 40, r.tid = 43, r.name = "old", r.time = 0;
	ty_collector_record(&r, c);
	r.name = "new", r.time = 600;
	ty_collector_record(&r, c);
	r.tid = 44, r.name = "new", r.time = 600;
	ty_collector_record(&r, c);
	r.name = "old", r.time = 0;
	ty_collector_record(&r, c);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_STR(thread_name(p, 40), "main-loop");
	CHECK_STR(thread_name(p, 41), "prog");
	CHECK_STR(thread_name(p, 42), "io");
	CHECK_STR(thread_name(p, 43), "new");
	CHECK_STR(thread_name(p, 44), "new");
	CHECK_STR(thread_name(p, 30), "prog");
	CHECK_STR(thread_name(p, 31), "prog");
	CHECK_STR(thread_name(p, 32), "prog");
	CHECK_STR(thread_name(p, 33), "worker");
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

/* The command's processes under -a (ty_collector_tree_samples): its own
 * samples and those of every process that descends from it by the FORK
 * records, counted after the recording in the order of time, whatever
 * the order of the drain: a grandchild's fork drained before its parent's
 * counts; threads (pid == ppid) and others' children add nothing; a pid
 * is the command's only from the fork that made it so until another's
 * fork reuses it. */
static void
test_collector_tree(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	static const struct {
		int type;
		uint32_t pid, ppid;
		uint64_t time;
	} recs[] = {
	    {TY_SAMPLER_REC_SAMPLE, 100, 0, 10}, /* the command: counted */
	    {TY_SAMPLER_REC_SAMPLE, 200, 0, 10}, /* another process */
	    {TY_SAMPLER_REC_SAMPLE, 101, 0, 15}, /* an older process 101 (not the command's) */
	    {TY_SAMPLER_REC_FORK, 102, 101, 30}, /* a grandchild, drained first */
	    {TY_SAMPLER_REC_FORK, 101, 100, 20}, /* the command's child (reuses 101) */
	    {TY_SAMPLER_REC_FORK, 201, 200, 21}, /* another's */
	    {TY_SAMPLER_REC_FORK, 100, 100, 22}, /* a thread of the command */
	    {TY_SAMPLER_REC_FORK, 202, 202, 23}, /* a thread of another */
	    {TY_SAMPLER_REC_COMM, 100, 0, 24},	 /* not a sample */
	    {TY_SAMPLER_REC_SAMPLE, 101, 0, 40}, /* counted */
	    {TY_SAMPLER_REC_SAMPLE, 102, 0, 40}, /* counted */
	    {TY_SAMPLER_REC_SAMPLE, 201, 0, 40}, /* not */
	    {TY_SAMPLER_REC_SAMPLE, 0, 0, 40},	 /* the idle task: not */
	    {TY_SAMPLER_REC_SAMPLE, 100, 0, 41}, /* counted */
	    {TY_SAMPLER_REC_FORK, 102, 300, 50}, /* 102 gone, its pid reused by another's */
	    {TY_SAMPLER_REC_SAMPLE, 102, 0, 45}, /* before: counted */
	    {TY_SAMPLER_REC_SAMPLE, 102, 0, 55}, /* after: not */
	    {TY_SAMPLER_REC_FORK, 103, 102, 60}, /* by the new 102: not */
	    {TY_SAMPLER_REC_SAMPLE, 103, 0, 61}, /* not */
	    {TY_SAMPLER_REC_SAMPLE, 104, 0, 61}, /* its fork not seen yet... */
	    {TY_SAMPLER_REC_FORK, 104, 101, 59}, /* ...the command's: counted */
	    {TY_SAMPLER_REC_SAMPLE, 105, 0, 65}, /* never forked: not */
	};
	uint64_t n = 99;
	size_t i;

	CHECK_INT(ty_collector_tree_samples(c, 100, &n), 0); /* nothing yet */
	CHECK_INT(n, 0);
	for (i = 0; i < sizeof(recs) / sizeof(*recs); i++) {
		memset(&r, 0, sizeof(r));
		r.type = recs[i].type;
		r.pid = r.tid = recs[i].pid;
		r.ppid = r.ptid = recs[i].ppid;
		r.time = recs[i].time;
		r.period = 1;
		r.ip = 0x400000 + i; /* for the samples */
		r.name = "x";	     /* for the COMM */
		ty_collector_record(&r, c);
	}
	CHECK_INT(ty_collector_samples(c), 13);
	CHECK_INT(ty_collector_tree_samples(c, 100, &n), 0);
	CHECK_INT(n, 6);
	CHECK_INT(ty_collector_tree_samples(c, 100, &n), 0); /* asked again: the same */
	CHECK_INT(n, 6);
	CHECK_INT(ty_collector_tree_samples(c, 200, &n), 0); /* 200 and 201 */
	CHECK_INT(n, 2);
	CHECK_INT(ty_collector_tree_samples(c, 999, &n), 0);
	CHECK_INT(n, 0);
	ty_collector_no_names(c);
	CHECK_INT(ty_collector_finish(c, p, &e), 0);
	CHECK_INT(p->nsamples, 13);
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
}

int
main(void)
{
	test_collector_names();
	test_collector_switches();
	test_collector_impute();
	test_collector_runs();
	test_collector_peek();
	test_collector();
	test_collector_tree();
	test_collector_same_address();
	test_collector_exec();
	test_collector_exec_entry();
	test_collector_exec_grafts();
	return check_done();
}
