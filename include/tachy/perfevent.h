/* perfevent.h - the one place that opens a perf event: perf_event_open(2)
 * from an attr, its errno kept, the probes that open an event only to see
 * whether the kernel allows it, and kernel.perf_event_paranoid. The
 * counters, the sampler, the call counts, the clocks and the machine's
 * facts all open their events here. */
#ifndef TACHY_PERFEVENT_H
#define TACHY_PERFEVENT_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

/* Zero *ATTR and set its size, TYPE and CONFIG: the start of every attr. */
void ty_perfevent_attr_init(struct perf_event_attr *attr, uint32_t type, uint64_t config);

/* perf_event_open(2): the event ATTR on PID (0 this process, -1 every
 * one: then CPU is one CPU) and CPU (-1 any), in GROUP_FD's group (-1
 * none), with FLAGS (PERF_FLAG_FD_CLOEXEC...). Returns the file
 * descriptor, or -errno with errno left set as the kernel set it (EACCES
 * or EPERM: perf_event_paranoid or a missing capability; ENOENT, ENODEV,
 * EOPNOTSUPP: no such event here; ENOSYS: no perf_event_open at all). */
int ty_perfevent_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags);

/* ty_perfevent_open, and where the kernel refuses it for permission
 * (EACCES, EPERM: perf_event_paranoid 2 keeps an unprivileged user out
 * of the kernel) once more with exclude_kernel and exclude_hv set, which
 * *ATTR then keeps. Returns the file descriptor or -errno as
 * ty_perfevent_open does. */
int ty_perfevent_open_user(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			   unsigned long flags);

/* Whether this process may open ATTR on PID and CPU: the event is opened
 * and closed at once. Returns 0, or -errno with errno left set. */
int ty_perfevent_try(struct perf_event_attr *attr, pid_t pid, int cpu);

/* The type number of the dynamic PMU NAME ("uprobe", "kprobe") from
 * /sys/bus/event_source/devices/NAME/type, or -1 where it has none. */
int ty_perfevent_pmu_type(const char *name);

/* The value of /proc/sys/kernel/perf_event_paranoid into *LEVEL.
 * Returns 0, or -errno when it cannot be read (-EIO: empty, -EINVAL: not
 * a number). */
int ty_perfevent_paranoid(int *level);

#endif
