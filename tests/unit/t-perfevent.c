/* t-perfevent.c - the one opener of perf events: the attr's start, the
 * errno kept on failure, the user-space-only retry, the probe, and
 * kernel.perf_event_paranoid read as the file says. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "tachy/perfevent.h"

static void
test_attr_init(void)
{
	struct perf_event_attr a;

	memset(&a, 0xff, sizeof(a));
	ty_perfevent_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_INT(a.size, sizeof(a));
	CHECK_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_INT(a.config, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_INT(a.sample_period, 0);
	CHECK_INT(a.config1, 0);
	CHECK_INT(a.exclude_kernel, 0);
	CHECK_INT(a.disabled, 0);
}

/* A PMU type no kernel has: refused, and the return is -errno. */
static void
test_open_fails(void)
{
	struct perf_event_attr a;
	int fd;

	ty_perfevent_attr_init(&a, 0x7ffffff0u, 0);
	errno = 0;
	fd = ty_perfevent_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(fd < 0);
	CHECK_INT(fd, -errno);
	CHECK(errno != 0);
	errno = 0;
	CHECK_INT(ty_perfevent_try(&a, 0, -1), -errno);
}

/* task-clock on ourselves: where the kernel includes the kernel it stays
 * included; where it refuses (paranoid 2, unprivileged) the retry asks
 * for user space only. Either way the event opens where perf_event_open
 * exists at all. */
static void
test_open_user(void)
{
	struct perf_event_attr a;
	int fd;

	ty_perfevent_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.disabled = 1;
	fd = ty_perfevent_open_user(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd == -ENOSYS || fd == -EACCES || fd == -EPERM) {
		printf("# no perf_event_open for this process here (%s): the open is not checked\n",
		       strerror(-fd));
		return;
	}
	CHECK(fd >= 0);
	CHECK_INT(a.exclude_kernel, a.exclude_hv);
	if (fd >= 0)
		close(fd);
	CHECK_INT(ty_perfevent_try(&a, 0, -1), 0);
}

static void
test_paranoid(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int want, level = -100;

	if (!fp) {
		CHECK(ty_perfevent_paranoid(&level) < 0);
		CHECK_INT(level, -100);
		return;
	}
	CHECK_INT(fscanf(fp, "%d", &want), 1);
	fclose(fp);
	CHECK_INT(ty_perfevent_paranoid(&level), 0);
	CHECK_INT(level, want);
}

int
main(void)
{
	test_attr_init();
	test_open_fails();
	test_open_user();
	test_paranoid();
	return check_done();
}
