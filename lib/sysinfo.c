/* sysinfo.c - read the machine's facts from procfs/sysfs under a root.
 *
 * Every reader takes the root, so tests present fixture trees. A file that
 * is missing leaves its fact unknown; nothing here writes anywhere. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "tachy/perfevent.h"
#include "tachy/sysinfo.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define MAX_CPUS 4096
#define BUSY_LOOKS 5	/* looks at /proc */
#define BUSY_MIN_SEEN 2 /* a process is busy when seen running this often */

static void
join_path(char *out, size_t size, const char *root, const char *rel)
{
	snprintf(out, size, "%s%s", root ? root : "", rel);
}

int
ty_sysinfo_read(const char *root, const char *rel, char *buf, size_t size)
{
	char path[4096];
	ssize_t n;
	size_t len = 0;
	int fd;

	if (size == 0)
		return -EINVAL;
	buf[0] = '\0';
	join_path(path, sizeof(path), root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			close(fd);
			buf[0] = '\0';
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return (int)len;
}

int
ty_sysinfo_has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = flags;

	if (n == 0)
		return 0;
	while ((p = strstr(p, flag)) != NULL) {
		int start = p == flags || isspace((unsigned char)p[-1]);
		int end = p[n] == '\0' || isspace((unsigned char)p[n]);
		if (start && end)
			return 1;
		p += n;
	}
	return 0;
}

/* Read a whole integer from ROOT/REL; DEF when missing or malformed. */
static long long
read_ll(const char *root, const char *rel, long long def)
{
	char buf[64], *end;
	long long v;

	if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) <= 0)
		return def;
	errno = 0;
	v = strtoll(buf, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == buf || *end)
		return def;
	return v;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in CapEff of ROOT/proc/self/status:
 * 1, 0, or -1 when not visible. */
static int
read_privileged(const char *root)
{
	char buf[4096], *p;
	unsigned long long caps;

	if (ty_sysinfo_read(root, "/proc/self/status", buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "CapEff:")))
		return -1;
	caps = strtoull(p + 7, NULL, 16);
	return (caps >> 38 & 1) || (caps >> 21 & 1);
}

/* Parse a CPU list ("0-3,8,10-11") into SET[0..MAX_CPUS). Returns the
 * count, or -1 if malformed. */
static int
parse_cpulist(const char *s, unsigned char *set)
{
	int count = 0;

	memset(set, 0, MAX_CPUS);
	while (*s) {
		char *end;
		long a, b;

		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		a = strtol(s, &end, 10);
		if (end == s || a < 0 || a >= MAX_CPUS)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= MAX_CPUS)
				return -1;
			s = end;
		}
		for (; a <= b; a++)
			if (!set[a]) {
				set[a] = 1;
				count++;
			}
	}
	return count;
}

static void
copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (size == 0)
		return;
	if (n >= size)
		n = size - 1; /* truncation is fine for these display strings */
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Value after "key<spaces>:" on a cpuinfo line, or NULL. */
static const char *
cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	if (strncmp(line, key, n) != 0)
		return NULL;
	p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

static void
read_cpuinfo(const char *root, struct ty_sysinfo *si, int *processors)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;
	int got_flags = 0;

	*processors = 0;
	join_path(path, sizeof(path), root, "/proc/cpuinfo");
	fp = fopen(path, "re");
	if (!fp)
		return;
	while ((len = getline(&line, &cap, fp)) > 0) {
		const char *v;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' '))
			line[--len] = '\0';
		if (cpuinfo_value(line, "processor"))
			(*processors)++;
		if (!si->cpu_model[0] &&
		    ((v = cpuinfo_value(line, "model name")) ||
		     (v = cpuinfo_value(line, "cpu model")) || (v = cpuinfo_value(line, "Model")) ||
		     (v = cpuinfo_value(line, "uarch"))))
			copy_str(si->cpu_model, sizeof(si->cpu_model), v);
		if (!got_flags &&
		    ((v = cpuinfo_value(line, "flags")) || (v = cpuinfo_value(line, "Features")) ||
		     (v = cpuinfo_value(line, "isa"))) &&
		    *v) {
			copy_str(si->cpu_flags, sizeof(si->cpu_flags), v);
			got_flags = cpuinfo_value(line, "flags") ? 2 : 1;
		}
	}
	free(line);
	fclose(fp);
	if (got_flags == 2) {
		/* x86: the flags line is authoritative. */
		si->has_tsc = ty_sysinfo_has_flag(si->cpu_flags, "tsc");
		si->constant_tsc = ty_sysinfo_has_flag(si->cpu_flags, "constant_tsc");
		si->nonstop_tsc = ty_sysinfo_has_flag(si->cpu_flags, "nonstop_tsc");
		si->has_rdtscp = ty_sysinfo_has_flag(si->cpu_flags, "rdtscp");
		si->hypervisor_flag = ty_sysinfo_has_flag(si->cpu_flags, "hypervisor");
	} else if (got_flags == 1) {
		si->has_tsc = si->constant_tsc = si->nonstop_tsc = si->has_rdtscp = 0;
	}
}

/* Online CPUs, physical cores, SMT, governors, throttling. */
static void
read_cpus(const char *root, struct ty_sysinfo *si, int processors)
{
	unsigned char online[MAX_CPUS];
	char buf[TY_SYSINFO_STR], rel[256];
	char(*siblings)[64] = NULL;
	int i, n, nsib = 0, ngov = 0;
	long long pkg_max = -1, core_sum = 0;
	int throttle_seen = 0;

	if (ty_sysinfo_read(root, CPU_DIR "/online", buf, sizeof(buf)) > 0 &&
	    (n = parse_cpulist(buf, online)) > 0) {
		si->cpus = n;
	} else {
		si->cpus = processors > 0 ? processors : -1;
		memset(online, 0, sizeof(online));
		for (i = 0; i < processors && i < MAX_CPUS; i++)
			online[i] = 1;
	}
	siblings = calloc(MAX_CPUS, sizeof(*siblings));
	for (i = 0; i < MAX_CPUS; i++) {
		int j, dup = 0;
		long long v;

		if (!online[i])
			continue;
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/topology/thread_siblings_list", i);
		if (siblings && ty_sysinfo_read(root, rel, buf, sizeof(buf)) > 0) {
			for (j = 0; j < nsib && !dup; j++)
				dup = strcmp(siblings[j], buf) == 0;
			if (!dup)
				copy_str(siblings[nsib++], sizeof(siblings[0]), buf);
		}
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq/scaling_governor", i);
		if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) > 0) {
			if (!ty_sysinfo_has_flag(si->governors_seen, buf)) {
				size_t l = strlen(si->governors_seen);
				snprintf(si->governors_seen + l, sizeof(si->governors_seen) - l,
					 "%s%s", l ? " " : "", buf);
				ngov++;
			}
		}
		if (!si->freq_driver[0]) {
			snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq/scaling_driver", i);
			ty_sysinfo_read(root, rel, si->freq_driver, sizeof(si->freq_driver));
		}
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/thermal_throttle/core_throttle_count",
			 i);
		if ((v = read_ll(root, rel, -1)) >= 0) {
			core_sum += v;
			throttle_seen = 1;
		}
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/thermal_throttle/package_throttle_count",
			 i);
		if ((v = read_ll(root, rel, -1)) >= 0) {
			pkg_max = v > pkg_max ? v : pkg_max;
			throttle_seen = 1;
		}
	}
	free(siblings);
	si->cores = nsib > 0 ? nsib : -1;
	if (ngov == 1)
		copy_str(si->governor, sizeof(si->governor), si->governors_seen);
	else if (ngov > 1)
		copy_str(si->governor, sizeof(si->governor), "mixed");
	si->throttle_count = throttle_seen ? core_sum + (pkg_max > 0 ? pkg_max : 0) : -1;

	ty_sysinfo_read(root, CPU_DIR "/smt/control", si->smt_control, sizeof(si->smt_control));
	si->smt_active = (int)read_ll(root, CPU_DIR "/smt/active", -1);
	if (si->smt_active < 0 && si->cores > 0 && si->cpus > 0)
		si->smt_active = si->cores < si->cpus;
}

static void
read_boost(const char *root, struct ty_sysinfo *si)
{
	static const struct {
		const char *rel;
		int inverted;
	} src[] = {
	    {"/sys/devices/system/cpu/intel_pstate/no_turbo", 1},
	    {"/sys/devices/system/cpu/cpufreq/boost", 0},
	    {"/sys/devices/system/cpu/cpufreq/policy0/boost", 0},
	};
	size_t i;

	si->boost = -1;
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		long long v = read_ll(root, src[i].rel, -1);
		if (v == 0 || v == 1) {
			si->boost = src[i].inverted ? !v : (int)v;
			copy_str(si->boost_source, sizeof(si->boost_source), src[i].rel);
			return;
		}
	}
}

static void
read_kernel(const char *root, struct ty_sysinfo *si)
{
	ty_sysinfo_read(root, "/proc/sys/kernel/osrelease", si->kernel, sizeof(si->kernel));
	ty_sysinfo_read(root, "/proc/sys/kernel/hostname", si->hostname, sizeof(si->hostname));
	ty_sysinfo_read(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			si->clocksource, sizeof(si->clocksource));
	ty_sysinfo_read(root, "/sys/devices/system/clocksource/clocksource0/available_clocksource",
			si->clocksources, sizeof(si->clocksources));
	ty_sysinfo_read(root, CPU_DIR "/isolated", si->isolated, sizeof(si->isolated));
	ty_sysinfo_read(root, CPU_DIR "/nohz_full", si->nohz_full, sizeof(si->nohz_full));
	if (strcmp(si->nohz_full, "(null)") == 0)
		si->nohz_full[0] = '\0';
	si->aslr = (int)read_ll(root, "/proc/sys/kernel/randomize_va_space", -1);
	si->perf_paranoid = (int)read_ll(root, "/proc/sys/kernel/perf_event_paranoid", INT32_MIN);
	si->perf_privileged = read_privileged(root);
	si->perf_max_sample_rate =
	    (int)read_ll(root, "/proc/sys/kernel/perf_event_max_sample_rate", -1);
}

static void
read_load(const char *root, struct ty_sysinfo *si)
{
	char buf[256];

	si->load1 = si->load5 = si->load15 = -1;
	if (ty_sysinfo_read(root, "/proc/loadavg", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%lf %lf %lf", &si->load1, &si->load5, &si->load15) != 3)
		si->load1 = si->load5 = si->load15 = -1;
}

static void
read_memory(const char *root, struct ty_sysinfo *si)
{
	char buf[8192], *line, *save = NULL;
	double avg10;

	si->mem_total_kb = si->mem_available_kb = si->swap_total_kb = si->swap_free_kb = -1;
	si->mem_pressure_some10 = -1;
	if (ty_sysinfo_read(root, "/proc/meminfo", buf, sizeof(buf)) > 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			long long v;
			char key[64];

			if (sscanf(line, "%63[^:]: %lld", key, &v) != 2)
				continue;
			if (strcmp(key, "MemTotal") == 0)
				si->mem_total_kb = v;
			else if (strcmp(key, "MemAvailable") == 0)
				si->mem_available_kb = v;
			else if (strcmp(key, "SwapTotal") == 0)
				si->swap_total_kb = v;
			else if (strcmp(key, "SwapFree") == 0)
				si->swap_free_kb = v;
		}
	}
	if (ty_sysinfo_read(root, "/proc/pressure/memory", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "some avg10=%lf", &avg10) == 1)
		si->mem_pressure_some10 = avg10;
}

/* Look once at every task under /proc; count each process whose tasks are
 * running (state R) in SEEN, keyed by pid. */
struct busy_tally {
	int pid[64];
	int seen[64];
	int kthread[64];
	char comm[64][32];
	int n;
};

/* procs_running from ROOT/proc/stat, or INT_MAX when not visible. */
static int
procs_running(const char *root)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	int n = INT_MAX;
	FILE *fp;

	join_path(path, sizeof(path), root, "/proc/stat");
	fp = fopen(path, "re");
	if (!fp)
		return n;
	while (getline(&line, &cap, fp) > 0)
		if (strncmp(line, "procs_running ", 14) == 0) {
			n = atoi(line + 14);
			break;
		}
	free(line);
	fclose(fp);
	return n;
}

/* Parse a stat line: COMM (up to 32 bytes), its state, and its thread
 * count (0 when the line is too short). Returns 0, or -1 if malformed. */
/* PF_KTHREAD in a stat line's flags: a kernel thread. */
#define STAT_PF_KTHREAD 0x00200000UL

/* Parse a stat line: COMM (up to 32 bytes), its state, its thread count
 * (0 when the line is too short) and its flags (field 9; 0 when missing).
 * Returns 0, or -1 if malformed. */
static int
parse_stat(const char *buf, char *comm, char *state, long *threads, unsigned long *flags)
{
	const char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')'), *p;
	int field;

	if (!open_p || !close_p || close_p < open_p || close_p[1] != ' ' || !close_p[2])
		return -1;
	snprintf(comm, 32, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
	*state = close_p[2];
	*threads = 0;
	*flags = 0;
	/* num_threads is field 20, the flags 9; the state is field 3. */
	for (p = close_p + 2, field = 3; *p && field < 20; p++)
		if (*p == ' ' && ++field == 9)
			*flags = strtoul(p + 1, NULL, 10);
	if (field == 20)
		*threads = strtol(p, NULL, 10);
	return 0;
}

/* Is any task of PID running? Sets COMM to the process's name, *KTHREAD
 * to whether it is a kernel thread. */
static int
task_running(const char *root, int pid, char *comm, int *kthread)
{
	char path[4096], rel[128], buf[512], tcomm[32], st;
	struct dirent *e;
	unsigned long flags;
	long threads;
	DIR *task;
	int running = 0;

	/* One read for a single-threaded process, the usual case. */
	*kthread = 0;
	snprintf(rel, sizeof(rel), "/proc/%d/stat", pid);
	if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) > 0 &&
	    parse_stat(buf, comm, &st, &threads, &flags) == 0) {
		*kthread = (flags & STAT_PF_KTHREAD) != 0;
		if (st == 'R')
			return 1;
		if (threads == 1)
			return 0;
	}
	snprintf(path, sizeof(path), "%s/proc/%d/task", root, pid);
	task = opendir(path);
	if (!task)
		return 0;
	while (!running && (e = readdir(task)) != NULL) {
		if (atoi(e->d_name) <= 0)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%d/task/%.20s/stat", pid, e->d_name);
		if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) > 0 &&
		    parse_stat(buf, tcomm, &st, &threads, &flags) == 0 && st == 'R')
			running = 1;
	}
	closedir(task);
	if (running && !comm[0]) {
		/* the process's name is its main thread's */
		snprintf(rel, sizeof(rel), "/proc/%d/task/%d/stat", pid, pid);
		if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) <= 0 ||
		    parse_stat(buf, comm, &st, &threads, &flags) < 0)
			snprintf(comm, 32, "%s", tcomm);
	}
	return running;
}

static void
tally_running(const char *root, int self, struct busy_tally *t)
{
	char path[4096];
	struct dirent *d;
	DIR *proc;

	/* Fast path: when the kernel says nothing but us is runnable, there
	 * is nothing to find. */
	if (procs_running(root) <= (self > 0 ? 1 : 0))
		return;
	join_path(path, sizeof(path), root, "/proc");
	proc = opendir(path);
	if (!proc)
		return;
	while ((d = readdir(proc)) != NULL) {
		int pid = atoi(d->d_name), i, kthread;
		char comm[32] = "";

		if (pid <= 0 || pid == self || !task_running(root, pid, comm, &kthread))
			continue;
		for (i = 0; i < t->n && t->pid[i] != pid; i++)
			;
		if (i == t->n) {
			if (t->n == 64)
				continue;
			t->n++;
			t->pid[i] = pid;
			t->seen[i] = 0;
			t->kthread[i] = kthread;
			copy_str(t->comm[i], sizeof(t->comm[i]), comm);
		}
		t->seen[i]++;
	}
	closedir(proc);
}

static void
read_busy(const char *root, int live, int looks, struct ty_sysinfo *si)
{
	struct busy_tally t;
	struct timespec ts = {0, 5 * 1000 * 1000};
	char path[4096];
	struct stat st;
	int look, i;

	si->busy_count = -1;
	join_path(path, sizeof(path), root, "/proc/loadavg");
	if (stat(path, &st) != 0)
		return;
	memset(&t, 0, sizeof(t));
	for (look = 0; look < looks; look++) {
		if (look > 0 && live)
			nanosleep(&ts, NULL);
		tally_running(root, live ? (int)getpid() : -1, &t);
	}
	si->busy_count = 0;
	for (i = 0; i < t.n; i++) {
		if (t.seen[i] < (looks < BUSY_MIN_SEEN ? looks : BUSY_MIN_SEEN))
			continue;
		if (si->busy_count < TY_SYSINFO_BUSY) {
			si->busy[si->busy_count].pid = t.pid[i];
			si->busy[si->busy_count].kernel_thread = t.kthread[i];
			copy_str(si->busy[si->busy_count].comm, sizeof(si->busy[0].comm),
				 t.comm[i]);
		}
		si->busy_count++;
	}
	/* Report them in pid order: the listing order of /proc is not stable. */
	for (i = 1; i < si->busy_count && i < TY_SYSINFO_BUSY; i++) {
		struct ty_sysinfo_proc p = si->busy[i];
		int j = i;
		while (j > 0 && si->busy[j - 1].pid > p.pid) {
			si->busy[j] = si->busy[j - 1];
			j--;
		}
		si->busy[j] = p;
	}
}

static int
contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

static void
read_virt(const char *root, struct ty_sysinfo *si)
{
	static const struct {
		const char *needle, *name;
	} dmi[] = {
	    {"QEMU", "kvm"},
	    {"KVM", "kvm"},
	    {"VMware", "vmware"},
	    {"VirtualBox", "virtualbox"},
	    {"innotek", "virtualbox"},
	    {"Xen", "xen"},
	    {"Amazon EC2", "kvm"},
	    {"Google Compute", "kvm"},
	    {"Parallels", "parallels"},
	    {"Bochs", "bochs"},
	    {"Virtual Machine", "hyperv"},
	};
	static const struct {
		const char *needle, *name;
	} cs[] = {{"kvm-clock", "kvm"}, {"xen", "xen"}, {"hyperv", "hyperv"}};
	char vendor[128] = "", product[128] = "", hv[64] = "", both[300];
	size_t i;

	ty_sysinfo_read(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	ty_sysinfo_read(root, "/sys/class/dmi/id/product_name", product, sizeof(product));
	ty_sysinfo_read(root, "/sys/hypervisor/type", hv, sizeof(hv));
	snprintf(both, sizeof(both), "%s %s", vendor, product);
	if (hv[0]) {
		copy_str(si->virtualization, sizeof(si->virtualization), hv);
		copy_str(si->virt_source, sizeof(si->virt_source), "/sys/hypervisor/type");
		return;
	}
	for (i = 0; i < sizeof(dmi) / sizeof(dmi[0]); i++)
		if (contains_ci(both, dmi[i].needle)) {
			copy_str(si->virtualization, sizeof(si->virtualization), dmi[i].name);
			snprintf(si->virt_source, sizeof(si->virt_source), "DMI: %.100s", vendor);
			return;
		}
	if (si->hypervisor_flag == 1) {
		copy_str(si->virtualization, sizeof(si->virtualization), "unknown");
		copy_str(si->virt_source, sizeof(si->virt_source), "cpuinfo hypervisor flag");
		for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
			if (strstr(si->clocksources, cs[i].needle)) {
				copy_str(si->virtualization, sizeof(si->virtualization),
					 cs[i].name);
				snprintf(si->virt_source, sizeof(si->virt_source),
					 "cpuinfo hypervisor flag, %s clock source", cs[i].needle);
			}
		return;
	}
	if (si->hypervisor_flag == 0 || vendor[0])
		copy_str(si->virtualization, sizeof(si->virtualization), "none");
}

static int
is_cpu_pmu(const char *root, const char *name)
{
	char rel[512], buf[8];

	if (strcmp(name, "cpu") == 0 || strcmp(name, "cpu_core") == 0 ||
	    strcmp(name, "cpu_atom") == 0 || strncmp(name, "armv", 4) == 0)
		return 1;
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%.200s/events/cpu_cycles", name);
	return ty_sysinfo_read(root, rel, buf, sizeof(buf)) >= 0;
}

static void
read_pmu(const char *root, struct ty_sysinfo *si)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;

	si->pmu = -1;
	join_path(path, sizeof(path), root, "/sys/bus/event_source/devices");
	dir = opendir(path);
	if (!dir)
		return;
	si->pmu = 0;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' || !is_cpu_pmu(root, d->d_name))
			continue;
		/* Prefer the plain name when several are listed. */
		if (!si->pmu || strcmp(d->d_name, si->pmu_name) < 0)
			copy_str(si->pmu_name, sizeof(si->pmu_name), d->d_name);
		si->pmu = 1;
	}
	closedir(dir);
}

/* The cgroup path of this process for controller CTRL ("" = v2), or -1. */
static int
cgroup_path(const char *root, const char *ctrl, char *out, size_t size)
{
	char buf[4096], *line, *save = NULL;

	if (ty_sysinfo_read(root, "/proc/self/cgroup", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char ctrls[256];

		if (!c2)
			continue;
		snprintf(ctrls, sizeof(ctrls), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		for (char *p = ctrls; *p; p++)
			if (*p == ',')
				*p = ' ';
		if ((!ctrl[0] && !ctrls[0]) || (ctrl[0] && ty_sysinfo_has_flag(ctrls, ctrl))) {
			snprintf(out, size, "%s", strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
			return 0;
		}
	}
	return -1;
}

static int64_t
cpu_stat_throttled(const char *root, const char *dir)
{
	char rel[700], buf[1024], *p;

	snprintf(rel, sizeof(rel), "%s/cpu.stat", dir);
	if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "nr_throttled ")))
		return -1;
	return strtoll(p + 13, NULL, 10);
}

static void
read_cgroup(const char *root, struct ty_sysinfo *si)
{
	char path[300], dir[600], rel[700], buf[128];
	long long quota, period;

	si->cg_quota_cpus = -1;
	si->cg_throttled = -1;
	if (cgroup_path(root, "", path, sizeof(path)) == 0) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", path);
		snprintf(rel, sizeof(rel), "%s/cpu.max", dir);
		if (ty_sysinfo_read(root, rel, buf, sizeof(buf)) > 0) {
			si->cg_v2 = 1;
			copy_str(si->cg_file, sizeof(si->cg_file), rel);
			if (strncmp(buf, "max", 3) == 0)
				si->cg_quota_cpus = 0;
			else if (sscanf(buf, "%lld %lld", &quota, &period) == 2 && quota > 0 &&
				 period > 0)
				si->cg_quota_cpus = (double)quota / (double)period;
			si->cg_throttled = cpu_stat_throttled(root, dir);
			return;
		}
	}
	if (cgroup_path(root, "cpu", path, sizeof(path)) != 0)
		return;
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpu%s", path);
	snprintf(rel, sizeof(rel), "%s/cpu.cfs_quota_us", dir);
	quota = read_ll(root, rel, LLONG_MIN);
	if (quota == LLONG_MIN) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpu,cpuacct%s", path);
		snprintf(rel, sizeof(rel), "%s/cpu.cfs_quota_us", dir);
		quota = read_ll(root, rel, LLONG_MIN);
	}
	if (quota == LLONG_MIN)
		return;
	copy_str(si->cg_file, sizeof(si->cg_file), rel);
	snprintf(rel, sizeof(rel), "%s/cpu.cfs_period_us", dir);
	period = read_ll(root, rel, -1);
	if (quota < 0)
		si->cg_quota_cpus = 0;
	else if (period > 0)
		si->cg_quota_cpus = (double)quota / (double)period;
	si->cg_throttled = cpu_stat_throttled(root, dir);
}

/* On the live machine, ask the kernel itself: can this process count
 * cycles? (A VM may list a PMU that refuses, or list none.) */
static void
try_cycles(struct ty_sysinfo *si)
{
	struct perf_event_attr attr;
	int ret;

	ty_perfevent_attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	ret = ty_perfevent_try(&attr, 0, -1);
	si->cycles_open = ret == 0;
	if (ret < 0)
		copy_str(si->cycles_error, sizeof(si->cycles_error), strerror(-ret));
}

static void
read_power(const char *root, struct ty_sysinfo *si)
{
	char path[4096], rel[512], type[32], val[32];
	struct dirent *d;
	DIR *dir;
	int mains_online = -1, discharging = 0;

	si->on_ac = -1;
	si->battery = 0;
	join_path(path, sizeof(path), root, "/sys/class/power_supply");
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "/sys/class/power_supply/%.200s/type", d->d_name);
		if (ty_sysinfo_read(root, rel, type, sizeof(type)) <= 0)
			continue;
		if (strcmp(type, "Mains") == 0) {
			snprintf(rel, sizeof(rel), "/sys/class/power_supply/%.200s/online",
				 d->d_name);
			if (ty_sysinfo_read(root, rel, val, sizeof(val)) > 0 && mains_online != 1)
				mains_online = strcmp(val, "1") == 0;
		} else if (strcmp(type, "Battery") == 0) {
			si->battery = 1;
			snprintf(rel, sizeof(rel), "/sys/class/power_supply/%.200s/status",
				 d->d_name);
			if (ty_sysinfo_read(root, rel, val, sizeof(val)) > 0 &&
			    strcmp(val, "Discharging") == 0)
				discharging = 1;
		}
	}
	closedir(dir);
	if (mains_online == 1)
		si->on_ac = 1;
	else if (discharging || mains_online == 0)
		si->on_ac = 0;
}

static void
set_date(struct ty_sysinfo *si)
{
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm))
		strftime(si->date, sizeof(si->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int
collect(const char *root, int looks, struct ty_sysinfo *si, struct ty_error *e)
{
	struct stat st;
	int processors, live;

	memset(si, 0, sizeof(*si));
	live = !root || !root[0] || strcmp(root, "/") == 0;
	if (!live) {
		size_t len = strlen(root);
		if (len >= sizeof(si->root))
			return ty_error_set(e, -ENAMETOOLONG, "system root '%s' is too long", root);
		if (stat(root, &st) != 0)
			return ty_error_set(e, -errno, "cannot use '%s' as the system root: %s",
					    root, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return ty_error_set(e, -ENOTDIR,
					    "cannot use '%s' as the system root: not a directory",
					    root);
		copy_str(si->root, sizeof(si->root), root);
		while (len > 1 && si->root[len - 1] == '/')
			si->root[--len] = '\0';
	}
	root = si->root;
	if (live) {
		struct utsname u;
		if (uname(&u) == 0)
			copy_str(si->machine, sizeof(si->machine), u.machine);
	}
	si->has_tsc = si->constant_tsc = si->nonstop_tsc = si->has_rdtscp = -1;
	si->hypervisor_flag = -1;
	set_date(si);
	read_cpuinfo(root, si, &processors);
	read_cpus(root, si, processors);
	read_boost(root, si);
	read_kernel(root, si);
	read_load(root, si);
	read_memory(root, si);
	read_busy(root, live, looks, si);
	read_virt(root, si);
	read_pmu(root, si);
	si->cycles_open = -1;
	if (live)
		try_cycles(si);
	if (si->cycles_open == 1 && si->pmu != 1) {
		si->pmu = 1; /* the kernel counts cycles, whatever sysfs lists */
		copy_str(si->pmu_name, sizeof(si->pmu_name), "cycles");
	}
	read_power(root, si);
	read_cgroup(root, si);
	return 0;
}

int
ty_sysinfo_collect(const char *root, struct ty_sysinfo *si, struct ty_error *e)
{
	return collect(root, BUSY_LOOKS, si, e);
}

int
ty_sysinfo_collect_quick(const char *root, struct ty_sysinfo *si, struct ty_error *e)
{
	return collect(root, 1, si, e);
}
