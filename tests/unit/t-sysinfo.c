/* t-sysinfo.c - facts read from fixture trees, judged, and written. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "tachy/jsonw.h"
#include "tachy/sysinfo.h"

static struct ty_sysinfo si;
static struct ty_fact facts[TY_SYSINFO_FACTS];
static size_t nfacts;

static const char *
fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("TOP");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".", name);
	return path;
}

static int
load(const char *name)
{
	struct ty_error e;
	int rc = ty_sysinfo_collect(fixture(name), &si, &e);

	nfacts = ty_sysinfo_facts(&si, facts, TY_SYSINFO_FACTS);
	return rc;
}

static int
state_of(const char *key)
{
	size_t i;

	for (i = 0; i < nfacts; i++)
		if (strcmp(facts[i].key, key) == 0)
			return (int)facts[i].state;
	return -1;
}

static int lines;
static char first[2048];

static void
count_line(void *ctx, const char *line)
{
	(void)ctx;
	if (lines++ == 0)
		snprintf(first, sizeof(first), "%s", line);
}

static char *
json_of(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ty_jsonw w;

	ty_jsonw_init(&w, fp, 0);
	ty_sysinfo_write_json(&w, &si);
	fclose(fp);
	return buf;
}

static void
test_helpers(void)
{
	char buf[64];

	CHECK(ty_sysinfo_has_flag("fpu tsc msr", "tsc"));
	CHECK(!ty_sysinfo_has_flag("fpu constant_tsc msr", "tsc"));
	CHECK(ty_sysinfo_has_flag("constant_tsc\tnonstop_tsc", "nonstop_tsc"));
	CHECK(!ty_sysinfo_has_flag("", "tsc"));
	CHECK(!ty_sysinfo_has_flag("tsc", ""));
	CHECK_INT(ty_sysinfo_read(fixture("ideal"), "/proc/sys/kernel/hostname", buf, sizeof(buf)),
		  6);
	CHECK_STR(buf, "bench1");
	CHECK_INT(ty_sysinfo_read(fixture("ideal"), "/no/such/file", buf, sizeof(buf)), -ENOENT);
	CHECK_STR(buf, "");
	CHECK_STR(ty_fact_state_name(TY_FACT_BAD), "bad");
}

static void
test_laptop(void)
{
	char *js;

	CHECK_INT(load("laptop"), 0);
	CHECK_INT(si.cpus, 4);
	CHECK_INT(si.cores, 2);
	CHECK_INT(si.smt_active, 1);
	CHECK_STR(si.governor, "powersave");
	CHECK_STR(si.freq_driver, "intel_pstate");
	CHECK_INT(si.boost, 1);
	CHECK_INT(si.busy_count, 2);
	CHECK_INT(si.busy[0].pid, 3100);
	CHECK_STR(si.busy[0].comm, "my (app)");
	CHECK_STR(si.busy[1].comm, "cc1");
	CHECK_INT(si.swap_total_kb - si.swap_free_kb, 524288);
	CHECK_INT(si.throttle_count, 17);
	CHECK_INT(si.on_ac, 0);
	CHECK_INT(si.battery, 1);
	CHECK_INT(si.perf_paranoid, 2);
	CHECK_INT(si.perf_max_sample_rate, 32000);
	CHECK_INT(si.aslr, 2);
	CHECK_NEAR(si.load1, 3.1, 1e-12);
	CHECK_NEAR(si.mem_pressure_some10, 2.5, 1e-12);
	CHECK_INT(si.pmu, 1);
	CHECK_STR(si.pmu_name, "cpu");
	CHECK_STR(si.virtualization, "none");
	CHECK_STR(si.nohz_full, "");
	CHECK_INT(si.constant_tsc, 1);
	CHECK_INT(state_of("governor"), TY_FACT_BAD);
	CHECK_INT(state_of("boost"), TY_FACT_BAD);
	CHECK_INT(state_of("smt"), TY_FACT_WARN);
	CHECK_INT(state_of("busy"), TY_FACT_BAD);
	CHECK_INT(state_of("power"), TY_FACT_BAD);
	CHECK_INT(state_of("swap"), TY_FACT_WARN);
	CHECK_INT(state_of("thermal"), TY_FACT_WARN);
	CHECK_INT(state_of("clocksource"), TY_FACT_OK);
	CHECK_NEAR(si.cg_quota_cpus, 0, 0);
	CHECK_STR(si.cg_file, "/sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.cfs_quota_us");
	lines = 0;
	CHECK_INT(ty_sysinfo_warnings(&si, count_line, NULL), 5);
	CHECK_INT(lines, 5);
	CHECK_STR(first, "CPU frequency governor: powersave on every CPU, driver intel_pstate "
			 "(fix: for g in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; "
			 "do echo performance > $g; done)");
	CHECK_INT(ty_sysinfo_warnings(&si, NULL, NULL), 5);
	js = json_of();
	CHECK(strstr(js, "\"governor\":\"powersave\"") ||
	      strstr(js, "\"governor\": \"powersave\""));
	CHECK(strstr(js, "\"cores\"") != NULL);
	CHECK(strstr(js, "\"tachy_version\"") != NULL);
	CHECK(strstr(js, "load1") == NULL); /* facts of the moment stay out */
	CHECK(strstr(js, "\"smt\":true") != NULL);
	free(js);
}

static void
test_ideal(void)
{
	size_t i;
	int bad = 0;

	CHECK_INT(load("ideal"), 0);
	for (i = 0; i < nfacts; i++)
		bad += facts[i].state == TY_FACT_WARN || facts[i].state == TY_FACT_BAD;
	CHECK_INT(bad, 0);
	CHECK_INT(ty_sysinfo_warnings(&si, NULL, NULL), 0);
	CHECK_STR(si.isolated, "3");
	CHECK_INT(si.boost, 0);
	CHECK_INT(si.throttle_count, 0);
	CHECK_INT(si.on_ac, 1);
	CHECK_INT(si.busy_count, 0);
	CHECK_INT((int)nfacts, 20);
}

static void
test_others(void)
{
	char *js;

	CHECK_INT(load("vm-hpet"), 0);
	CHECK_STR(si.virtualization, "kvm");
	CHECK_INT(si.pmu, 0);
	CHECK_STR(si.clocksource, "hpet");
	CHECK_INT(state_of("clocksource"), TY_FACT_BAD);
	CHECK(strstr(facts[6].fix, "echo tsc > ") != NULL);
	CHECK_INT(state_of("memory"), TY_FACT_BAD);
	CHECK_INT(state_of("pmu"), TY_FACT_WARN);
	CHECK_NEAR(si.cg_quota_cpus, 1.5, 1e-12);
	CHECK_INT(si.cg_throttled, 42);
	CHECK_INT(si.cg_v2, 1);
	CHECK_INT(state_of("cgroup"), TY_FACT_BAD);

	CHECK_INT(load("arm-paranoid"), 0);
	CHECK_INT(si.has_tsc, 0);
	CHECK_INT(si.perf_paranoid, 3);
	CHECK_INT(si.boost, 1);
	CHECK_STR(si.boost_source, "/sys/devices/system/cpu/cpufreq/boost");
	CHECK_STR(si.pmu_name, "armv8_pmuv3_0");
	CHECK_STR(si.virtualization, "kvm");
	CHECK_INT(state_of("perf_event_paranoid"), TY_FACT_WARN);
	CHECK_INT(state_of("perf_event_max_sample_rate"), TY_FACT_WARN);
	CHECK_NEAR(si.cg_quota_cpus, 0.5, 1e-12);
	CHECK_INT(si.cg_throttled, 0);
	CHECK_INT(state_of("cgroup"), TY_FACT_WARN);

	CHECK_INT(load("tsc-unstable"), 0);
	CHECK_INT(state_of("tsc"), TY_FACT_WARN);

	CHECK_INT(load("empty"), 0);
	CHECK_INT(si.cpus, -1);
	CHECK_INT(si.busy_count, -1);
	CHECK_INT(state_of("governor"), TY_FACT_INFO);
	CHECK_INT(ty_sysinfo_warnings(&si, NULL, NULL), 0);
	js = json_of();
	CHECK(strstr(js, "\"cpu_model\":null") != NULL);
	CHECK(strstr(js, "\"perf_event_paranoid\":null") != NULL);
	free(js);

	CHECK_INT(load("garbage"), 0);
	CHECK_INT(si.aslr, -1);
	CHECK_INT(si.perf_paranoid, INT32_MIN);
	CHECK_INT(si.cpus, -1);
	CHECK_INT(si.boost, -1);
	CHECK_NEAR(si.load1, -1, 0);
	CHECK_INT(si.mem_total_kb, -1);
	CHECK_INT(si.busy_count, 0);
}

static void
test_errors(void)
{
	struct ty_error e;
	char path[4200];

	CHECK_INT(ty_sysinfo_collect(fixture("no-such"), &si, &e), -ENOENT);
	CHECK(strstr(e.msg, "no-such") != NULL);
	snprintf(path, sizeof(path), "%s/proc/loadavg", fixture("ideal"));
	CHECK_INT(ty_sysinfo_collect(path, &si, &e), -ENOTDIR);
	CHECK(strstr(e.msg, "not a directory") != NULL);
	CHECK_INT(ty_sysinfo_collect(NULL, &si, &e), 0);
	CHECK(si.cpus >= 1);
	CHECK_STR(si.root, "");
	CHECK(si.date[0] != '\0');
}

/* Random bytes in every file the readers know: no crash, no hang, and
 * nothing out of range (run under ASan/UBSan by make SANITIZE=...). */
static void
test_random_trees(void)
{
	static const char *const files[] = {
	    "/proc/cpuinfo",
	    "/proc/loadavg",
	    "/proc/meminfo",
	    "/proc/stat",
	    "/proc/pressure/memory",
	    "/proc/sys/kernel/osrelease",
	    "/proc/sys/kernel/perf_event_paranoid",
	    "/proc/sys/kernel/randomize_va_space",
	    "/proc/7/task/7/stat",
	    "/proc/7/task/8/stat",
	    "/sys/devices/system/cpu/online",
	    "/sys/devices/system/cpu/isolated",
	    "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	    "/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count",
	    "/sys/devices/system/cpu/intel_pstate/no_turbo",
	    "/sys/devices/system/clocksource/clocksource0/available_clocksource",
	    "/sys/class/dmi/id/sys_vendor",
	    "/sys/class/power_supply/A/type",
	    "/sys/bus/event_source/devices/cpu/type",
	    "/proc/self/cgroup",
	    "/sys/fs/cgroup/cpu.max",
	    "/sys/fs/cgroup/cpu.stat",
	};
	char dir[] = "/tmp/t-sysinfo-XXXXXX", path[4200], cmd[4300];
	unsigned seed = 12345;
	size_t i, f;
	int ok = 1;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	for (i = 0; i < 40; i++) {
		struct ty_sysinfo *r = malloc(sizeof(*r));
		struct ty_fact fx[TY_SYSINFO_FACTS];
		char *js;

		for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			size_t len = (size_t)(rand_r(&seed) % (i < 20 ? 64 : 9000)), k;
			FILE *fp;
			char *slash;

			snprintf(path, sizeof(path), "%s%s", dir, files[f]);
			for (slash = path + strlen(dir) + 1; (slash = strchr(slash, '/'));
			     slash++) {
				*slash = '\0';
				mkdir(path, 0700);
				*slash = '/';
			}
			fp = fopen(path, "w");
			if (!fp)
				continue;
			for (k = 0; k < len; k++) {
				/* mostly digits, separators and words, some raw bytes */
				static const char alpha[] = "0123456789-, :()R\n\tabcflagstc.";
				int c = rand_r(&seed) % 10
					    ? alpha[rand_r(&seed) % (sizeof(alpha) - 1)]
					    : rand_r(&seed) % 256;
				fputc(c, fp);
			}
			fclose(fp);
		}
		if (!r)
			break;
		ok &= ty_sysinfo_collect(dir, r, NULL) == 0;
		ok &= ty_sysinfo_facts(r, fx, TY_SYSINFO_FACTS) == 20;
		ty_sysinfo_warnings(r, NULL, NULL);
		memcpy(&si, r, sizeof(si));
		js = json_of();
		ok &= js != NULL && js[0] == '{';
		free(js);
		ok &= r->cpus == -1 || (r->cpus >= 1 && r->cpus <= 4096);
		free(r);
	}
	CHECK(ok);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
}

int
main(void)
{
	test_helpers();
	test_laptop();
	test_ideal();
	test_others();
	test_errors();
	test_random_trees();
	return check_done();
}
