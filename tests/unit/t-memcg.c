/* t-memcg.c - the memory cgroup reader on fixture roots (v1, v2, none). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/memcg.h"

static char root[] = "/tmp/t-memcg-XXXXXX";

static void
put(const char *rel, const char *text)
{
	char path[4096], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void
get(const char *rel, char *buf, size_t size)
{
	char path[4096];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void
clean(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/proc %s/sys", root, root);
	if (system(cmd) != 0)
		printf("# cannot clean %s\n", root);
}

static void
test_v1(void)
{
	struct ty_memcg m;
	struct ty_error e;
	char buf[256];

	clean();
	put("proc/self/cgroup", "9:name=systemd:/\n4:cpu,memory:/grp/sub\n0::/\n");
	put("sys/fs/cgroup/memory/memory.max_usage_in_bytes", "0\n");
	put("sys/fs/cgroup/memory/grp/sub/tachy-t/memory.max_usage_in_bytes", "\n");
	put("sys/fs/cgroup/memory/grp/sub/tachy-t/cgroup.procs", "");
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), 0);
	CHECK_STR(ty_memcg_method(&m), "cgroup-v1");
	CHECK_INT(m.version, 1);
	get("sys/fs/cgroup/memory/grp/sub/tachy-t/memory.max_usage_in_bytes", buf, sizeof(buf));
	CHECK_STR(buf, "0\n"); /* reset at open */
	CHECK_INT(ty_memcg_enter(&m, 4242, &e), 0);
	get("sys/fs/cgroup/memory/grp/sub/tachy-t/cgroup.procs", buf, sizeof(buf));
	CHECK_STR(buf, "4242\n");
	put("sys/fs/cgroup/memory/grp/sub/tachy-t/memory.max_usage_in_bytes", "104857600\n");
	CHECK_INT(ty_memcg_peak_kb(&m), 102400);
	put("sys/fs/cgroup/memory/grp/sub/tachy-t/memory.max_usage_in_bytes", "12x\n");
	CHECK_INT(ty_memcg_peak_kb(&m), -EIO);
	put("sys/fs/cgroup/memory/grp/sub/tachy-t/memory.max_usage_in_bytes", "");
	CHECK_INT(ty_memcg_peak_kb(&m), -EIO);
	ty_memcg_close(&m);
	CHECK(ty_memcg_method(&m) == NULL);
	CHECK_INT(ty_memcg_peak_kb(&m), -EBADF);
	/* a name that is a path is refused */
	CHECK_INT(ty_memcg_open(&m, root, "../x", &e), -EINVAL);
	CHECK_INT(ty_memcg_open(&m, root, "", &e), -EINVAL);
}

static void
test_v2(void)
{
	struct ty_memcg m;
	struct ty_error e;
	char buf[256];

	clean();
	put("proc/self/cgroup", "0::/user.slice/me\n");
	put("sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n");
	put("sys/fs/cgroup/user.slice/me/cgroup.subtree_control", "cpu memory\n");
	put("sys/fs/cgroup/user.slice/me/tachy-t/memory.peak", "\n");
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), 0);
	CHECK_STR(ty_memcg_method(&m), "cgroup-v2");
	get("sys/fs/cgroup/user.slice/me/tachy-t/memory.peak", buf, sizeof(buf));
	CHECK_STR(buf, "reset\n");
	put("sys/fs/cgroup/user.slice/me/tachy-t/memory.peak", "2048\n");
	CHECK_INT(ty_memcg_peak_kb(&m), 2);
	ty_memcg_close(&m);
	/* the controller not enabled below our group: v2 says why, and with no
	 * v1 hierarchy either there is none */
	put("sys/fs/cgroup/user.slice/me/cgroup.subtree_control", "cpu\n");
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), -ENOENT);
	/* a hybrid machine: cgroup2 at /sys/fs/cgroup/unified without the
	 * controller, v1's memory hierarchy (as on the machine this was made
	 * on): v1 is used */
	clean();
	put("proc/self/cgroup", "4:memory:/\n0::/\n");
	put("sys/fs/cgroup/unified/cgroup.controllers", "");
	put("sys/fs/cgroup/unified/cgroup.subtree_control", "");
	put("sys/fs/cgroup/memory/memory.max_usage_in_bytes", "0\n");
	put("sys/fs/cgroup/memory/tachy-t/memory.max_usage_in_bytes", "\n");
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), 0);
	CHECK_STR(ty_memcg_method(&m), "cgroup-v1");
	ty_memcg_close(&m);
}

static void
test_none(void)
{
	struct ty_memcg m;
	struct ty_error e;

	clean();
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), -ENOENT);
	/* garbage in /proc/self/cgroup: no group found, no crash */
	put("proc/self/cgroup", "garbage\n::\n4:memory:relative\n4:memory:/a/../../etc\n");
	put("sys/fs/cgroup/memory/memory.max_usage_in_bytes", "0\n");
	CHECK_INT(ty_memcg_open(&m, root, "tachy-t", &e), -ENOENT);
	/* the group cannot be made (its parent is missing) */
	put("proc/self/cgroup", "4:memory:/missing\n");
	CHECK(ty_memcg_open(&m, root, "tachy-t", &e) < 0);
	CHECK(strstr(e.msg, "cannot make") != NULL);
}

/* The two parsers on bad input: a clear "none" (-ENOENT, -EIO), never a
 * wrong group or number. */
static void
test_parse(void)
{
	char out[64], big[5000];
	const char *t;

	t = "12:pids:/a\n4:cpu,memory:/grp/sub\n0::/user.slice\n";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 1, out, sizeof(out)), 0);
	CHECK_STR(out, "/grp/sub");
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 2, out, sizeof(out)), 0);
	CHECK_STR(out, "/user.slice");
	/* no newline at the end, a path with colons */
	t = "0::/a:b";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 2, out, sizeof(out)), 0);
	CHECK_STR(out, "/a:b");
	/* "memory" only as a whole word of the list; the ID all digits */
	t = "4:memoryx,xmemory:/no\nx4:memory:/no\n:memory:/no\n";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 1, out, sizeof(out)), -ENOENT);
	/* v2 is "0::" exactly */
	t = "00::/no\n0:memory:/no\n1::/no\n";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 2, out, sizeof(out)), -ENOENT);
	/* relative, a way up, empty, a NUL inside, too long for OUT */
	t = "4:memory:rel\n4:memory:/a/../../etc\n4:memory:\n";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 1, out, sizeof(out)), -ENOENT);
	CHECK_INT(ty_memcg_parse_cgroup("4:memory:/a\0b\n", 14, 1, out, sizeof(out)), -ENOENT);
	t = "4:memory:/0123456789012345678901234567890123456789012345678901234567890123456789\n";
	CHECK_INT(ty_memcg_parse_cgroup(t, strlen(t), 1, out, sizeof(out)), -ENOENT);
	CHECK_INT(ty_memcg_parse_cgroup("", 0, 1, out, sizeof(out)), -ENOENT);
	/* a line longer than any line buffer is one line, not pieces: its
	 * tail is not taken for a line of its own */
	memset(big, 'x', sizeof(big));
	memcpy(big + 4095, "4:memory:/evil\n", 15);
	CHECK_INT(ty_memcg_parse_cgroup(big, 4110, 1, out, sizeof(out)), -ENOENT);

	CHECK_INT(ty_memcg_parse_peak("1048576\n", 8), 1024);
	CHECK_INT(ty_memcg_parse_peak("2047", 4), 1);
	CHECK_INT(ty_memcg_parse_peak("0\n", 2), 0);
	CHECK_INT(ty_memcg_parse_peak("-5\n", 3), -EIO); /* strtoull: 2^64 - 5 */
	CHECK_INT(ty_memcg_parse_peak("+5\n", 3), -EIO);
	CHECK_INT(ty_memcg_parse_peak(" 5\n", 3), -EIO);
	CHECK_INT(ty_memcg_parse_peak("5 \n", 3), -EIO);
	CHECK_INT(ty_memcg_parse_peak("5\n\n", 3), -EIO);
	CHECK_INT(ty_memcg_parse_peak("\n", 1), -EIO);
	CHECK_INT(ty_memcg_parse_peak("", 0), -EIO);
	CHECK_INT(ty_memcg_parse_peak("99999999999999999999999\n", 24), -EIO);
	CHECK(ty_memcg_parse_peak("18446744073709551615\n", 21) > 0); /* 2^64 - 1 bytes */
}

int
main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_parse();
	test_v1();
	test_v2();
	test_none();
	clean();
	rmdir(root);
	return check_done();
}
