/* report-input.c - the files tachy report reads (report-input.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report-input.h"
#include "tachy/profile-cachegrind.h"
#include "tachy/profile-file.h"
#include "tachy/profile-perfdata-load.h"
#include "tachy/profile-perfdata.h"
#include "tachy/symbols.h"
#include "term.h"

/* The first bytes of PATH (not "-": a stream is a tachy profile) into
 * BUF; how many. */
static ssize_t
peek(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (strcmp(path, "-") == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return 0;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

int
report_is_perfdata(const char *path)
{
	char buf[8];
	ssize_t n = peek(path, buf, sizeof(buf));

	return n > 0 && ty_perfdata_sniff(buf, (size_t)n);
}

/* A cachegrind output file (cachegrind.out.PID) as a profile: one sample
 * per function, its instructions (or first event) as its weight. */
static int
load_cachegrind(const char *path, struct ty_profile **p)
{
	struct ty_cachegrind cg;
	struct ty_error e = {0};
	int r;

	memset(&cg, 0, sizeof(cg));
	if ((r = ty_cachegrind_read(path, &cg, &e)) < 0) {
		ty_cachegrind_release(&cg);
		return cli_error(r == -EINVAL || r == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s",
				 e.msg);
	}
	*p = ty_cachegrind_profile(&cg);
	ty_cachegrind_release(&cg);
	if (!*p)
		return cli_error(EXIT_RUNTIME, "out of memory");
	return 0;
}

static void
on_warn(const char *msg, void *arg)
{
	(void)arg;
	cli_warn("%s", term_safe(msg));
}

/* What the reading skipped or could not do, said once each. */
static void
perfdata_notes(const struct ty_perfdata *pd, const struct ty_perfdata_load_stats *st,
	       const char *path)
{
	size_t i;

	for (i = 0; i < pd->nwarnings; i++)
		cli_warn("%s: %s", term_safe(path), term_safe(pd->warnings[i]));
	if (pd->compressed)
		cli_warn("%s holds compressed records (perf record -z): they are skipped; record "
			 "without -z, or decompress with perf inject -i %s -o OUT",
			 term_safe(path), term_safe(path));
	if (pd->bad_records)
		cli_warn("%s: %" PRIu64 " records shorter than their fields were skipped",
			 term_safe(path), pd->bad_records);
	if (pd->foreign_samples)
		cli_warn("%s: %" PRIu64 " samples of no event the file lists were skipped",
			 term_safe(path), pd->foreign_samples);
	if (st->unwound)
		fprintf(stderr,
			"tachy report: %s: %.1f%% of %" PRIu64 " user stacks unwound to their "
			"outermost frame, %.1f%% cut by the end of the stack copy\n",
			term_safe(path), 100.0 * (double)st->complete / (double)st->unwound,
			st->unwound, 100.0 * (double)st->truncated / (double)st->unwound);
}

/* perf.data: the event's samples resolved as tachy record resolves its
 * own, from the recorded builds: the files on this machine where they are
 * those builds, else perf's build-id cache (~/.debug, where perf record
 * keeps a copy of each file it sampled), else debuginfod (DEBUGINFOD_URLS). */
static int
load_perfdata(const char *path, const char *event, struct ty_profile **p)
{
	struct ty_perfdata pd;
	struct ty_perfdata_load_opts o = {0};
	struct ty_perfdata_load_stats st;
	struct ty_symbols *syms;
	struct ty_error e = {0};
	const char *home = getenv("HOME"), *urls = getenv("DEBUGINFOD_URLS");
	char bdir[4096] = "";
	size_t i;
	int r;

	o.event = event;
	o.warn = on_warn;
	/* perf's buildid.dir: $HOME/.debug (perf does not read
	 * PERF_BUILDID_DIR: it sets it for the scripts it runs) */
	if (home && *home == '/' &&
	    (size_t)snprintf(bdir, sizeof(bdir), "%s/.debug", home) < sizeof(bdir))
		o.buildid_dir = bdir;
	o.debuginfod = urls && *urls;
	memset(&pd, 0, sizeof(pd));
	if ((r = ty_perfdata_open(path, &pd, &e)) < 0)
		return cli_error(r == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", term_safe(e.msg));
	if (!(syms = ty_symbols_new())) {
		ty_perfdata_release(&pd);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	cli_symbols_cache(syms);
	if (getenv("TACHY_DEBUG_ROOT") && *getenv("TACHY_DEBUG_ROOT"))
		ty_symbols_set_debug_root(syms, getenv("TACHY_DEBUG_ROOT"));
	r = ty_perfdata_load(&pd, &o, syms, p, &st, &e);
	if (r == 0 || r == -EINVAL)
		perfdata_notes(&pd, &st, path);
	if (r == 0 && (st.from_cache || st.from_debuginfod))
		fprintf(stderr,
			"tachy report: %s: %" PRIu64
			" files named from perf's build-id cache (%s), "
			"%" PRIu64 " from debuginfod\n",
			term_safe(path), st.from_cache, bdir[0] ? term_safe(bdir) : "none",
			st.from_debuginfod);
	for (i = 0; r == 0 && i < ty_symbols_nwarnings(syms); i++)
		cli_warn("%s", term_safe(ty_symbols_warning(syms, i)));
	ty_symbols_free(syms);
	ty_perfdata_release(&pd);
	if (r < 0)
		return cli_error(r == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s: %s",
				 term_safe(path), term_safe(e.msg));
	return 0;
}

int
report_load(const char *path, const char *event, struct ty_profile **p)
{
	struct ty_error e = {0};
	char buf[16];
	ssize_t n = peek(path, buf, sizeof(buf));
	int r;

	if (n > 0 && ty_perfdata_sniff(buf, (size_t)n))
		return load_perfdata(path, event, p);
	if (event)
		return cli_error(EXIT_USAGE,
				 "-e %s: %s is not a perf.data file (-e chooses one of a "
				 "perf.data's events)",
				 term_safe(event), term_safe(path));
	if (n > 0 && ty_cachegrind_sniff(buf, (size_t)n))
		return load_cachegrind(path, p);
	r = ty_profile_read(path, p, &e);
	if (r == -EINVAL)
		return cli_error(EXIT_USAGE, "%s", e.msg);
	if (r == -ENOENT) /* the first report, before any recording */
		return cli_error(EXIT_USAGE,
				 "%s: make a profile with tachy record -- COMMAND (it writes "
				 "tachy.prof), or name one: tachy report FILE",
				 e.msg);
	if (r < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}
