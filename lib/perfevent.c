/* perfevent.c - perf_event_open and its probes (see perfevent.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tachy/perfevent.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

void
ty_perfevent_attr_init(struct perf_event_attr *attr, uint32_t type, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

int
ty_perfevent_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int
ty_perfevent_open_user(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags)
{
	int fd = ty_perfevent_open(attr, pid, cpu, group_fd, flags);

	if (fd == -EACCES || fd == -EPERM) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		fd = ty_perfevent_open(attr, pid, cpu, group_fd, flags);
	}
	return fd;
}

int
ty_perfevent_try(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = ty_perfevent_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The number at the start of the small file PATH into *V. Returns 0, or
 * -errno (-EIO: empty, -EINVAL: not a number). */
static int
read_number(const char *path, long *v)
{
	char buf[32], *end;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*v = strtol(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

int
ty_perfevent_paranoid(int *level)
{
	long v;
	int err = read_number(PARANOID_PATH, &v);

	if (err == 0)
		*level = (int)v;
	return err;
}

int
ty_perfevent_pmu_type(const char *name)
{
	char path[128];
	long v;

	if (strchr(name, '/') ||
	    (size_t)snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name) >=
		sizeof(path) ||
	    read_number(path, &v) < 0)
		return -1;
	return v < 0 || v > 0x7fffffff ? -1 : (int)v;
}
