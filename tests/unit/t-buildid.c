/* t-buildid.c - a recorded build found in perf's build-id cache
 * (lib/buildid.c): both layouts, a FIFO and a link to another build
 * refused with their reasons, a folder in the old layout's place skipped;
 * and the sched_switch format of a tracing data (lib/profile-perfdata-sched.c):
 * its fields, a raw record read and one too short, another ID, a cut
 * tracing data, prev_state's states. The file of a build is this test's own
 * binary (its build-id read here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/buildid.h"
#include "tachy/profile-perfdata-sched.h"
#include "tachy/profile.h"

static char dir[] = "/tmp/t-buildid.XXXXXX";

static void
check_cache(void)
{
	char self[4096], hex[129], path[8400], why[600], cache[4200], xx[3];
	uint64_t dev = 0, ino = 0;
	struct ty_buildid_finder *f;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *rec = "/usr/bin/recorded-prog";

	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	CHECK_INT(ty_buildid_check(self, "", hex, &dev, &ino, why, sizeof(why)), 0);
	if (strlen(hex) < 8) {
		printf("# no build-id in %s: the cache checks are skipped\n", self);
		return;
	}
	snprintf(xx, sizeof(xx), "%.2s", hex);
	/* no cache, an empty one */
	f = ty_buildid_finder_new(NULL, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_NONE);
	ty_buildid_finder_free(f);
	snprintf(cache, sizeof(cache), "%s/c1", dir);
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_NONE);
	CHECK_STR(why, "");
	/* perf's layout: .build-id/XX/REST -> ../../PATH/ID, a folder with elf */
	snprintf(path, sizeof(path),
		 "mkdir -p %s/c1/.build-id/%s %s/c1/usr/bin/recorded-prog/%s && cp %s "
		 "%s/c1/usr/bin/recorded-prog/%s/elf && ln -s ../../usr/bin/recorded-prog/%s "
		 "%s/c1/.build-id/%s/%s",
		 dir, xx, dir, hex, self, dir, hex, hex, dir, xx, hex + 2);
	CHECK_INT(system(path), 0);
	ty_buildid_finder_free(f);
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_CACHE);
	CHECK(strstr(path, "/c1/.build-id/") && strstr(path, "/elf"));
	CHECK(ino != 0);
	ty_buildid_finder_free(f);
	/* perf before 4.6: the file itself at PATH/ID */
	snprintf(cache, sizeof(cache), "%s/c0", dir);
	snprintf(path, sizeof(path),
		 "mkdir -p %s/c0/usr/bin/recorded-prog && cp %s %s/c0/usr/bin/recorded-prog/%s",
		 dir, self, dir, hex);
	CHECK_INT(system(path), 0);
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_CACHE);
	CHECK(strstr(path, "/c0/usr/bin/recorded-prog/") != NULL);
	ty_buildid_finder_free(f);
	/* a FIFO at the build-id's name, then a link there to another file */
	snprintf(cache, sizeof(cache), "%s/c2", dir);
	snprintf(path, sizeof(path), "mkdir -p %s/c2/.build-id/%s && mkfifo %s/c2/.build-id/%s/%s",
		 dir, xx, dir, xx, hex + 2);
	CHECK_INT(system(path), 0);
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_NONE);
	CHECK(strstr(why, "is a FIFO: ignored") != NULL);
	ty_buildid_finder_free(f);
	snprintf(cache, sizeof(cache), "%s/c3", dir);
	snprintf(path, sizeof(path),
		 "mkdir -p %s/c3/.build-id/%s/%s && ln -s /bin/sh %s/c3/.build-id/%s/%s/elf", dir,
		 xx, hex + 2, dir, xx, hex + 2);
	CHECK_INT(system(path), 0);
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(ty_buildid_find(f, hex, rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
		  TY_BUILDID_NONE);
	CHECK(strstr(why, "has build-id") && strstr(why, ": ignored"));
	ty_buildid_finder_free(f);
	/* not hex: nothing looked up */
	f = ty_buildid_finder_new(cache, 0);
	CHECK_INT(
	    ty_buildid_find(f, "../../etc", rec, path, sizeof(path), &dev, &ino, why, sizeof(why)),
	    TY_BUILDID_NONE);
	ty_buildid_finder_free(f);
}

static const char fmt[] = "name: sched_switch\nID: 372\nformat:\n"
			  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
			  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
			  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
			  "\nprint fmt: \"x\"\n";

/* Tracing data holding FMT as the one event of system "sched". */
static size_t
tracing(unsigned char *t)
{
	size_t n = 0;
	uint64_t len = sizeof(fmt) - 1, four = 4;
	uint32_t zero = 0, one = 1, page = 4096;

#define PUT(p, l) (memcpy(t + n, (p), (l)), n += (l))
	PUT("\x17\x08"
	    "Dtracing0.6",
	    14);
	PUT("\0\x08", 2);
	PUT(&page, 4);
	PUT("header_page", 12);
	PUT(&four, 8);
	PUT("abcd", 4);
	PUT("header_event", 13);
	PUT(&zero, 4), PUT(&zero, 4); /* a u64 size of 0 */
	PUT(&zero, 4);		      /* ftrace's formats */
	PUT(&one, 4);
	PUT("sched", 6);
	PUT(&one, 4);
	PUT(&len, 8);
	PUT(fmt, sizeof(fmt) - 1);
	PUT(&zero, 4), PUT(&zero, 4);
#undef PUT
	return n;
}

static void
check_sched(void)
{
	unsigned char t[2048], raw[64];
	struct ty_tp_switch sw;
	char name[64], why[200];
	size_t n = tracing(t);
	uint32_t prev = 0, next = 0, v;
	uint64_t state = 0, s = 2;

	CHECK_INT(ty_tp_format(t, n, 372, name, sizeof(name), &sw, why, sizeof(why)), 0);
	CHECK_STR(name, "sched_switch");
	CHECK_INT(sw.prev_pid.off, 24);
	CHECK_INT(sw.prev_state.size, 8);
	CHECK_INT(sw.next_pid.off, 56);
	CHECK_INT(sw.need, 60);
	memset(raw, 0, sizeof(raw));
	v = 77, memcpy(raw + 24, &v, 4);
	memcpy(raw + 32, &s, 8);
	v = 78, memcpy(raw + 56, &v, 4);
	CHECK_INT(ty_tp_switch_read(&sw, raw, 64, &prev, &state, &next), 0);
	CHECK_INT(prev, 77);
	CHECK_INT(next, 78);
	CHECK_INT(state, 2);
	CHECK_INT(ty_tp_switch_read(&sw, raw, 59, &prev, &state, &next), -1);
	CHECK_INT(ty_tp_format(t, n, 999, name, sizeof(name), &sw, why, sizeof(why)), -1);
	CHECK_STR(why, "its tracing data has no format of tracepoint 999");
	CHECK_INT(ty_tp_format(t, n - 60, 372, name, sizeof(name), &sw, why, sizeof(why)), -1);
	CHECK_STR(why, "its tracing data is cut before tracepoint 372");
	CHECK_INT(ty_tp_format(NULL, 0, 372, name, sizeof(name), &sw, why, sizeof(why)), -1);
	CHECK_INT(ty_tp_switch_state(0), TY_STATE_RUNNABLE);
	CHECK_INT(ty_tp_switch_state(0x100), TY_STATE_RUNNABLE);
	CHECK_INT(ty_tp_switch_state(1), TY_STATE_SLEEP);
	CHECK_INT(ty_tp_switch_state(0x80), TY_STATE_SLEEP);
	CHECK_INT(ty_tp_switch_state(2), TY_STATE_IO);
	CHECK_INT(ty_tp_switch_state(4), TY_STATE_BLOCKED);
}

int
main(void)
{
	char cmd[100];

	CHECK(mkdtemp(dir) != NULL);
	check_cache();
	check_sched();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_done();
}
