/* sysinfo.h - facts about the machine that can disturb a benchmark.
 *
 * Every fact is read from procfs/sysfs under a ROOT directory ("/" or NULL
 * for this machine), so tests point it at fixture trees (a machine without
 * a TSC, with perf_event_paranoid=3, the powersave governor...). Nothing
 * here changes the machine. A fact that cannot be read is "unknown" (-1 or
 * an empty string), never an error: only a ROOT that is not a directory is.
 */
#ifndef TACHY_SYSINFO_H
#define TACHY_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"

struct ty_jsonw;

#define TY_SYSINFO_STR 256
#define TY_SYSINFO_BUSY 8   /* busy processes remembered */
#define TY_SYSINFO_FACTS 24 /* upper bound on ty_sysinfo_facts() */

struct ty_sysinfo_proc {
	int pid;
	char comm[32];
	int kernel_thread; /* a kernel thread (kworker...): it cannot be stopped */
};

struct ty_sysinfo {
	char root[TY_SYSINFO_STR]; /* "" for the live machine */
	char date[32];		   /* collection time, "2026-11-29T20:00:00Z" */
	char hostname[TY_SYSINFO_STR];
	char machine[64]; /* uname's machine ("x86_64") on the live machine, else "" */

	/* CPU */
	char cpu_model[TY_SYSINFO_STR];			    /* "" when unknown */
	int cpus;					    /* online logical CPUs, -1 unknown */
	int cores;					    /* physical cores, -1 unknown */
	int smt_active;					    /* 1, 0, -1 unknown */
	char smt_control[32];				    /* on off forceoff notsupported ... */
	char cpu_flags[4096];				    /* the first "flags" line of cpuinfo */
	int has_tsc, constant_tsc, nonstop_tsc, has_rdtscp; /* 1, 0 (-1 unknown) */
	int hypervisor_flag;				    /* cpuinfo "hypervisor" */

	/* kernel */
	char kernel[TY_SYSINFO_STR];	   /* osrelease, "6.1.0-13-amd64" */
	char clocksource[64];		   /* current, "tsc" */
	char clocksources[TY_SYSINFO_STR]; /* available, space separated */
	char isolated[TY_SYSINFO_STR];	   /* "" none, else a CPU list "2-3" */
	char nohz_full[TY_SYSINFO_STR];	   /* "" none */
	int aslr;			   /* randomize_va_space 0/1/2, -1 unknown */
	int perf_paranoid;		   /* INT32_MIN unknown */
	int perf_privileged;		   /* this process may count and sample everything whatever
					      perf_paranoid (CAP_PERFMON or CAP_SYS_ADMIN in
					      /proc/self/status): 1, 0, -1 unknown */
	int perf_max_sample_rate;	   /* -1 unknown */

	/* frequency */
	char governor[64];		     /* "performance", "mixed", "" (no cpufreq) */
	char governors_seen[TY_SYSINFO_STR]; /* when mixed: "performance powersave" */
	char freq_driver[64];	/* scaling_driver of cpu0: intel_pstate, acpi-cpufreq... */
	int boost;		/* turbo/boost enabled: 1, 0, -1 unknown */
	char boost_source[128]; /* the file it was read from, relative to root */

	/* load and memory */
	double load1, load5, load15; /* -1 unknown */
	int busy_count;		     /* other tasks seen running, -1 unknown */
	struct ty_sysinfo_proc busy[TY_SYSINFO_BUSY];
	int64_t mem_total_kb, mem_available_kb; /* -1 unknown */
	int64_t swap_total_kb, swap_free_kb;	/* -1 unknown */
	double mem_pressure_some10;		/* PSI avg10 %, -1 unknown */

	/* virtualisation and PMU */
	char virtualization[64]; /* "none", "kvm", "xen", "vmware"... ; "" unknown */
	char virt_source[128];	 /* how it was told: "cpuinfo hypervisor flag", "DMI: QEMU" */
	int pmu;		 /* hardware PMU in sysfs: 1, 0, -1 unknown */
	char pmu_name[64];	 /* "cpu", "cpu_core", "armv8_pmuv3_0" */
	int cycles_open;	 /* live machine only: perf_event_open of cycles
				  * worked 1, failed 0, not tried -1 */
	char cycles_error[96];	 /* strerror of that failure */

	/* cgroup CPU bandwidth limit of this process (/proc/self/cgroup) */
	double cg_quota_cpus;	      /* CPUs' worth allowed, 0 none, -1 unknown */
	int64_t cg_throttled;	      /* periods throttled (cpu.stat), -1 unknown */
	char cg_file[TY_SYSINFO_STR]; /* the quota file, relative to root */
	int cg_v2;		      /* cpu.max (v2) or cpu.cfs_quota_us (v1) */

	/* thermal and power */
	int64_t throttle_count; /* core + package throttle events since boot, -1 not visible */
	int on_ac;		/* 1 mains online, 0 on battery, -1 unknown/no supply */
	int battery;		/* a battery is present: 1, 0 */
};

/* Read every fact under ROOT (NULL or "/" = this machine) into SI.
 * Busy processes are found by looking at /proc five times over 20 ms
 * (tasks in state R other than the calling process).
 * Returns 0, or -ENOTDIR/-ENOENT with E filled when ROOT is not a
 * readable directory. */
int ty_sysinfo_collect(const char *root, struct ty_sysinfo *si, struct ty_error *e);

/* As ty_sysinfo_collect, but busy processes are those running at one look
 * at /proc, without the waits between several looks (~20 ms): for tachy
 * run, whose start-up is part of the harness's cost. */
int ty_sysinfo_collect_quick(const char *root, struct ty_sysinfo *si, struct ty_error *e);

/* How one fact stands. BAD = known to spoil results (tachy run warns);
 * WARN = can disturb a benchmark; INFO = neither (or not visible). */
enum ty_fact_state { TY_FACT_OK, TY_FACT_INFO, TY_FACT_WARN, TY_FACT_BAD };

struct ty_fact {
	const char *key;   /* stable identifier, also the JSON key: "governor" */
	const char *title; /* "CPU frequency governor" */
	enum ty_fact_state state;
	char value[512];  /* what was found, one line */
	char advice[512]; /* "" when ideal: why it matters and what to do */
	char fix[512];	  /* "" when none: the exact command (as root) */
};

/* Name of a state: "ok", "info", "warn", "bad". */
const char *ty_fact_state_name(enum ty_fact_state s);

/* Judge SI: fill FACTS[0..MAX) in a fixed order (TY_SYSINFO_FACTS is
 * enough) and return how many. Pure: no I/O. */
size_t ty_sysinfo_facts(const struct ty_sysinfo *si, struct ty_fact *facts, size_t max);

/* Call FN(CTX, LINE) once for each setting known to spoil results (the BAD
 * facts), LINE a one-line warning such as "CPU frequency governor is
 * 'powersave': clock speed changes between runs (fix: ...)". Returns the
 * number of warnings. */
int ty_sysinfo_warnings(const struct ty_sysinfo *si, void (*fn)(void *ctx, const char *line),
			void *ctx);

/* Write SI as the "environment" object of docs/json-schema.md (the value
 * only: the caller writes the key): the machine's stable facts, so that
 * two exports from one machine have equal environments. Keys: cpu_model,
 * cores (online CPUs), physical_cores, kernel, clocksource, governor,
 * virtualization, tachy_version, date, hostname, boost, smt, aslr,
 * perf_event_paranoid, pmu, isolated_cpus, nohz_full, constant_tsc,
 * nonstop_tsc, machine; unknown values are null. Passing conditions (load,
 * busy processes, swap in use) are left out: they are facts of the moment. */
void ty_sysinfo_write_json(struct ty_jsonw *w, const struct ty_sysinfo *si);

/* The same members without the enclosing braces (for a caller that has
 * opened the object itself, as tachy run's environment callback does). */
void ty_sysinfo_write_json_members(struct ty_jsonw *w, const struct ty_sysinfo *si);

/* The keys of the environment object whose difference between two result
 * files makes their comparison suspect (tachy compare warns), NULL-ended:
 * cpu_model, cores, kernel, clocksource, governor, virtualization, boost,
 * smt, hostname. */
extern const char *const ty_sysinfo_compare_keys[];

/* Read the file ROOT/REL (REL starts with '/') into BUF, NUL-terminated,
 * trailing newlines removed. Returns its length, or a negative errno. */
int ty_sysinfo_read(const char *root, const char *rel, char *buf, size_t size);

/* Is FLAG among the words of FLAGS (a cpuinfo flags line)? 1 or 0. */
int ty_sysinfo_has_flag(const char *flags, const char *flag);

#endif
