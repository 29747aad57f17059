/* t-memcg.c - the memory cgroup reader on fixture roots (v1, v2, none). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

int
main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_v1();
	test_v2();
	test_none();
	clean();
	rmdir(root);
	return check_done();
}
