/* record-system.c - tachy record -a: the permission check, the processes
 * running when the recording began (from /proc), the idle task, and the
 * facts of a system-wide profile. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tachy/cpulist.h"
#include "tachy/perfevent.h"
#include "tachy/procscan.h"
#include "tachy/record-system.h"

int
ty_record_system_check(const int *cpus, int ncpus, struct ty_error *e)
{
	struct perf_event_attr a;
	int cpu = cpus && ncpus > 0 ? cpus[0] : 0, err;

	ty_perfevent_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if ((err = -ty_perfevent_try(&a, -1, cpu)) == 0)
		return 0;
	if (err == EACCES || err == EPERM)
		return ty_error_set(
		    e, -EACCES,
		    "-a: sampling every process needs perf_event_paranoid <= 0 or CAP_PERFMON, and "
		    "perf_event_paranoid is %d here (uid %u has no CAP_PERFMON). Run it as root, "
		    "allow it with 'sysctl kernel.perf_event_paranoid=0', or give tachy the "
		    "capability ('setcap cap_perfmon+ep tachy'); without -a, tachy record samples "
		    "a command of your own",
		    ty_sampler_paranoid(), (unsigned)geteuid());
	if (err == ENODEV || err == EINVAL)
		return ty_error_set(e, -ENODEV, "-a: CPU %d is offline or does not exist", cpu);
	return ty_error_set(e, -err, "-a: cannot open a sampling event on CPU %d: %s", cpu,
			    strerror(err));
}

static void
comm_record(ty_sampler_rec_fn fn, void *arg, uint32_t pid, uint32_t tid, const char *name)
{
	struct ty_sampler_rec rec;

	memset(&rec, 0, offsetof(struct ty_sampler_rec, chainbuf));
	rec.type = TY_SAMPLER_REC_COMM;
	rec.pid = pid;
	rec.tid = tid;
	rec.name = name;
	fn(&rec, arg);
}

long
ty_record_system_synthesize(const char *root, ty_sampler_rec_fn fn, void *arg, struct ty_error *e)
{
	struct ty_procscan ps;
	struct ty_sampler_rec rec;
	size_t i, k;
	int ret;

	if ((ret = ty_procscan_read(&ps, root, 1, e)) < 0)
		return ret;
	comm_record(fn, arg, 0, 0, TY_IDLE_COMM);
	for (i = 0; i < ps.n; i++) {
		const struct ty_proc *p = &ps.procs[i];
		for (k = 0; k < p->nthreads; k++)
			comm_record(fn, arg, p->pid, p->threads[k].tid, p->threads[k].comm);
		for (k = 0; k < p->nmaps; k++) {
			const struct ty_proc_map *m = &p->maps[k];
			if (m->kind == TY_PMAP_ANON)
				continue;
			memset(&rec, 0, offsetof(struct ty_sampler_rec, chainbuf));
			rec.type = TY_SAMPLER_REC_MMAP;
			rec.pid = rec.tid = p->pid;
			rec.start = m->start;
			rec.len = m->end - m->start;
			rec.pgoff = m->pgoff;
			rec.name = m->path;
			fn(&rec, arg);
		}
	}
	k = ps.n;
	ty_procscan_release(&ps);
	return (long)k;
}

static char *
command_line(const int *cpus, int ncpus, char *const *argv)
{
	size_t n = 64, i;
	char *s, list[256] = "";

	for (i = 0; argv && argv[i]; i++)
		n += strlen(argv[i]) + 1;
	if (cpus) {
		struct ty_cpulist l = {(int *)cpus, (size_t)ncpus};
		ty_cpulist_format(&l, list, sizeof(list));
		n += strlen(list);
	}
	if (!(s = malloc(n)))
		return NULL;
	snprintf(s, n, "-a%s%s%s", cpus ? " -C " : "", list, argv && argv[0] ? " --" : "");
	for (i = 0; argv && argv[i]; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* The tids of the idle task's threads in P: 0. */
static int
idle_tid(uint32_t tid)
{
	return tid == 0;
}

int
ty_record_system_meta(struct ty_profile *p, const int *cpus, int ncpus, int nconf,
		      char *const *argv)
{
	struct ty_prof_meta *m = &p->meta;
	char list[512];
	size_t i;
	uint64_t busy = 0;

	m->system_wide = 1;
	if (cpus) {
		struct ty_cpulist l = {(int *)cpus, (size_t)ncpus};
		ty_cpulist_format(&l, list, sizeof(list));
	} else {
		snprintf(list, sizeof(list), nconf > 1 ? "0-%d" : "0", nconf - 1);
	}
	free(m->cpus);
	free(m->command);
	m->cpus = strdup(list);
	m->command = command_line(cpus, ncpus, argv);
	if (!m->cpus || !m->command)
		return -ENOMEM;
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].state == TY_STATE_CPU && !idle_tid(p->samples[i].tid))
			busy += p->samples[i].period;
	m->workload_cpu_ns = m->period_ns ? busy : 0;
	m->workload_sys_ns = 0;
	return 0;
}

double
ty_record_system_idle(const struct ty_profile *p)
{
	double all = 0, idle = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		all += (double)p->samples[i].period;
		if (idle_tid(p->samples[i].tid))
			idle += (double)p->samples[i].period;
	}
	return all > 0 ? idle / all : 0;
}
