/* calls.c - exact call counts with counting uprobes at function entries. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "tachy/array.h"
#include "tachy/calls.h"
#include "tachy/clock.h"
#include "tachy/insn.h"
#include "tachy/perfevent.h"

#ifdef HAVE_LIBELF
static int
has_offset(const struct ty_calls *c, const char *path, uint64_t off)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->fn[i].offset == off && strcmp(c->fn[i].path, path) == 0)
			return 1;
	return 0;
}

/* The file offset of the link-time address V (in an executable segment). */
static int
vaddr_offset(Elf *elf, uint64_t v, uint64_t *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	return -1;
}

/* How a probe at link-time address V of ELF, a function of SIZE bytes, is
 * hit (its first instruction's kind, ty_calls_kind), and where the
 * function goes on after it into F->resume and F->resume2. */
static int
first_kind(Elf *elf, uint64_t v, uint64_t size, struct ty_calls_fn *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	f->resume = TY_INSN_UNKNOWN, f->resume2 = 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && v >= sh.sh_addr &&
		    v < sh.sh_addr + sh.sh_size) {
			Elf_Data *d = elf_getdata(scn, NULL);
			uint64_t at = v - sh.sh_addr;
			size_t n;
			if (!d || !d->d_buf || at >= d->d_size)
				break;
			n = d->d_size - at < 16 ? d->d_size - at : 16;
#if defined(__x86_64__)
			f->resume = ty_insn_resume((const unsigned char *)d->d_buf + at, size,
						   d->d_size - at, &f->resume2);
#endif
			return ty_calls_kind((const unsigned char *)d->d_buf + at, n);
		}
	return TY_CALLS_STEP;
}

/* Functions of ELF matching GLOB into C (at most TY_CALLS_MAX in all):
 * .symtab, else .dynsym (*STRIPPED set: no .symtab). Returns the number
 * added or -E2BIG. */
static int
match(struct ty_calls *c, Elf *elf, const char *path, const char *glob, size_t *over, int *stripped)
{
	Elf_Scn *scn = NULL, *want = NULL;
	GElf_Shdr sh;
	int added = 0;

	*stripped = 1;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !want))) {
			want = scn;
			if (sh.sh_type == SHT_SYMTAB)
				*stripped = 0;
		}
	if (!want || !gelf_getshdr(want, &sh) || !sh.sh_entsize)
		return 0;
	{
		Elf_Data *d = elf_getdata(want, NULL);
		size_t i, n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			GElf_Sym s;
			const char *name;
			uint64_t off;
			int type;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    s.st_shndx == SHN_UNDEF || !s.st_value ||
			    !(name = elf_strptr(elf, sh.sh_link, s.st_name)) || !*name ||
			    fnmatch(glob, name, 0) != 0 ||
			    vaddr_offset(elf, s.st_value, &off) < 0 || has_offset(c, path, off))
				continue;
			if (c->n >= TY_CALLS_MAX) {
				(*over)++;
				continue;
			}
			if (ty_array_grow(&c->fn, sizeof(*c->fn), c->n + 1, &c->cap) < 0)
				return -ENOMEM;
			c->fn[c->n].name = strdup(name);
			c->fn[c->n].path = strdup(path);
			c->fn[c->n].offset = off;
			c->fn[c->n].count = 0;
			c->fn[c->n].kind = first_kind(elf, s.st_value, s.st_size, &c->fn[c->n]);
			c->fn[c->n].vaddr = s.st_value;
			if (!c->fn[c->n].name || !c->fn[c->n].path)
				return -ENOMEM;
			c->n++;
			added++;
		}
	}
	return added;
}
#endif

int
ty_calls_add(struct ty_calls *c, const char *exe, const char *pattern, struct ty_error *e)
{
#ifdef HAVE_LIBELF
	const char *colon = strrchr(pattern, ':'), *glob = colon ? colon + 1 : pattern;
	char file[PATH_MAX], real[PATH_MAX];
	size_t over = 0;
	int stripped = 0;
	Elf *elf;
	int fd, n;

	if (colon) {
		if ((size_t)(colon - pattern) >= sizeof(file) || colon == pattern)
			return ty_error_set(e, -EINVAL, "--calls %s: give GLOB or FILE:GLOB",
					    pattern);
		memcpy(file, pattern, (size_t)(colon - pattern));
		file[colon - pattern] = '\0';
	} else {
		snprintf(file, sizeof(file), "%s", exe);
	}
	if (!*glob)
		return ty_error_set(e, -EINVAL, "--calls %s: the function pattern is empty",
				    pattern);
	if (!realpath(file, real))
		return ty_error_set(e, -errno, "--calls %s: cannot find %s: %s", pattern, file,
				    strerror(errno));
	elf_version(EV_CURRENT);
	if ((fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
		return ty_error_set(e, -errno, "--calls %s: cannot read %s: %s", pattern, real,
				    strerror(errno));
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return ty_error_set(e, -EINVAL, "--calls %s: %s is not an ELF file", pattern, real);
	}
	n = match(c, elf, real, glob, &over, &stripped);
	elf_end(elf);
	close(fd);
	if (n == -ENOMEM)
		return ty_error_set(e, n, "out of memory");
	if (over)
		return ty_error_set(e, -E2BIG,
				    "--calls %s matches more than %d functions in all (%zu more): "
				    "narrow the pattern (list them with nm -C %s)",
				    pattern, TY_CALLS_MAX, over, real);
	if (n == 0 && stripped) /* nm has nothing to list either */
		return ty_error_set(e, -ENOENT,
				    "--calls %s: %s is stripped (no symbol table: only the "
				    "functions it exports can be probed, and none matches '%s'); "
				    "probe an unstripped build of it, or a library's functions "
				    "with FILE:GLOB",
				    pattern, real, glob);
	if (n == 0)
		return ty_error_set(e, -ENOENT,
				    "--calls %s: no function of %s matches '%s' (list them with nm "
				    "-C %s; a library's with FILE:GLOB)",
				    pattern, real, glob, real);
	return n;
#else
	(void)c, (void)exe;
	return ty_error_set(e, -ENOTSUP, "--calls %s: not built with elfutils (libelf)", pattern);
#endif
}

static int
uprobe_type(void)
{
	return ty_perfevent_pmu_type("uprobe");
}

static long
open_probe(int type, const struct ty_calls_fn *f, pid_t pid, int cpu, int on_exec)
{
	struct perf_event_attr a;

	ty_perfevent_attr_init(&a, (uint32_t)type, 0); /* config 0: entry, not return */
	a.config1 = (uint64_t)(uintptr_t)f->path;
	a.config2 = f->offset;
	a.disabled = on_exec ? 1 : 0;
	a.enable_on_exec = on_exec ? 1 : 0;
	a.inherit = pid > 0;
	a.exclude_kernel = 1;
	return ty_perfevent_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int
open_error(struct ty_error *e, int err, const struct ty_calls_fn *f)
{
	if (err == EACCES || err == EPERM)
		return ty_error_set(
		    e, -EACCES,
		    "--calls: uprobes need CAP_PERFMON (or root): run tachy as root "
		    "or give it the capability ('setcap cap_perfmon+ep tachy')");
	return ty_error_set(e, -err, "--calls: cannot place a uprobe at %s in %s: %s", f->name,
			    f->path, strerror(err));
}

/* The tracefs directory, or NULL when it is not mounted. */
static const char *
tracefs(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[64];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/uprobe_events", dirs[i]);
		if (access(path, W_OK) == 0)
			return dirs[i];
	}
	return NULL;
}

static int
write_probe(const char *dir, const char *line)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return -errno;
	ok = write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	close(fd);
	return ok ? 0 : -EIO;
}

pid_t
ty_calls_probe_pid(const char *line, size_t len, char *name, size_t size)
{
	size_t i = 8, digits = 0, ev = 0;
	long long pid = 0;

	if (len < 11 || (line[0] != 'p' && line[0] != 'r') || memcmp(line + 1, ":tachy_", 7) != 0)
		return 0;
	for (; i < len && line[i] >= '0' && line[i] <= '9' && digits < 10; i++, digits++)
		pid = pid * 10 + (line[i] - '0');
	if (!digits || pid <= 0 || pid > INT_MAX || i >= len || line[i++] != '/')
		return 0;
	for (; i < len && (isalnum((unsigned char)line[i]) || line[i] == '_'); i++)
		ev++;
	if (!ev || (i < len && line[i] != ' ' && line[i] != '\n' && line[i] != '\t') ||
	    i - 2 >= size)
		return 0;
	memcpy(name, line + 2, i - 2); /* tachy_PID/EVENT */
	name[i - 2] = '\0';
	return (pid_t)pid;
}

/* Whether a process PID runs (one we may not signal runs too). */
static int
pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

#define EVENTS_MAX (1 << 20) /* of uprobe_events read */

int
ty_calls_sweep(struct ty_calls *c, const char *dir)
{
	char path[PATH_MAX], *buf, *p, *end, name[128], rm[160];
	int fd, removed = 0;
	ssize_t n;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	if (!(buf = malloc(EVENTS_MAX)))
		return -ENOMEM;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		free(buf);
		return -errno;
	}
	while (len < EVENTS_MAX - 1 && (n = read(fd, buf + len, EVENTS_MAX - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (p = buf; p < buf + len; p = end + 1) {
		pid_t pid;
		if (!(end = memchr(p, '\n', (size_t)(buf + len - p))))
			end = buf + len;
		pid = ty_calls_probe_pid(p, (size_t)(end - p), name, sizeof(name));
		/* only tachy's own names, of a tachy that is gone: a live one's are busy */
		if (pid <= 0 || pid == getpid() || pid_alive(pid))
			continue;
		snprintf(rm, sizeof(rm), "-:%s\n", name);
		if (write_probe(dir, rm) == 0)
			removed++;
	}
	free(buf);
	if (c)
		c->swept += (size_t)removed;
	return removed;
}

/* Remove the tracefs probes placed (after their events are closed). */
static void
untrace(struct ty_calls *c)
{
	char line[96];
	size_t i;

	for (i = 0; c->tracefs && i < c->traced; i++) {
		snprintf(line, sizeof(line), "-:tachy_%d/f%zu\n", (int)getpid(), i);
		write_probe(c->tracefs, line);
	}
	c->traced = 0;
}

/* A tracefs uprobe for F (its event id), so that the counting events of a
 * command are inherited by its children: the uprobe PMU's are not (the
 * kernel reads the file name from the forking process's memory). */
static long
trace_probe(struct ty_calls *c, size_t i, const char *dir)
{
	char line[PATH_MAX + 128], path[PATH_MAX + 64], id[32];
	const struct ty_calls_fn *f = &c->fn[i];
	long v;
	int fd;
	ssize_t n;

	if (strpbrk(f->path, " \t\n"))
		return -EINVAL;
	snprintf(line, sizeof(line), "p:tachy_%d/f%zu %s:0x%llx\n", (int)getpid(), i, f->path,
		 (unsigned long long)f->offset);
	if ((v = write_probe(dir, line)) < 0)
		return v;
	c->traced = i + 1;
	snprintf(path, sizeof(path), "%s/events/tachy_%d/f%zu/id", dir, (int)getpid(), i);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, id, sizeof(id) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	id[n] = '\0';
	return strtol(id, NULL, 10);
}

static long
open_traced(long id, pid_t pid, int on_exec)
{
	struct perf_event_attr a;

	ty_perfevent_attr_init(&a, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	a.disabled = on_exec ? 1 : 0;
	a.enable_on_exec = on_exec ? 1 : 0;
	a.inherit = 1;
	return ty_perfevent_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int
ty_calls_open(struct ty_calls *c, pid_t pid, int on_exec, const int *cpus, int ncpus,
	      struct ty_error *e)
{
	int type = uprobe_type(), all = 0;
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	size_t i, k;

	if (type < 0)
		return ty_error_set(e, -ENODEV,
				    "--calls: this kernel has no uprobe PMU "
				    "(/sys/bus/event_source/devices/uprobe; CONFIG_UPROBE_EVENTS)");
	if (pid < 0 && !cpus) {
		all = 1;
		ncpus = nconf > 0 ? (int)nconf : 1;
	}
	c->nfds_per = pid < 0 ? (size_t)ncpus : 1;
	if (!(c->fds = malloc((c->n ? c->n : 1) * c->nfds_per * sizeof(*c->fds))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < c->n * c->nfds_per; i++)
		c->fds[i] = -1;
	if (pid > 0 && (c->tracefs = tracefs())) {
		ty_calls_sweep(c, c->tracefs); /* those a killed tachy left */
		for (i = 0; i < c->n; i++) {
			long id = trace_probe(c, i, c->tracefs), fd;
			if (id < 0)
				break;
			if ((fd = open_traced(id, pid, on_exec)) < 0)
				return open_error(e, errno, &c->fn[i]);
			c->fds[i] = (int)fd;
		}
		if (i == c->n)
			return 0;
		for (i = 0; i < c->n; i++) /* tracefs refused: the PMU's, children uncounted */
			if (c->fds[i] >= 0)
				close(c->fds[i]), c->fds[i] = -1;
		untrace(c);
	}
	if (pid > 0)
		c->no_children = 1;
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->nfds_per; k++) {
			int cpu = pid < 0 ? (all ? (int)k : cpus[k]) : -1;
			long fd = open_probe(type, &c->fn[i], pid, cpu, on_exec);
			if (fd < 0) {
				if (pid < 0 && all && errno == ENODEV)
					continue; /* an offline CPU */
				return open_error(e, errno, &c->fn[i]);
			}
			c->fds[i * c->nfds_per + k] = (int)fd;
		}
	return 0;
}

int
ty_calls_read(struct ty_calls *c, struct ty_error *e)
{
	size_t i, k;

	for (i = 0; i < c->n; i++) {
		c->fn[i].count = 0;
		for (k = 0; k < c->nfds_per; k++) {
			uint64_t v;
			int fd = c->fds ? c->fds[i * c->nfds_per + k] : -1;
			if (fd < 0)
				continue;
			if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				return ty_error_set(e, -errno ? -errno : -EIO,
						    "--calls: cannot read the count of %s: %s",
						    c->fn[i].name, strerror(errno ? errno : EIO));
			c->fn[i].count += v;
		}
	}
	return 0;
}

uint64_t
ty_calls_total(const struct ty_calls *c)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		t += c->fn[i].count;
	return t;
}

/* The calibration: functions of tachy's own that begin with each kind of
 * first instruction (the kernel emulates a push, a nop or a branch at the
 * trap; it steps any other out of line, a second trap), each with the
 * same loop of known length in its own body, as a probed function has
 * it, stamped after the first instruction and before the return: what a
 * hit adds to the function's own time after the trap (the trap leaves the
 * caches and predictors cold). Not the return: it is slower after a trap
 * too (its prediction is lost), but its samples land at the caller's
 * return address, not in the function (measured, bench/NOTES.md). */
#define CAL_ITERS 2000 /* the body's loop (CAL_BODY's too): a microsecond or so */
__attribute__((visibility("hidden"))) volatile unsigned long ty_calls_cal_sink;
__attribute__((visibility("hidden"))) volatile uint64_t ty_calls_cal_ticks; /* the last body's */

#if defined(__x86_64__)
static double cal_scale; /* ns a tick (the TSC's), ty_calls_calibrate's */

static uint64_t
cal_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

void ty_calls_cal_push(void), ty_calls_cal_nop(void), ty_calls_cal_endbr(void),
    ty_calls_cal_step(void);
/* The body: the TSC read after the first instruction, the loop, the TSC
 * again, the difference into ty_calls_cal_ticks (rax, rcx, rdx, r8: the
 * caller's to save). */
#define CAL_BODY                                                                                   \
	"\tlfence\n\trdtsc\n\tshl $32,%rdx\n\tor %rdx,%rax\n\tmov %rax,%r8\n"                      \
	"\tmov $2000,%ecx\n" /* CAL_ITERS */                                                       \
	"1:\taddq %rcx,ty_calls_cal_sink(%rip)\n\tdec %ecx\n\tjnz 1b\n"                            \
	"\tlfence\n\trdtsc\n\tshl $32,%rdx\n\tor %rdx,%rax\n\tsub %r8,%rax\n"                      \
	"\tmov %rax,ty_calls_cal_ticks(%rip)\n"
#define CAL_FN(name, first, last)                                                                  \
	".text\n.p2align 4\n.globl " name "\n.hidden " name "\n.type " name ",@function\n" name    \
	":\n" first CAL_BODY last "\tret\n.size " name ",.-" name "\n"
__asm__(CAL_FN("ty_calls_cal_push", "\tpush %rbp\n\tmov %rsp,%rbp\n", "\tpop %rbp\n"));
__asm__(CAL_FN("ty_calls_cal_nop", "\t.byte 0x0f,0x1f,0x40,0x00\n", ""));
__asm__(CAL_FN("ty_calls_cal_endbr", "\t.byte 0xf3,0x0f,0x1e,0xfa\n", ""));
__asm__(CAL_FN("ty_calls_cal_step", "\tmov %rdi,%rax\n", ""));
static void (*const cal_fn[TY_CALLS_KINDS])(void) = {ty_calls_cal_push, ty_calls_cal_nop,
						     ty_calls_cal_endbr, ty_calls_cal_step};
#else
static const double cal_scale = 1; /* the body times itself in ns */

__attribute__((noinline, used)) void ty_calls_cal_body(void);
__attribute__((noinline, used)) void
ty_calls_cal_body(void)
{
	uint64_t a = ty_clock_now_ns();
	int i;

	for (i = 0; i < CAL_ITERS; i++)
		ty_calls_cal_sink += (unsigned long)i;
	ty_calls_cal_ticks = ty_clock_now_ns() - a;
}
static void (*const cal_fn[TY_CALLS_KINDS])(void) = {ty_calls_cal_body, ty_calls_cal_body,
						     ty_calls_cal_body, ty_calls_cal_body};
#endif

int
ty_calls_kind(const unsigned char *b, size_t n)
{
#if defined(__x86_64__)
	size_t i = 0;

	if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		return TY_CALLS_ENDBR;
	if (n >= 1 && b[0] >= 0x50 && b[0] <= 0x57)
		return TY_CALLS_PUSH;
	if (n >= 2 && (b[0] == 0x41 || b[0] == 0x40) && b[1] >= 0x50 && b[1] <= 0x57)
		return TY_CALLS_PUSH;
	while (i < n && i < 4 && b[i] == 0x66) /* operand-size prefixes of a nop */
		i++;
	if (i < n && b[i] == 0x90)
		return TY_CALLS_NOP;
	if (i + 1 < n && b[i] == 0x0f && b[i + 1] == 0x1f)
		return TY_CALLS_NOP;
	if (n >= 1 &&
	    (b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb || (b[0] >= 0x70 && b[0] <= 0x7f)))
		return TY_CALLS_NOP; /* branches: emulated as a nop is */
	if (n >= 2 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)
		return TY_CALLS_NOP;
#else
	(void)b, (void)n;
#endif
	return TY_CALLS_STEP;
}

/* Where our own function FN lies: its file and the offset in it. */
static int
self_offset(struct ty_calls_fn *f, uintptr_t addr)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	unsigned long long lo, hi, off;
	FILE *fp = fopen("/proc/self/maps", "r");
	int found = -1;

	if (!fp)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &lo, &hi, &off, path) == 4 &&
		    addr >= lo && addr < hi && path[0] == '/') {
			f->offset = addr - lo + off;
			f->path = strdup(path);
			found = f->path ? 0 : -1;
		}
	fclose(fp);
	return found;
}

#define CAL_CALLS 100 /* a round: a few ms at the slowest hits seen (20 us) */
#define CAL_ROUNDS 5

/* One round of FN: its CPU time per call, its bodies' times into BODY
 * (CAL_CALLS of them, in the calibration's ticks). */
static void
cal_round(void (*fn)(void), double *cpu, uint64_t *body)
{
	uint64_t t0;
	int i;

	t0 = ty_clock_thread_ns(); /* the trap's kernel time is in it, another task's is not */
	for (i = 0; i < CAL_CALLS; i++) {
		fn();
		body[i] = ty_calls_cal_ticks;
	}
	*cpu = (double)(ty_clock_thread_ns() - t0) / CAL_CALLS;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

double
ty_calls_disturbance(uint64_t *on, size_t non, uint64_t *off, size_t noff, double ns_per_tick)
{
	double d;

	if (!non || !noff)
		return 0;
	d = (median_u64(on, non) - median_u64(off, noff)) * ns_per_tick;
	return d > 0 ? d : 0;
}

/* Kind K's cost per hit, the least round with the probe less the least
 * without (a loaded machine's preemptions only add), and what a hit adds
 * to the body, the median call with the probe less the median without
 * (in ticks: ty_calls_calibrate scales it; an interrupted call is one of
 * 500, a round's least would keep the interruptions of all of it). */
static int
cal_kind(struct ty_calls *c, int type, int k, struct ty_error *e)
{
	struct ty_calls_fn f = {"ty_calls_cal", NULL, 0, 0, k, 0, 0, 0};
	uint64_t off_body[CAL_ROUNDS * CAL_CALLS], on_body[CAL_ROUNDS * CAL_CALLS];
	double off = -1, on = -1, cpu;
	int round, rounds = 0;
	long fd;

	if (self_offset(&f, (uintptr_t)cal_fn[k]) < 0)
		return ty_error_set(e, -ENOENT,
				    "--calls: cannot find tachy's own code to measure "
				    "a probe hit with");
	/* Without a probe first: once placed, the breakpoint stays in the
	 * code while the event is merely disabled. */
	for (round = 0; round < CAL_ROUNDS; round++) {
		cal_round(cal_fn[k], &cpu, off_body + round * CAL_CALLS);
		if (off < 0 || cpu < off)
			off = cpu;
	}
	if ((fd = open_probe(type, &f, 0, -1, 0)) < 0) {
		int err = errno;
		open_error(e, err, &f);
		free(f.path);
		return e->code;
	}
	for (round = 0; round < CAL_ROUNDS; round++) {
		uint64_t before = 0, after = 0;
		if (read((int)fd, &before, sizeof(before)) != (ssize_t)sizeof(before))
			break;
		cal_round(cal_fn[k], &cpu, on_body + round * CAL_CALLS);
		if (read((int)fd, &after, sizeof(after)) != (ssize_t)sizeof(after))
			break;
		if (after - before != CAL_CALLS) {
			close((int)fd);
			free(f.path);
			return ty_error_set(
			    e, -EIO, "--calls: the calibration probe counted %llu calls of %d",
			    (unsigned long long)(after - before), CAL_CALLS);
		}
		if (on < 0 || cpu < on)
			on = cpu;
		rounds++;
	}
	close((int)fd);
	free(f.path);
	if (on < 0)
		return ty_error_set(e, -EIO, "--calls: cannot read the calibration probe's count");
	c->kind_ns[k] = on > off ? on - off : 0;
	c->disturb_ns[k] = ty_calls_disturbance(on_body, (size_t)rounds * CAL_CALLS, off_body,
						CAL_ROUNDS * CAL_CALLS, 1);
	c->body_ns = median_u64(off_body, CAL_ROUNDS * CAL_CALLS);
	return 0;
}

int
ty_calls_calibrate(struct ty_calls *c, struct ty_error *e)
{
	int type = uprobe_type(), used[TY_CALLS_KINDS] = {0}, k, ret;
	size_t i;
#if defined(__x86_64__)
	uint64_t ns0 = ty_clock_now_ns(), tsc0 = cal_tsc(), ns1, tsc1;
#endif

	if (type < 0)
		return ty_error_set(e, -ENODEV, "--calls: this kernel has no uprobe PMU");
	for (i = 0; i < c->n; i++)
		used[c->fn[i].kind] = 1;
	for (k = 0; k < TY_CALLS_KINDS; k++)
		if ((used[k] || (k == TY_CALLS_STEP && !c->n)) &&
		    (ret = cal_kind(c, type, k, e)) < 0)
			return ret;
#if defined(__x86_64__)
	/* the TSC's ns a tick, over the calibration (tens of ms) */
	ns1 = ty_clock_now_ns(), tsc1 = cal_tsc();
	cal_scale = tsc1 > tsc0 ? (double)(ns1 - ns0) / (double)(tsc1 - tsc0) : 0;
#endif
	for (k = 0; k < TY_CALLS_KINDS; k++)
		c->disturb_ns[k] *= cal_scale;
	c->body_ns *= cal_scale;
	c->hit_ns = c->kind_ns[c->n ? c->fn[0].kind : TY_CALLS_STEP];
	return 0;
}

double
ty_calls_cost_ns(const struct ty_calls *c, double *disturb_ns)
{
	double cost = 0, dist = 0;
	uint64_t hits = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		cost += (double)c->fn[i].count * c->kind_ns[c->fn[i].kind];
		dist += (double)c->fn[i].count * c->disturb_ns[c->fn[i].kind];
		hits += c->fn[i].count;
	}
	if (disturb_ns)
		*disturb_ns = hits ? dist / (double)hits : 0;
	return cost;
}

void
ty_calls_release(struct ty_calls *c)
{
	size_t i;

	for (i = 0; c->fds && i < c->n * c->nfds_per; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	untrace(c);
	for (i = 0; i < c->n; i++) {
		free(c->fn[i].name);
		free(c->fn[i].path);
	}
	free(c->fn);
	free(c->fds);
	memset(c, 0, sizeof(*c));
}
