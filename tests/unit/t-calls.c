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

int
main(void)
{
	test_names();
	test_sweep();
	return check_done();
}
