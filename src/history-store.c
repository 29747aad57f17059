/* history-store.c - the history's store as tachy history and tachy run
 * --history reach it (history-store.h): where it is, opening it, adding
 * results with their commit and machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "history-store.h"
#include "tachy/cachedir.h"
#include "tachy/history.h"
#include "tachy/jsonw.h"
#include "tachy/sysinfo.h"
#include "term.h"

int
history_store_db(const char *db, int write, char *buf, size_t size)
{
	const char *env = getenv("TACHY_DB"), *from = "TACHY_DB";
	struct ty_error e = {0};

	if (db && db[0]) {
		if (strlen(db) >= size)
			return cli_usage_error("--db: name too long");
		strcpy(buf, db);
		return 0; /* named here: a team's shared directory is the user's choice */
	}
	if (env && env[0]) {
		if (strlen(env) >= size)
			return cli_usage_error("TACHY_DB: name too long");
		strcpy(buf, env);
	} else if (ty_history_default_db(buf, size) < 0) {
		return cli_usage_error("no history database: give --db DB or set TACHY_DB "
				       "(HOME and XDG_DATA_HOME are unset)");
	} else {
		from = "the default history";
	}
	/* a path the environment gave (sudo keeps HOME, XDG_DATA_HOME, TACHY_DB):
	 * written only where no other user controls a directory of it */
	if (write && !ty_history_is_server(buf) && ty_cachedir_check_file(buf, &e) < 0)
		return cli_error(EXIT_USAGE,
				 "%s '%s' is not written: %s; give --db PATH, or set TACHY_DB to a "
				 "database of your own",
				 from, term_safe(buf), term_safe(e.msg));
	return 0;
}

int
history_store_status(int rc)
{
	return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

int
history_store_open(const char *db, int create, struct ty_history **h)
{
	struct ty_error e = {0};
	char path[4096];
	int st, rc;

	if ((st = history_store_db(db, create, path, sizeof(path))))
		return st;
	if ((rc = ty_history_open(h, path, create, &e)) < 0)
		return cli_error(history_store_status(rc), "%s", e.msg);
	return 0;
}

/* The facts of this machine (as tachy env reads them, under
 * $TACHY_SYSROOT) as a JSON object, for files that carry none (hyperfine's);
 * NULL when every file has its own, or they cannot be read. */
static char *
this_machine(const struct ty_results_saved *files, size_t n, struct ty_sysinfo *si)
{
	const char *root = getenv("TACHY_SYSROOT");
	struct ty_error e = {0};
	struct ty_jsonw w;
	char *buf = NULL;
	size_t i, len = 0;
	FILE *fp;

	for (i = 0; i < n && files[i].nenv; i++)
		;
	if (i == n || ty_sysinfo_collect_quick(root && root[0] ? root : NULL, si, &e) < 0)
		return NULL;
	if (!(fp = open_memstream(&buf, &len)))
		return NULL;
	ty_jsonw_init(&w, fp, 0);
	ty_sysinfo_write_json(&w, si);
	if (fclose(fp) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
history_store_add(const char *db, const char *commit, const char *branch, const char *machine,
		  const char *tags, const struct ty_results_saved *files, size_t n, int quiet)
{
	struct ty_history_meta m = {.commit_time = -1, .commit_order = -1};
	struct ty_history_git g;
	struct ty_sysinfo si;
	char *envj = NULL, rev12[16];
	struct ty_history *h;
	struct ty_error e = {0};
	size_t added;
	int rc, st;

	if (ty_history_git_describe(NULL, commit, &g) == 0) {
		m.commit = g.rev;
		m.commit_time = g.time;
		m.commit_order = g.order;
		m.branch = g.has_branch ? g.branch : NULL;
	} else if (commit) {
		m.commit = commit; /* not a commit git knows here: kept as given */
	} else {
		return cli_usage_error("not in a git work tree: give --commit REV");
	}
	if (branch)
		m.branch = branch;
	m.machine = machine;
	m.tags = tags;
	if (!machine && (envj = this_machine(files, n, &si)))
		m.env_json = envj, m.env_machine = si.hostname;
	if ((st = history_store_open(db, 1, &h))) {
		free(envj);
		return st;
	}
	rc = ty_history_add(h, &m, files, n, &added, &e);
	free(envj);
	snprintf(rev12, sizeof(rev12), "%.12s", m.commit); /* may cut a UTF-8 sequence: shown */
	if (rc == 0 && !quiet)
		fprintf(stderr, "tachy %s: %zu result%s stored in '%s' at %s\n", cli_cmd, added,
			added == 1 ? "" : "s", term_safe(ty_history_name(h)), term_safe(rev12));
	ty_history_close(h);
	if (rc < 0)
		return cli_error(history_store_status(rc), "%s", e.msg);
	return EXIT_OK;
}

static int
point_of(struct ty_history_commit *c, struct ty_history_point *p)
{
	double *tmp = malloc((c->nvalues + 1) * sizeof(double));
	int rc;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, c->values, c->nvalues * sizeof(double));
	rc = ty_history_point_of(tmp, c->nvalues, 95, p);
	free(tmp);
	return rc;
}

struct ty_history_point *
history_store_points(struct ty_history_series *s)
{
	struct ty_history_point *p = calloc(s->n + 1, sizeof(*p));
	size_t i;

	for (i = 0; p && i < s->n; i++)
		if (point_of(&s->commits[i], &p[i]) < 0) {
			free(p);
			return NULL;
		}
	return p;
}
