/* t-record-system.c - what record -a adds: the records synthesized from a
 * /proc fixture (tests/unit/data/proc), the idle task's name, and the
 * facts of a system-wide profile (CPUs, command line, idle share). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/profile-file.h"
#include "tachy/record-system.h"

struct seen {
	char lines[64][160];
	int n;
};

static void
take(const struct ty_sampler_rec *r, void *arg)
{
	struct seen *s = arg;

	if (s->n == 64)
		return;
	if (r->type == TY_SAMPLER_REC_COMM)
		snprintf(s->lines[s->n++], 160, "comm %u/%u %s time %llu", r->pid, r->tid, r->name,
			 (unsigned long long)r->time);
	else if (r->type == TY_SAMPLER_REC_MMAP)
		snprintf(s->lines[s->n++], 160, "mmap %u %llx+%llx@%llx %s", r->pid,
			 (unsigned long long)r->start, (unsigned long long)r->len,
			 (unsigned long long)r->pgoff, r->name);
	else
		snprintf(s->lines[s->n++], 160, "other %d", (int)r->type);
}

static void
synthesize(void)
{
	static const char *const want[] = {
	    "comm 0/0 [idle] time 0",
	    "comm 2/2 kthreadd time 0",
	    "comm 100/100 my (odd) prog time 0",
	    "comm 100/101 worker-1 time 0",
	    "mmap 100 55d0c0001000+4000@1000 /usr/bin/myprog",
	    "mmap 100 7f1000001000+ff000@1000 /usr/lib/libold.so.1 (deleted)",
	    "mmap 100 7f2000000000+2000@0 [vdso]",
	    "mmap 100 ffffffffff600000+1000@0 [vsyscall]",
	    "comm 200/200 defunct time 0",
	};
	const char *top = getenv("TOP");
	char root[4096];
	struct seen s = {0};
	struct ty_error e = {0};
	size_t i;

	snprintf(root, sizeof(root), "%s/tests/unit/data/proc", top ? top : ".");
	CHECK_INT(ty_record_system_synthesize(root, take, &s, &e), 3);
	CHECK_INT(s.n, (int)(sizeof(want) / sizeof(*want)));
	for (i = 0; i < sizeof(want) / sizeof(*want) && (int)i < s.n; i++)
		CHECK_STR(s.lines[i], want[i]);
	CHECK(ty_record_system_synthesize("/nonexistent", take, &s, &e) < 0);
}

static void
meta(void)
{
	struct ty_profile *p = ty_profile_new();
	struct ty_prof_sample smp = {0};
	char *argv[] = {"make", "-j2", NULL};
	int cpus[] = {0, 1, 2, 3, 6};
	uint32_t st;

	ty_profile_thread(p, 0, 0, TY_IDLE_COMM);
	ty_profile_thread(p, 10, 10, "make");
	st = ty_profile_stack(p, NULL, 0);
	p->meta.period_ns = 1;
	smp.stack = st;
	smp.tid = 0, smp.period = 3000, ty_profile_sample(p, &smp);
	smp.tid = 10, smp.period = 1000, ty_profile_sample(p, &smp);
	CHECK_NEAR(ty_record_system_idle(p), 0.75, 1e-12);
	CHECK_INT(ty_record_system_meta(p, cpus, 5, 8, argv), 0);
	CHECK_INT(p->meta.system_wide, 1);
	CHECK_STR(p->meta.cpus, "0-3,6");
	CHECK_STR(p->meta.command, "-a -C 0-3,6 -- make -j2");
	CHECK_INT(p->meta.workload_cpu_ns, 1000); /* the idle task's time is not work */
	CHECK_INT(ty_record_system_meta(p, NULL, 0, 2, NULL), 0);
	CHECK_STR(p->meta.cpus, "0-1");
	CHECK_STR(p->meta.command, "-a");
	{ /* the facts survive the file */
		char path[] = "/tmp/t-record-system-XXXXXX";
		int fd = mkstemp(path);
		struct ty_profile *q = NULL;
		struct ty_error e = {0};
		close(fd);
		CHECK_INT(ty_profile_write(p, path, &e), 0);
		CHECK_INT(ty_profile_read(path, &q, &e), 0);
		if (q) {
			CHECK_INT(q->meta.system_wide, 1);
			CHECK_STR(q->meta.cpus, "0-1");
			CHECK_NEAR(ty_record_system_idle(q), 0.75, 1e-12);
		}
		ty_profile_free(q);
		unlink(path);
	}
	ty_profile_free(p);
}

int
main(void)
{
	synthesize();
	meta();
	return check_done();
}
