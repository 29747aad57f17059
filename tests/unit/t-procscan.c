/* t-procscan.c - the /proc reader on a fixture (tests/unit/data/proc): a
 * process with threads and deleted, anonymous and special mappings, a
 * kernel thread, a zombie, a stat that does not parse; then on this
 * machine's /proc, which has at least this process. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/procscan.h"

static const struct ty_proc *
find(const struct ty_procscan *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static void
fixture(void)
{
	const char *top = getenv("TOP");
	char root[4096];
	struct ty_procscan s;
	struct ty_error e = {0};
	const struct ty_proc *p;

	snprintf(root, sizeof(root), "%s/tests/unit/data/proc", top ? top : ".");
	CHECK_INT(ty_procscan_read(&s, root, 1, &e), 0);
	CHECK_INT(s.n, 3); /* 2, 100, 200: 300's stat does not parse */
	CHECK_INT(s.procs[0].pid, 2);
	CHECK_INT(s.procs[1].pid, 100);
	CHECK_INT(s.procs[2].pid, 200);

	p = find(&s, 100);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->comm, "my (odd) prog");
		CHECK_INT(p->ppid, 1);
		CHECK_INT(p->state, 'S');
		CHECK_INT(p->kthread, 0);
		CHECK_INT(p->nthreads, 2);
		CHECK_INT(p->threads[0].tid, 100);
		CHECK_STR(p->threads[0].comm, "my (odd) prog");
		CHECK_INT(p->threads[1].tid, 101);
		CHECK_STR(p->threads[1].comm, "worker-1");
		CHECK_INT(p->nmaps, 5); /* executable only; bad lines skipped */
		if (p->nmaps == 5) {
			CHECK_INT(p->maps[0].kind, TY_PMAP_FILE);
			CHECK_STR(p->maps[0].path, "/usr/bin/myprog");
			CHECK_INT(p->maps[0].start, 0x55d0c0001000ull);
			CHECK_INT(p->maps[0].end, 0x55d0c0005000ull);
			CHECK_INT(p->maps[0].pgoff, 0x1000);
			CHECK_INT(p->maps[1].kind, TY_PMAP_ANON);
			CHECK(p->maps[1].path == NULL);
			CHECK_INT(p->maps[2].kind, TY_PMAP_DELETED);
			CHECK_STR(p->maps[2].path, "/usr/lib/libold.so.1 (deleted)");
			CHECK_INT(p->maps[3].kind, TY_PMAP_SPECIAL);
			CHECK_STR(p->maps[3].path, "[vdso]");
			CHECK_INT(p->maps[4].kind, TY_PMAP_SPECIAL);
			CHECK_STR(p->maps[4].path, "[vsyscall]");
		}
	}
	p = find(&s, 2);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->comm, "kthreadd");
		CHECK_INT(p->kthread, 1);
		CHECK_INT(p->ppid, 0);
		CHECK_INT(p->nmaps, 0);
		CHECK_INT(p->nthreads, 1);
	}
	p = find(&s, 200);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->comm, "defunct");
		CHECK_INT(p->state, 'Z');
		CHECK_INT(p->kthread, 0);
		CHECK_INT(p->ppid, 100);
		CHECK_INT(p->nmaps, 0);
		CHECK_INT(p->nthreads, 1); /* no task/ left: the process alone */
		CHECK_INT(p->threads[0].tid, 200);
	}
	ty_procscan_release(&s);
	CHECK_INT(ty_procscan_read(&s, "/nonexistent-proc", 1, &e), -ENOENT);
	CHECK_STR(e.msg, "cannot read /nonexistent-proc: No such file or directory");
	CHECK_INT(s.n, 0);
}

static void
stat_lines(void)
{
	struct ty_proc p;
	const char *ok = "7 (a) b) R 3 0 0 0 -1 64 x";
	const char *bad[] = {"",
			     "7",
			     "(a) R 1 2 3 4 5 6",
			     "7 (a) R",
			     "7 (a) R 1 2 3",
			     "x7 (a) R 1 2 3 4 5 6",
			     "7 (a) R -1 2 3 4 5 6",
			     "7 (a) R 1 2 3 4 5 z",
			     "7(a) R 1 2 3 4 5 6"};
	size_t i;

	memset(&p, 0, sizeof(p));
	CHECK_INT(ty_procscan_parse_stat(ok, strlen(ok), &p), 0);
	CHECK_INT(p.pid, 7);
	CHECK_STR(p.comm, "a) b");
	CHECK_INT(p.state, 'R');
	CHECK_INT(p.ppid, 3);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (!CHECK(ty_procscan_parse_stat(bad[i], strlen(bad[i]), &p) == -EINVAL))
			printf("     accepted \"%s\"\n", bad[i]);
}

static void
live(void)
{
	struct ty_procscan s;
	struct ty_error e = {0};
	const struct ty_proc *me;
	size_t i;
	int exe = 0;

	CHECK_INT(ty_procscan_read(&s, "/proc", 1, &e), 0);
	me = find(&s, (uint32_t)getpid());
	CHECK(me != NULL);
	if (me) {
		CHECK_STR(me->comm, "t-procscan");
		CHECK_INT(me->state, 'R');
		CHECK(me->nmaps > 0);
		for (i = 0; i < me->nmaps; i++)
			exe |= me->maps[i].path && strstr(me->maps[i].path, "t-procscan") != NULL;
		CHECK(exe);
	}
	ty_procscan_release(&s);
}

int
main(void)
{
	fixture();
	stat_lines();
	live();
	return check_done();
}
