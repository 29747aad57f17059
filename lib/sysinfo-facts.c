/* sysinfo-facts.c - judge the machine's facts: state, advice, fix.
 *
 * Pure functions of a struct ty_sysinfo: the same facts always give the
 * same words, so fixture trees give exact outputs. Fix commands are for
 * root and are only ever printed, never run. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tachy/jsonw.h"
#include "tachy/sysinfo.h"
#include "tachy/tachy.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define CS_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

const char *
ty_fact_state_name(enum ty_fact_state s)
{
	switch (s) {
	case TY_FACT_OK:
		return "ok";
	case TY_FACT_INFO:
		return "info";
	case TY_FACT_WARN:
		return "warn";
	case TY_FACT_BAD:
		return "bad";
	}
	return "?";
}

static void __attribute__((format(printf, 3, 4))) put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

#define VALUE(f, ...) put((f)->value, sizeof((f)->value), __VA_ARGS__)
#define ADVICE(f, ...) put((f)->advice, sizeof((f)->advice), __VA_ARGS__)
#define FIX(f, ...) put((f)->fix, sizeof((f)->fix), __VA_ARGS__)

static void
fact_cpu(const struct ty_sysinfo *si, struct ty_fact *f)
{
	char cores[64] = "";

	f->state = TY_FACT_INFO;
	if (si->cores > 0)
		put(cores, sizeof(cores), ", %d physical core%s", si->cores,
		    si->cores == 1 ? "" : "s");
	if (si->cpus > 0)
		VALUE(f, "%s: %d CPU%s online%s",
		      si->cpu_model[0] ? si->cpu_model : "unknown model", si->cpus,
		      si->cpus == 1 ? "" : "s", cores);
	else
		VALUE(f, "%s", si->cpu_model[0] ? si->cpu_model : "not visible");
}

static void
fact_kernel(const struct ty_sysinfo *si, struct ty_fact *f)
{
	f->state = TY_FACT_INFO;
	VALUE(f, "%s", si->kernel[0] ? si->kernel : "not visible");
}

static void
fact_virt(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (!si->virtualization[0]) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
	} else if (strcmp(si->virtualization, "none") == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "none seen (bare metal)");
	} else {
		f->state = TY_FACT_WARN;
		VALUE(f, "%s (%s)", si->virtualization, si->virt_source);
		ADVICE(f, "other guests share the host: steal time and noisy neighbours add "
			  "variance; prefer bare metal for fine comparisons, or compare only "
			  "runs made on the same VM back to back");
	}
}

static void
fact_pmu(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->pmu < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible (no /sys/bus/event_source)");
	} else if (si->pmu && si->cycles_open == 0) {
		f->state = TY_FACT_WARN;
		VALUE(f, "'%s' is listed, but counting cycles fails: %s", si->pmu_name,
		      si->cycles_error);
		ADVICE(f, "cycles and instructions cannot be counted here (a hypervisor or "
			  "perf_event_paranoid may refuse them); tachy counts software events "
			  "only");
	} else if (si->pmu) {
		f->state = TY_FACT_OK;
		VALUE(f, "'%s': cycles, instructions and cache events can be counted",
		      si->pmu_name);
	} else {
		f->state = TY_FACT_WARN;
		VALUE(f, "none: cycles, instructions and cache events are not supported");
		if (si->virtualization[0] && strcmp(si->virtualization, "none") != 0)
			ADVICE(f, "the hypervisor exposes no virtual PMU; tachy counts software "
				  "events only (task-clock, page-faults, context-switches). Ask "
				  "for one (QEMU/KVM: -cpu host,pmu=on; VMware: virtualize CPU "
				  "performance counters)");
		else
			ADVICE(f, "tachy counts software events only (task-clock, page-faults, "
				  "context-switches); the kernel has no driver for this CPU's "
				  "counters");
	}
}

static void
fact_paranoid(const struct ty_sysinfo *si, struct ty_fact *f)
{
	int p = si->perf_paranoid;

	if (p == INT32_MIN) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible (no perf events in this kernel?)");
		return;
	}
	if (p <= 1) {
		f->state = TY_FACT_OK;
		VALUE(f,
		      "%d: unprivileged users may count and sample their own processes, "
		      "kernel included",
		      p);
		return;
	}
	if (si->perf_privileged == 1) { /* nothing to fix for this user */
		f->state = TY_FACT_OK;
		VALUE(f,
		      "%d: limits unprivileged users only; tachy runs with root's or "
		      "CAP_PERFMON's rights here: kernel included",
		      p);
		return;
	}
	f->state = TY_FACT_WARN;
	if (p == 2)
		VALUE(f, "2: unprivileged users see user space only (root and CAP_PERFMON "
			 "are not limited)");
	else
		VALUE(f,
		      "%d: unprivileged users cannot use perf events at all (root and "
		      "CAP_PERFMON are not limited)",
		      p);
	ADVICE(f, "counting and sampling the kernel's share of the time needs a lower "
		  "setting (or run tachy as root)");
	FIX(f, "sysctl -w kernel.perf_event_paranoid=1");
}

static void
fact_sample_rate(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->perf_max_sample_rate < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
	} else if (si->perf_max_sample_rate < 4000) {
		f->state = TY_FACT_WARN;
		VALUE(f, "%d samples/s", si->perf_max_sample_rate);
		ADVICE(f, "sampling above this rate is refused; the kernel lowers it by itself "
			  "when sample interrupts take too long (see dmesg)");
		FIX(f, "sysctl -w kernel.perf_event_max_sample_rate=100000");
	} else {
		f->state = TY_FACT_OK;
		VALUE(f, "%d samples/s", si->perf_max_sample_rate);
	}
}

static int
slow_clocksource(const char *cs)
{
	static const char *const slow[] = {"hpet", "acpi_pm", "jiffies", "refined-jiffies",
					   "pit",  "i8253"};
	size_t i;

	for (i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
		if (strcmp(cs, slow[i]) == 0)
			return 1;
	return 0;
}

static void
fact_clocksource(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (!si->clocksource[0]) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	VALUE(f, "%s (available: %s)", si->clocksource,
	      si->clocksources[0] ? si->clocksources : "not visible");
	if (!slow_clocksource(si->clocksource)) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = TY_FACT_BAD;
	if (ty_sysinfo_has_flag(si->clocksources, "tsc")) {
		ADVICE(f,
		       "%s is slow: every clock read is a system call and a trip to the "
		       "chipset (around a microsecond; the TSC costs about 20 ns), which "
		       "slows and distorts anything that reads the time",
		       si->clocksource);
		FIX(f, "echo tsc > " CS_FILE);
	} else {
		ADVICE(f,
		       "%s is slow: every clock read is a system call and a trip to the "
		       "chipset (around a microsecond); the kernel offers nothing faster "
		       "(if it judged the TSC unstable, see: dmesg | grep -i tsc)",
		       si->clocksource);
	}
}

static void
fact_tsc(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->has_tsc < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible (no /proc/cpuinfo flags)");
	} else if (!si->has_tsc) {
		f->state = TY_FACT_INFO;
		VALUE(f, "none: tachy times with CLOCK_MONOTONIC");
	} else if (si->constant_tsc == 1 && si->nonstop_tsc == 1) {
		if (si->clocksources[0] && !ty_sysinfo_has_flag(si->clocksources, "tsc")) {
			f->state = TY_FACT_WARN;
			VALUE(f, "constant and nonstop, but the kernel no longer lists it as a "
				 "clock source: tachy times with CLOCK_MONOTONIC");
			ADVICE(f, "the kernel judged the TSC unstable (see: dmesg | grep -i "
				  "tsc)");
		} else {
			f->state = TY_FACT_OK;
			VALUE(f, "constant and nonstop: tachy times with it");
		}
	} else {
		f->state = TY_FACT_WARN;
		VALUE(f, "%s%s%s: tachy times with CLOCK_MONOTONIC",
		      si->constant_tsc == 1 ? "constant" : "not constant", ", ",
		      si->nonstop_tsc == 1 ? "nonstop" : "stops in deep sleep");
		ADVICE(f, "a TSC that follows the CPU's frequency or stops when idle cannot "
			  "measure time; nothing to do but use another clock");
	}
}

static void
fact_governor(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (!si->governor[0]) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible (no cpufreq: the firmware or hypervisor decides)");
		return;
	}
	if (strcmp(si->governor, "mixed") == 0)
		VALUE(f, "mixed: %s%s%s", si->governors_seen, si->freq_driver[0] ? ", driver " : "",
		      si->freq_driver);
	else
		VALUE(f, "%s on every CPU%s%s", si->governor, si->freq_driver[0] ? ", driver " : "",
		      si->freq_driver);
	if (strcmp(si->governor, "performance") == 0) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = TY_FACT_BAD;
	ADVICE(f, "the clock speed rises and falls with load, so the same work takes "
		  "different times from run to run: use the performance governor while "
		  "measuring");
	FIX(f, "for g in " CPU_DIR "/cpu*/cpufreq/scaling_governor; do echo performance > "
	       "$g; done");
}

static void
fact_boost(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->boost < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	VALUE(f, "%s (%s)", si->boost ? "on" : "off", si->boost_source);
	if (!si->boost) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = TY_FACT_BAD;
	ADVICE(f, "turbo speed depends on temperature, power and how many cores are busy, "
		  "so it changes between and during runs: turn it off while measuring");
	if (strstr(si->boost_source, "intel_pstate"))
		FIX(f, "echo 1 > " CPU_DIR "/intel_pstate/no_turbo");
	else if (strstr(si->boost_source, "policy"))
		FIX(f, "for b in " CPU_DIR "/cpufreq/policy*/boost; do echo 0 > $b; done");
	else
		FIX(f, "echo 0 > " CPU_DIR "/cpufreq/boost");
}

static void
fact_smt(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->smt_active < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	if (!si->smt_active) {
		f->state = TY_FACT_OK;
		VALUE(f, "off%s%s%s", si->smt_control[0] ? " (control: " : "", si->smt_control,
		      si->smt_control[0] ? ")" : "");
		return;
	}
	f->state = TY_FACT_WARN;
	if (si->cores > 0 && si->cpus > 0)
		VALUE(f, "on: %d CPUs on %d cores", si->cpus, si->cores);
	else
		VALUE(f, "on");
	ADVICE(f, "sibling threads share a core's caches and execution units: whatever "
		  "runs on the sibling slows the benchmark. Turn SMT off, or keep the "
		  "siblings of the benchmark's CPUs idle");
	if (strcmp(si->smt_control, "on") == 0)
		FIX(f, "echo off > " CPU_DIR "/smt/control");
}

static void
fact_isolation(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->isolated[0]) {
		f->state = TY_FACT_OK;
		VALUE(f, "isolated: %s, nohz_full: %s; run benchmarks there with taskset -c %s",
		      si->isolated, si->nohz_full[0] ? si->nohz_full : "none", si->isolated);
		return;
	}
	f->state = TY_FACT_INFO;
	VALUE(f, "none isolated%s%s", si->nohz_full[0] ? ", nohz_full " : "", si->nohz_full);
	if (si->cpus > 1) {
		int c = si->cpus - 1;
		ADVICE(f,
		       "the benchmark shares every CPU with the rest of the system; for the "
		       "quietest runs, keep a CPU free of other tasks and timer ticks and "
		       "run with taskset -c %d (takes effect after a reboot)",
		       c);
		FIX(f,
		    "sed -i 's/^GRUB_CMDLINE_LINUX=\"/&isolcpus=%d nohz_full=%d rcu_nocbs=%d "
		    "/' /etc/default/grub && update-grub",
		    c, c, c);
	}
}

static void
fact_aslr(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->aslr < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	if (si->aslr == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "off (randomize_va_space=0)");
		return;
	}
	f->state = TY_FACT_WARN;
	VALUE(f, "on (randomize_va_space=%d)", si->aslr);
	ADVICE(f,
	       "addresses change from run to run, and with them cache and branch "
	       "predictor collisions: a source of run-to-run noise. Turn it off for one "
	       "command with setarch -R COMMAND, or for the machine (restore with "
	       "randomize_va_space=%d)",
	       si->aslr);
	FIX(f, "sysctl -w kernel.randomize_va_space=0");
}

static void
fact_load(const struct ty_sysinfo *si, struct ty_fact *f)
{
	double per;

	if (si->load1 < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	VALUE(f, "%.2f %.2f %.2f (1, 5, 15 min) on %d CPU%s", si->load1, si->load5, si->load15,
	      si->cpus > 0 ? si->cpus : 1, si->cpus > 1 ? "s" : "");
	per = si->load1 / (si->cpus > 0 ? si->cpus : 1);
	if (per < 0.1) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = per < 0.5 ? TY_FACT_WARN : TY_FACT_BAD;
	ADVICE(f, "other work competes for the CPUs, caches and memory bandwidth: measure on "
		  "a quiet machine (see the busy processes)");
}

/* A server that a benchmark may well use (a database): never in the fix. */
static int
is_server(const char *comm)
{
	static const char *const servers[] = {
	    "postgres",	    "postmaster", "mysqld",	"mariadbd", "mongod",
	    "redis-server", "memcached",  "clickhouse", "sqlservr", "oracle",
	    "etcd",	    "dockerd",	  "containerd"};
	size_t i;

	for (i = 0; i < sizeof(servers) / sizeof(servers[0]); i++)
		if (strncmp(comm, servers[i], strlen(servers[i])) == 0)
			return 1;
	return 0;
}

static void
fact_busy(const struct ty_sysinfo *si, struct ty_fact *f)
{
	char list[400] = "", pids[200] = "";
	size_t ll = 0, pl = 0;
	int i, kept = 0, kthreads = 0, servers = 0;

	if (si->busy_count < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	if (si->busy_count == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "no other process seen running");
		return;
	}
	for (i = 0; i < si->busy_count && i < TY_SYSINFO_BUSY; i++) {
		const struct ty_sysinfo_proc *b = &si->busy[i];
		if (ll < sizeof(list))
			ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%s (%d)",
					       i ? ", " : "", b->comm, b->pid);
		/* a kernel thread cannot be stopped; a database server may be
		 * what the benchmark talks to: the fix leaves both alone */
		if (b->kernel_thread) {
			kthreads++;
			continue;
		}
		if (is_server(b->comm)) {
			servers++;
			continue;
		}
		if (pl < sizeof(pids))
			pl += (size_t)snprintf(pids + pl, sizeof(pids) - pl, "%s%d",
					       kept ? " " : "", b->pid);
		kept++;
	}
	f->state = TY_FACT_BAD;
	VALUE(f, "%d other process%s running: %s%s", si->busy_count,
	      si->busy_count == 1 ? "" : "es", list,
	      si->busy_count > TY_SYSINFO_BUSY ? ", ..." : "");
	ADVICE(f,
	       "they compete for the CPUs and caches: stop them or wait for them "
	       "(a stopped process resumes with kill -CONT)%s%s%s",
	       kthreads ? "; kernel threads (kworker...) cannot be stopped: they work for "
			  "others, see what keeps them busy"
			: "",
	       servers ? "; a server (a database...) is left running: the benchmark may use "
			 "it, stop it yourself if not"
		       : "",
	       "");
	if (kept)
		FIX(f, "kill -STOP %s", pids);
}

static void
fmt_kb(char *buf, size_t size, int64_t kb)
{
	if (kb >= 1024 * 1024)
		put(buf, size, "%.1f GiB", kb / (1024.0 * 1024.0));
	else if (kb >= 1024)
		put(buf, size, "%.1f MiB", kb / 1024.0);
	else
		put(buf, size, "%" PRId64 " KiB", kb);
}

static void
fact_memory(const struct ty_sysinfo *si, struct ty_fact *f)
{
	char avail[32], total[32], psi[64] = "";
	int low;

	if (si->mem_total_kb <= 0 || si->mem_available_kb < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	fmt_kb(avail, sizeof(avail), si->mem_available_kb);
	fmt_kb(total, sizeof(total), si->mem_total_kb);
	if (si->mem_pressure_some10 >= 0)
		put(psi, sizeof(psi), "; stalled %.2f%% of the last 10 s", si->mem_pressure_some10);
	VALUE(f, "%s available of %s%s", avail, total, psi);
	low = si->mem_available_kb * 10 < si->mem_total_kb;
	if (!low && si->mem_pressure_some10 < 1) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = low || si->mem_pressure_some10 >= 10 ? TY_FACT_BAD : TY_FACT_WARN;
	ADVICE(f, "under memory pressure the kernel reclaims pages while the benchmark "
		  "runs: free memory (stop other programs) before measuring");
}

static void
fact_swap(const struct ty_sysinfo *si, struct ty_fact *f)
{
	char used[32], total[32];
	int64_t u;

	if (si->swap_total_kb < 0 || si->swap_free_kb < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	if (si->swap_total_kb == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "none configured");
		return;
	}
	u = si->swap_total_kb - si->swap_free_kb;
	fmt_kb(used, sizeof(used), u > 0 ? u : 0);
	fmt_kb(total, sizeof(total), si->swap_total_kb);
	VALUE(f, "%s used of %s", used, total);
	if (u <= 0) {
		f->state = TY_FACT_OK;
		return;
	}
	f->state = TY_FACT_WARN;
	ADVICE(f, "a benchmark (or the tools around it) that touches a swapped-out page "
		  "waits for the disk: bring the pages back in while there is room");
	FIX(f, "swapoff -a && swapon -a");
}

static void
fact_thermal(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->throttle_count < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible (no thermal_throttle counters)");
	} else if (si->throttle_count == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "no throttling since boot");
	} else {
		f->state = TY_FACT_WARN;
		VALUE(f, "%" PRId64 " throttle event%s since boot", si->throttle_count,
		      si->throttle_count == 1 ? "" : "s");
		ADVICE(f, "the CPUs slowed down to cool off: a run that is throttled is slower "
			  "for no reason of its own. Improve cooling, leave pauses between "
			  "runs, or turn turbo off");
	}
}

static void
fact_cgroup(const struct ty_sysinfo *si, struct ty_fact *f)
{
	char thr[96] = "";

	if (si->cg_quota_cpus < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "not visible");
		return;
	}
	if (si->cg_throttled >= 0)
		put(thr, sizeof(thr), ", %" PRId64 " period%s throttled so far", si->cg_throttled,
		    si->cg_throttled == 1 ? "" : "s");
	if (si->cg_quota_cpus == 0) {
		f->state = TY_FACT_OK;
		VALUE(f, "no CPU quota (%s)", si->cg_file);
		return;
	}
	f->state = si->cg_throttled > 0 ? TY_FACT_BAD : TY_FACT_WARN;
	VALUE(f, "at most %.2f CPUs' worth of time (%s)%s", si->cg_quota_cpus, si->cg_file, thr);
	ADVICE(f, "the cgroup's CPU bandwidth limit stops the benchmark for the rest of each "
		  "period once its threads have used their share: run outside that limit");
	if (si->cg_v2)
		FIX(f, "echo max > %s", si->cg_file);
	else
		FIX(f, "echo -1 > %s", si->cg_file);
}

static void
fact_power(const struct ty_sysinfo *si, struct ty_fact *f)
{
	if (si->on_ac < 0) {
		f->state = TY_FACT_INFO;
		VALUE(f, "no power supply reported (a desktop, server or VM)");
	} else if (si->on_ac) {
		f->state = TY_FACT_OK;
		VALUE(f, "on AC power");
	} else {
		f->state = TY_FACT_BAD;
		VALUE(f, "on battery");
		ADVICE(f, "on battery the firmware and power daemons lower clock speeds and "
			  "may change them mid-run: plug in the charger");
	}
}

static const struct {
	const char *key, *title;
	void (*judge)(const struct ty_sysinfo *, struct ty_fact *);
} judges[] = {
    {"cpu", "CPU", fact_cpu},
    {"kernel", "kernel", fact_kernel},
    {"virtualization", "virtualization", fact_virt},
    {"pmu", "hardware PMU", fact_pmu},
    {"perf_event_paranoid", "perf_event_paranoid", fact_paranoid},
    {"perf_event_max_sample_rate", "perf_event_max_sample_rate", fact_sample_rate},
    {"clocksource", "clock source", fact_clocksource},
    {"tsc", "TSC", fact_tsc},
    {"governor", "CPU frequency governor", fact_governor},
    {"boost", "turbo/boost", fact_boost},
    {"smt", "SMT (hyper-threading)", fact_smt},
    {"isolation", "isolated CPUs", fact_isolation},
    {"aslr", "ASLR", fact_aslr},
    {"load", "load average", fact_load},
    {"busy", "busy processes", fact_busy},
    {"memory", "memory", fact_memory},
    {"swap", "swap", fact_swap},
    {"thermal", "thermal throttling", fact_thermal},
    {"cgroup", "cgroup CPU limit", fact_cgroup},
    {"power", "power supply", fact_power},
};

size_t
ty_sysinfo_facts(const struct ty_sysinfo *si, struct ty_fact *facts, size_t max)
{
	size_t i, n = sizeof(judges) / sizeof(judges[0]);

	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		struct ty_fact *f = &facts[i];

		memset(f, 0, sizeof(*f));
		f->key = judges[i].key;
		f->title = judges[i].title;
		judges[i].judge(si, f);
	}
	return n;
}

int
ty_sysinfo_warnings(const struct ty_sysinfo *si, void (*fn)(void *ctx, const char *line), void *ctx)
{
	struct ty_fact facts[TY_SYSINFO_FACTS];
	char line[1600];
	size_t i, n;
	int count = 0;

	n = ty_sysinfo_facts(si, facts, TY_SYSINFO_FACTS);
	for (i = 0; i < n; i++) {
		if (facts[i].state != TY_FACT_BAD)
			continue;
		if (facts[i].fix[0])
			put(line, sizeof(line), "%s: %s (fix: %s)", facts[i].title, facts[i].value,
			    facts[i].fix);
		else
			put(line, sizeof(line), "%s: %s", facts[i].title, facts[i].value);
		if (fn)
			fn(ctx, line);
		count++;
	}
	return count;
}

static void
kstr_or_null(struct ty_jsonw *w, const char *key, const char *s)
{
	if (s && s[0]) {
		ty_jsonw_kstring(w, key, s);
	} else {
		ty_jsonw_key(w, key);
		ty_jsonw_null(w);
	}
}

static void
kint_or_null(struct ty_jsonw *w, const char *key, int64_t v, int known)
{
	if (known) {
		ty_jsonw_kint(w, key, v);
	} else {
		ty_jsonw_key(w, key);
		ty_jsonw_null(w);
	}
}

static void
kbool_or_null(struct ty_jsonw *w, const char *key, int v)
{
	if (v >= 0) {
		ty_jsonw_kbool(w, key, v);
	} else {
		ty_jsonw_key(w, key);
		ty_jsonw_null(w);
	}
}

const char *const ty_sysinfo_compare_keys[] = {
    "cpu_model",      "cores", "kernel", "clocksource", "governor",
    "virtualization", "boost", "smt",	 "hostname",	NULL,
};

void
ty_sysinfo_write_json_members(struct ty_jsonw *w, const struct ty_sysinfo *si)
{
	kstr_or_null(w, "cpu_model", si->cpu_model);
	kint_or_null(w, "cores", si->cpus, si->cpus > 0);
	kint_or_null(w, "physical_cores", si->cores, si->cores > 0);
	kstr_or_null(w, "kernel", si->kernel);
	kstr_or_null(w, "clocksource", si->clocksource);
	kstr_or_null(w, "governor", si->governor);
	kstr_or_null(w, "virtualization", si->virtualization);
	ty_jsonw_kstring(w, "tachy_version", TY_VERSION);
	kstr_or_null(w, "date", si->date);
	kstr_or_null(w, "hostname", si->hostname);
	kbool_or_null(w, "boost", si->boost);
	kbool_or_null(w, "smt", si->smt_active);
	kint_or_null(w, "aslr", si->aslr, si->aslr >= 0);
	kint_or_null(w, "perf_event_paranoid", si->perf_paranoid, si->perf_paranoid != INT32_MIN);
	kbool_or_null(w, "pmu", si->pmu);
	ty_jsonw_kstring(w, "isolated_cpus", si->isolated);
	ty_jsonw_kstring(w, "nohz_full", si->nohz_full);
	kbool_or_null(w, "constant_tsc", si->constant_tsc);
	kbool_or_null(w, "nonstop_tsc", si->nonstop_tsc);
	kstr_or_null(w, "machine", si->machine);
	/* the load when the run started: what comparable.c judges two sides by */
	ty_jsonw_kdouble(w, "load_average", si->load1 >= 0 ? si->load1 : NAN);
	kint_or_null(w, "busy_processes", si->busy_count, si->busy_count >= 0);
}

void
ty_sysinfo_write_json(struct ty_jsonw *w, const struct ty_sysinfo *si)
{
	ty_jsonw_object_begin(w);
	ty_sysinfo_write_json_members(w, si);
	ty_jsonw_object_end(w);
}
