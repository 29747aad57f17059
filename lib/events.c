/* events.c - event names -> struct perf_event_attr (see events.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/dynlib.h"
#include "tachy/events.h"

#ifdef HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

struct generic {
	const char *name;
	unsigned type;
	unsigned long long config;
	enum ty_event_kind kind;
};

static const struct generic generics[] = {
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TY_EVENT_CYCLES},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, TY_EVENT_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, TY_EVENT_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
     TY_EVENT_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, TY_EVENT_CACHE_MISSES},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
     TY_EVENT_BRANCHES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, TY_EVENT_BRANCHES},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, TY_EVENT_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, TY_EVENT_OTHER},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
     TY_EVENT_OTHER},
    {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
     TY_EVENT_OTHER},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
     TY_EVENT_OTHER},
    {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
     TY_EVENT_OTHER},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, TY_EVENT_OTHER},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, TY_EVENT_TASK_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, TY_EVENT_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, TY_EVENT_OTHER},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, TY_EVENT_OTHER},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, TY_EVENT_OTHER},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, TY_EVENT_OTHER},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, TY_EVENT_OTHER},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, TY_EVENT_OTHER},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, TY_EVENT_OTHER},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, TY_EVENT_OTHER},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, TY_EVENT_OTHER},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, TY_EVENT_OTHER},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, TY_EVENT_OTHER},
};

/* Hardware cache events: CACHE-OP-RESULT, each part with perf's aliases. */
static const char *const cache_names[][6] = {
    {"L1-dcache", "l1-d", "l1d", "L1-data", NULL},
    {"L1-icache", "l1-i", "l1i", "L1-instruction", NULL},
    {"LLC", "L2", NULL},
    {"dTLB", "d-tlb", "Data-TLB", NULL},
    {"iTLB", "i-tlb", "Instruction-TLB", NULL},
    {"branch", "branches", "bpu", "btb", "bpc", NULL},
    {"node", NULL},
};
static const char *const cache_ops[][5] = {
    {"load", "loads", "read", NULL},
    {"store", "stores", "write", NULL},
    {"prefetch", "prefetches", "speculative-read", "speculative-load", NULL},
};
static const char *const cache_results[][5] = {
    {"refs", "Reference", "ops", "access", NULL},
    {"misses", "miss", NULL},
};

/* Match one of ALIASES (case-insensitively) at the start of *S, followed
 * by '-' or the end; advance *S past it and the '-'. Longest alias wins. */
static int
match_alias(const char **s, const char *const *aliases)
{
	size_t best = 0;
	int i;

	for (i = 0; aliases[i]; i++) {
		size_t n = strlen(aliases[i]);

		if (n > best && strncasecmp(*s, aliases[i], n) == 0 &&
		    ((*s)[n] == '-' || (*s)[n] == '\0'))
			best = n;
	}
	if (!best)
		return 0;
	*s += best;
	if (**s == '-')
		(*s)++;
	return 1;
}

static int
parse_cache(const char *s, struct ty_event *ev)
{
	int cache, op = PERF_COUNT_HW_CACHE_OP_READ, res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	int i, have_op = 0, have_res = 0;

	for (cache = 0; cache < (int)(sizeof(cache_names) / sizeof(cache_names[0])); cache++)
		if (match_alias(&s, cache_names[cache]))
			break;
	if (cache == (int)(sizeof(cache_names) / sizeof(cache_names[0])))
		return 0;
	while (*s) {
		int found = 0;

		for (i = 0; !have_op && i < 3; i++)
			if (match_alias(&s, cache_ops[i])) {
				op = i, have_op = found = 1;
				break;
			}
		for (i = 0; !found && !have_res && i < 2; i++)
			if (match_alias(&s, cache_results[i])) {
				res = i, have_res = found = 1;
				break;
			}
		if (!found)
			return 0;
	}
	ev->attr.type = PERF_TYPE_HW_CACHE;
	ev->attr.config = (unsigned)cache | (unsigned)op << 8 | (unsigned)res << 16;
	ev->kind =
	    res == PERF_COUNT_HW_CACHE_RESULT_MISS ? TY_EVENT_CACHE_MISS : TY_EVENT_CACHE_ACCESS;
	ev->cache_id = (unsigned)cache | (unsigned)op << 8;
	return 1;
}

static int
parse_raw(const char *s, struct ty_event *ev)
{
	char *end;
	unsigned long long v;

	if (s[0] != 'r' || !isxdigit((unsigned char)s[1]))
		return 0;
	errno = 0;
	v = strtoull(s + 1, &end, 16);
	if (*end || errno)
		return 0;
	ev->attr.type = PERF_TYPE_RAW;
	ev->attr.config = v;
	return 1;
}

static int
parse_base(const char *s, struct ty_event *ev)
{
	size_t i;

	for (i = 0; i < sizeof(generics) / sizeof(generics[0]); i++)
		if (strcmp(s, generics[i].name) == 0) {
			ev->attr.type = generics[i].type;
			ev->attr.config = generics[i].config;
			ev->kind = generics[i].kind;
			if (ev->kind == TY_EVENT_TASK_CLOCK) {
				ev->unit = "msec";
				ev->scale = 1e-6;
			}
			return 1;
		}
	return parse_cache(s, ev) || parse_raw(s, ev);
}

/* Apply perf's modifiers MODS (u, k, h, p); 0 or -EINVAL. */
static int
apply_mods(const char *mods, struct ty_event *ev)
{
	int u = 0, k = 0, h = 0;
	const char *m;

	for (m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = 1;
			break;
		case 'k':
			k = 1;
			break;
		case 'h':
			h = 1;
			break;
		case 'p':
			if (ev->attr.precise_ip < 3)
				ev->attr.precise_ip++;
			break;
		default:
			return -EINVAL;
		}
	}
	if (u || k || h) {
		ev->attr.exclude_user = !u;
		ev->attr.exclude_kernel = !k;
		ev->attr.exclude_hv = !h;
		ev->flags |= TY_EVENT_PRIV_GIVEN;
	}
	return 0;
}

static int
only_mods(const char *s)
{
	if (!*s)
		return 0;
	return strspn(s, "ukhp") == strlen(s);
}

/* Does NAME look like a CPU event (INST_RETIRED:ANY_P: capitals, digits,
 * '_', '.') or a libpfm4 PMU::EVENT name? */
static int
looks_cpu(const char *name)
{
	size_t i;

	if (strstr(name, "::"))
		return 1;
	for (i = 0; name[i] && name[i] != ':'; i++)
		if (!isupper((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
		    name[i] != '_' && name[i] != '.')
			return 0;
	return i > 0;
}

#ifdef HAVE_LIBPFM
/* libpfm4's functions, loaded by the first event name it is asked for
 * (dynlib.h): linked in, its 41,000 relocations (its event tables) cost
 * every command's start-up 7 ms here, 3x a whole `tachy stat` of 100
 * numbers. */
static struct {
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_strerror) *strerror;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
} pfm;

static int
pfm_load(struct ty_error *e)
{
	static const struct ty_dynlib_sym syms[] = {
	    {"pfm_initialize", (void **)&pfm.initialize},
	    {"pfm_strerror", (void **)&pfm.strerror},
	    {"pfm_get_os_event_encoding", (void **)&pfm.get_os_event_encoding},
	    {"pfm_get_pmu_info", (void **)&pfm.get_pmu_info}};

	return ty_dynlib_load("libpfm.so.4", "libpfm4", syms, 4, e);
}

/* Does libpfm4 see a CPU PMU (not only its generic perf:: tables)? */
static int
hw_pmu_present(void)
{
	pfm_pmu_info_t info;
	pfm_pmu_t i;

	pfm_for_all_pmus(i)
	{
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm.get_pmu_info(i, &info) == PFM_SUCCESS && info.is_present &&
		    info.type != PFM_PMU_TYPE_OS_GENERIC)
			return 1;
	}
	return 0;
}

static int
parse_pfm(const char *name, struct ty_event *ev, struct ty_error *e)
{
	static int inited;
	static int init_ret;
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr attr;
	int ret;

	if (!inited) {
		struct ty_error le = {0};
		if (pfm_load(&le) < 0) {
			if (!looks_cpu(name))
				return ty_error_set(e, -EINVAL, "unknown event '%s'", name);
			return ty_error_set(e, -ENOTSUP, "cannot use CPU event '%s': %s", name,
					    le.msg);
		}
		init_ret = pfm.initialize();
		inited = 1;
	}
	if (init_ret != PFM_SUCCESS)
		return ty_error_set(e, -EINVAL, "unknown event '%s' (libpfm4: %s)", name,
				    pfm.strerror(init_ret));
	memset(&arg, 0, sizeof(arg));
	memset(&attr, 0, sizeof(attr));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return ty_error_set(e, -EINVAL, "unknown event '%s'%s", name,
				    !looks_cpu(name) || hw_pmu_present()
					? ""
					: " (libpfm4 finds no hardware PMU on this "
					  "machine: only perf::NAME events)");
	if (ret != PFM_SUCCESS)
		return ty_error_set(e, -EINVAL, "bad event '%s' (libpfm4: %s)", name,
				    pfm.strerror(ret));
	ev->attr.type = attr.type;
	ev->attr.config = attr.config;
	ev->attr.config1 = attr.config1;
	ev->attr.config2 = attr.config2;
	ev->attr.exclude_user = attr.exclude_user;
	ev->attr.exclude_kernel = attr.exclude_kernel;
	ev->attr.exclude_hv = attr.exclude_hv;
	if (strchr(name, ':') && (attr.exclude_user || attr.exclude_kernel))
		ev->flags |= TY_EVENT_PRIV_GIVEN;
	return 0;
}
#else
static int
parse_pfm(const char *name, struct ty_event *ev, struct ty_error *e)
{
	if (!looks_cpu(name))
		return ty_error_set(e, -EINVAL, "unknown event '%s'", name);
	return ty_error_set(e, -ENOTSUP,
			    "cannot use CPU event '%s': tachy was not built with libpfm4", name);
}
#endif

int
ty_event_parse(const char *name, struct ty_event *ev, struct ty_error *e)
{
	char base[TY_EVENT_NAME_MAX];
	char *colon;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ev->unit = "";
	ev->scale = 1;
	if (!*name)
		return ty_error_set(e, -EINVAL, "empty event name");
	if (strlen(name) >= sizeof(base))
		return ty_error_set(e, -EINVAL, "event name too long: '%.40s...'", name);
	strcpy(ev->name, name);
	strcpy(base, name);
	ev->attr.size = sizeof(ev->attr);
	colon = strrchr(base, ':');
	if (colon && only_mods(colon + 1)) {
		*colon = '\0';
		if (parse_base(base, ev)) {
			if (apply_mods(colon + 1, ev) < 0)
				return ty_error_set(e, -EINVAL, "bad modifier in event '%s'", name);
			return 0;
		}
		*colon = ':';
	}
	if (colon) {
		struct ty_event probe;

		*colon = '\0';
		memset(&probe, 0, sizeof(probe));
		if (parse_base(base, &probe))
			return ty_error_set(e, -EINVAL,
					    "bad modifier '%s' in event '%s' (u, k, h, p)",
					    colon + 1, name);
		*colon = ':';
	}
	if (parse_base(base, ev))
		return 0;
	ret = parse_pfm(name, ev, e);
	if (ret < 0) {
		memset(ev, 0, sizeof(*ev));
		return ret;
	}
	return 0;
}

void
ty_event_list_init(struct ty_event_list *l)
{
	memset(l, 0, sizeof(*l));
}

void
ty_event_list_release(struct ty_event_list *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

int
ty_event_list_find(const struct ty_event_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->ev[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
ty_event_list_find_kind(const struct ty_event_list *l, enum ty_event_kind kind)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->ev[i].kind == kind)
			return (int)i;
	return -1;
}

static int
push(struct ty_event_list *l, const struct ty_event *ev, struct ty_error *e)
{
	if (ty_event_list_find(l, ev->name) >= 0)
		return 0;
	if (ty_array_grow(&l->ev, sizeof(*l->ev), l->n + 1, &l->cap) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory for the event list");
	l->ev[l->n++] = *ev;
	return 0;
}

/* Parse one token NAME (with a group's modifiers GMODS appended) into L. */
static int
add_one(struct ty_event_list *l, const char *name, size_t len, const char *gmods, int group,
	struct ty_error *e)
{
	char buf[TY_EVENT_NAME_MAX];
	struct ty_event ev;
	int ret;

	if (len == 0)
		return ty_error_set(e, -EINVAL, "empty event name in the event list");
	if (len + strlen(gmods) + 1 >= sizeof(buf))
		return ty_error_set(e, -EINVAL, "event name too long: '%.40s...'", name);
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (*gmods) {
		strcat(buf, ":");
		strcat(buf, gmods);
	}
	ret = ty_event_parse(buf, &ev, e);
	if (ret < 0)
		return ret;
	ev.group = group;
	return push(l, &ev, e);
}

/* Parse the group body S[0..len) ("a,b,c") with modifiers GMODS. */
static int
add_group(struct ty_event_list *l, const char *s, size_t len, const char *gmods, int group,
	  struct ty_error *e)
{
	size_t i = 0, start = 0, depth = 0;
	int ret;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] == '/')
			depth = !depth; /* pmu/a=1,b=2/ keeps its commas */
		if (i < len && (s[i] != ',' || depth))
			continue;
		ret = add_one(l, s + start, i - start, gmods, group, e);
		if (ret < 0)
			return ret;
		start = i + 1;
	}
	return 0;
}

static int
add_list(struct ty_event_list *l, const char *list, struct ty_error *e)
{
	const char *s = list;
	char gmods[8];
	int ret;

	while (*s) {
		if (*s == '{') {
			const char *end = strchr(s, '}');
			size_t mlen = 0;

			if (!end)
				return ty_error_set(e, -EINVAL, "unclosed '{' in event list '%s'",
						    list);
			if (strchr(s + 1, '{') && strchr(s + 1, '{') < end)
				return ty_error_set(e, -EINVAL, "nested '{' in event list '%s'",
						    list);
			gmods[0] = '\0';
			if (end[1] == ':') {
				mlen = strcspn(end + 2, ",");
				if (mlen == 0 || mlen >= sizeof(gmods))
					return ty_error_set(e, -EINVAL,
							    "bad group modifier in event list '%s'",
							    list);
				memcpy(gmods, end + 2, mlen);
				gmods[mlen] = '\0';
				if (!only_mods(gmods))
					return ty_error_set(e, -EINVAL,
							    "bad group modifier in event list '%s'",
							    list);
				mlen++;
			}
			ret = add_group(l, s + 1, (size_t)(end - s - 1), gmods, ++l->next_group, e);
			if (ret < 0)
				return ret;
			s = end + 1 + mlen;
		} else {
			size_t len = 0;
			int slash = 0;

			while (s[len] && (slash || s[len] != ',')) {
				if (s[len] == '/')
					slash = !slash;
				if (s[len] == '{' || s[len] == '}')
					return ty_error_set(e, -EINVAL,
							    "misplaced '%c' in event list '%s'",
							    s[len], list);
				len++;
			}
			ret = add_one(l, s, len, "", 0, e);
			if (ret < 0)
				return ret;
			s += len;
		}
		if (*s == ',') {
			s++;
			if (!*s)
				return ty_error_set(e, -EINVAL, "trailing ',' in event list '%s'",
						    list);
		} else if (*s) {
			return ty_error_set(e, -EINVAL, "expected ',' in event list '%s'", list);
		}
	}
	return 0;
}

int
ty_event_list_add(struct ty_event_list *l, const char *list, struct ty_error *e)
{
	size_t n = l->n;
	int group = l->next_group;
	int ret;

	if (!*list)
		return ty_error_set(e, -EINVAL, "empty event list");
	ret = add_list(l, list, e);
	if (ret < 0) {
		l->n = n;
		l->next_group = group;
	}
	return ret;
}

int
ty_event_list_add_defaults(struct ty_event_list *l, struct ty_error *e)
{
	return ty_event_list_add(l,
				 "task-clock,context-switches,cpu-migrations,page-faults,"
				 "{cycles,instructions},branches,branch-misses,cache-references,"
				 "cache-misses",
				 e);
}

int
ty_event_kernel_side(const struct ty_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		ev->attr.config == PERF_COUNT_SW_CPU_MIGRATIONS);
}
