/* vgcount.c - instruction counts under Valgrind's cachegrind (vgcount.h). */
#include "tachy/vgcount.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tachy/profile-cachegrind.h"
#include "tachy/runner.h"
#include "tachy/runprof.h"
#include "tachy/spawn.h"

extern char **environ;

/* `valgrind --version` started (its output into a pipe), not waited for:
 * it runs the whole tool (30-40 ms on a loaded 2-core VM), so it runs
 * beside the first measured run, read after that run's reap
 * (version_finish), outside anything timed (bench/instr-cost.sh). */
static void
version_start(struct ty_vgcount *v)
{
	char *argv[] = {v->valgrind, "--version", NULL};
	posix_spawn_file_actions_t fa;
	int fd[2];

	v->version_pid = -1;
	v->version_fd = -1;
	if (pipe2(fd, O_CLOEXEC) < 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	if (posix_spawn(&v->version_pid, v->valgrind, &fa, NULL, argv, environ) != 0)
		v->version_pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (v->version_pid < 0)
		close(fd[0]);
	else
		v->version_fd = fd[0];
}

/* Its "valgrind-3.19.0" into V->version and V->source; the process reaped. */
static void
version_finish(struct ty_vgcount *v)
{
	char buf[128];
	size_t len = 0;
	ssize_t n;
	int st;

	if (v->version_fd < 0)
		return;
	while (len < sizeof(buf) - 1) {
		n = read(v->version_fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(v->version_fd);
	v->version_fd = -1;
	while (v->version_pid > 0 && waitpid(v->version_pid, &st, 0) < 0 && errno == EINTR)
		;
	v->version_pid = -1;
	buf[len] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (strncmp(buf, "valgrind-", 9) == 0 && strspn(buf + 9, "0123456789.") == strlen(buf + 9))
		snprintf(v->version, sizeof(v->version), "%s", buf + 9);
	snprintf(v->source, sizeof(v->source), "valgrind cachegrind%s%s", *v->version ? " " : "",
		 v->version);
}

int
ty_vgcount_init(struct ty_vgcount *v, const char *name, struct ty_error *e)
{
	int rc;

	memset(v, 0, sizeof(*v));
	v->version_fd = v->version_pid = -1;
	rc = ty_spawn_resolve(name, v->valgrind, sizeof(v->valgrind), e);
	if (rc == -ENOENT)
		return ty_error_set(
		    e, rc,
		    "valgrind is not installed (or not in PATH): --instructions counts "
		    "under Valgrind's cachegrind; install it: apt-get install valgrind "
		    "(Debian, Ubuntu), dnf install valgrind (Fedora)");
	if (rc < 0)
		return rc;
	snprintf(v->source, sizeof(v->source), "valgrind cachegrind");
	version_start(v); /* read after the first run (version_finish) */
	v->desc.name = "instructions";
	v->desc.unit = "";
	v->desc.supported = 1;
	v->desc.running_share = 1;
	v->desc.lower_is_better = 1;
	v->desc.exact = 1;
	v->desc.source = v->source;
	return 0;
}

int
ty_vgcount_open(struct ty_vgcount *v, const char *tmpdir, struct ty_error *e)
{
	size_t k = 0;

	if ((size_t)snprintf(v->dir, sizeof(v->dir), "%s/tachy-vg.XXXXXX",
			     tmpdir && *tmpdir ? tmpdir : "/tmp") >= sizeof(v->dir) - 64) {
		v->dir[0] = 0;
		return ty_error_set(e, -ENAMETOOLONG, "the temporary directory's name is too long");
	}
	if (!mkdtemp(v->dir)) { /* mode 0700 */
		int err = errno;
		ty_error_set(e, -err,
			     "cannot make a directory %s for Valgrind's files: %s (set TMPDIR "
			     "to a writable directory)",
			     v->dir, strerror(err));
		v->dir[0] = 0;
		return -err;
	}
	snprintf(v->outopt, sizeof(v->outopt), "--cachegrind-out-file=%s/cg.%%p", v->dir);
	v->wrap[k++] = v->valgrind;
	v->wrap[k++] = "-q";
	v->wrap[k++] = "--tool=cachegrind";
	v->wrap[k++] = "--cache-sim=no";
	v->wrap[k++] = "--trace-children=yes";
	v->wrap[k++] = v->outopt;
	v->wrap[k] = NULL;
	return 0;
}

/* Remove the files in DIR (the runs' own: cg.PID). */
static void
empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

void
ty_vgcount_release(struct ty_vgcount *v)
{
	version_finish(v);
	if (v->dir[0]) {
		empty_dir(v->dir);
		rmdir(v->dir);
		v->dir[0] = 0;
	}
}

/* One function's sum over a run's files. */
struct fsum {
	uint32_t sym;
	uint64_t count;
};

static int
add_prof(struct ty_runprof *prof, const struct ty_cachegrind *cg, struct fsum **sums, size_t *nsums,
	 size_t *cap, uint32_t **where, size_t *capw, struct ty_error *e)
{
	size_t i;

	for (i = 0; i < cg->nfuncs; i++) {
		uint32_t y =
		    ty_runprof_sym(prof, cg->funcs[i].name, ""); /* by name: see
									 profile-cachegrind.c */
		if (y == UINT32_MAX)
			return ty_error_set(e, -ENOMEM, "out of memory");
		if (y >= *capw) {
			size_t old = *capw;
			if (ty_array_grow(where, sizeof(**where), (size_t)y + 1, capw) < 0)
				return ty_error_set(e, -ENOMEM, "out of memory");
			memset(*where + old, 0xff, (*capw - old) * sizeof(**where));
		}
		if ((*where)[y] == UINT32_MAX) {
			if (ty_array_grow(sums, sizeof(**sums), *nsums + 1, cap) < 0)
				return ty_error_set(e, -ENOMEM, "out of memory");
			(*where)[y] = (uint32_t)*nsums;
			(*sums)[*nsums].sym = y;
			(*sums)[(*nsums)++].count = 0;
		}
		(*sums)[(*where)[y]].count += cg->funcs[i].count;
	}
	return 0;
}

int
ty_vgcount_collect_dir(const char *dir, uint64_t *total, size_t *nfiles, struct ty_runprof *prof,
		       size_t cmd, struct ty_error *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct fsum *sums = NULL;
	uint32_t *where = NULL;
	size_t nsums = 0, cap = 0, capw = 0, i;
	int rc = 0;

	*total = 0;
	*nfiles = 0;
	if (!d)
		return ty_error_set(e, -errno, "cannot read %s: %s", dir, strerror(errno));
	while (rc == 0 && (de = readdir(d))) {
		struct ty_cachegrind cg;
		char path[4400];

		if (strncmp(de->d_name, "cg.", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		memset(&cg, 0, sizeof(cg));
		rc = ty_cachegrind_read(path, &cg, e);
		if (rc == 0 && *total > UINT64_MAX - cg.total)
			rc = ty_error_set(e, -EOVERFLOW, "%s: counts too large", path);
		if (rc == 0) {
			*total += cg.total;
			(*nfiles)++;
			if (prof)
				rc = add_prof(prof, &cg, &sums, &nsums, &cap, &where, &capw, e);
		}
		ty_cachegrind_release(&cg);
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	if (rc == 0 && !*nfiles)
		rc = ty_error_set(
		    e, -ENOENT,
		    "Valgrind wrote no output file (did it start? see its messages with "
		    "--show-output)");
	if (rc == 0 && prof) {
		struct ty_runprof_ent *ents = calloc(nsums ? nsums : 1, sizeof(*ents));
		if (!ents)
			rc = ty_error_set(e, -ENOMEM, "out of memory");
		for (i = 0; ents && i < nsums; i++) {
			ents[i].sym = sums[i].sym;
			ents[i].self = ents[i].total = sums[i].count;
		}
		if (ents &&
		    (rc = ty_runprof_add_run(prof, cmd, *total, (double)*total, ents, nsums)) < 0)
			ty_error_set(e, rc, "out of memory");
		free(ents);
	}
	free(sums);
	free(where);
	return rc;
}

static int
vg_attach(void *ctx, pid_t pid, struct ty_error *e)
{
	struct ty_vgcount *v = ctx;

	(void)pid;
	(void)e;
	empty_dir(v->dir); /* nothing of an earlier run is this run's */
	return 0;
}

static int
vg_collect(void *ctx, pid_t pid, double *values, struct ty_error *e)
{
	struct ty_vgcount *v = ctx;
	int rc;

	(void)pid;
	version_finish(v); /* after the reap: nothing timed waits for it */
	rc = ty_vgcount_collect_dir(v->dir, &v->last, &v->last_procs, v->prof,
				    v->runner ? v->runner->job : 0, e);
	if (rc < 0)
		return rc;
	values[0] = (double)v->last;
	v->runs++;
	return 0;
}

static void
vg_detach(void *ctx, pid_t pid)
{
	struct ty_vgcount *v = ctx;

	(void)pid;
	empty_dir(v->dir);
}

void
ty_vgcount_probe_get(struct ty_vgcount *v, struct ty_probe *probe)
{
	memset(probe, 0, sizeof(*probe));
	probe->name = "instructions";
	probe->ctx = v;
	probe->nvalues = 1;
	probe->values = &v->desc;
	probe->attach = vg_attach;
	probe->collect = vg_collect;
	probe->detach = vg_detach;
	probe->wrap = v->wrap;
}
