/* t-history.c - change points (history-detect.c), the SQLite store
 * (history.c), its migration from schema 1, and the results of a commit
 * read back with their per-run profiles (history-saved.c). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/history.h"
#include "tachy/results-saved.h"
#include "tachy/runprof-json.h"
#include "tachy/runprof.h"

#ifdef HAVE_SQLITE3
#include <sqlite3.h>
#endif

static uint64_t rng = 42;

static double
uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* N commits of 10 runs with 1% noise; the level is multiplied by 1 + STEP
 * from commit AT on; OUTLIER_AT gets one run 5 times slower. */
static void
series(struct ty_history_point *p, size_t n, size_t at, double step, size_t outlier_at)
{
	double runs[10];
	size_t i, r;

	for (i = 0; i < n; i++) {
		double level = i >= at ? 1 + step : 1;
		for (r = 0; r < 10; r++)
			runs[r] = level * (1 + 0.01 * normal());
		if (i == outlier_at)
			runs[3] *= 5;
		ty_history_point_of(runs, 10, 95, &p[i]);
	}
}

static size_t
detect(const struct ty_history_point *p, size_t n, struct ty_history_change **ch)
{
	struct ty_error e = {0};
	size_t nch = 0;

	CHECK_INT(ty_history_detect(p, n, NULL, ch, &nch, &e), 0);
	return nch;
}

static void
test_detect(void)
{
	struct ty_history_point p[300];
	struct ty_history_change *ch;
	size_t n, trial, found = 0, false_cp = 0;

	/* a 5% step at 120 of 300 */
	series(p, 300, 120, 0.05, (size_t)-1);
	n = detect(p, 300, &ch);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(ch[0].index, 120);
		CHECK_NEAR(ch[0].change_pct, 5, 0.5);
		CHECK(ch[0].ci_low < ch[0].change_pct && ch[0].change_pct < ch[0].ci_high);
		CHECK(ch[0].ci_low > 0);
		CHECK(ch[0].p < 0.001);
		CHECK_INT(ch[0].n_before, 120);
		CHECK_INT(ch[0].n_after, 180);
		CHECK(!ch[0].single);
	}
	free(ch);

	/* flat noise, with an outlier run and a single odd commit: nothing */
	for (trial = 0; trial < 20; trial++) {
		series(p, 300, 1000, 0, 77);
		p[150].centre *= 1.08; /* one commit alone, 8% off */
		n = detect(p, 300, &ch);
		false_cp += n;
		free(ch);
	}
	CHECK_INT(false_cp, 0);

	/* 20 steps of -5% at random places: found within one commit */
	for (trial = 0; trial < 20; trial++) {
		size_t at = 30 + (size_t)(uniform() * 240), k;
		series(p, 300, at, -0.05, at + 7);
		n = detect(p, 300, &ch);
		for (k = 0; k < n; k++)
			found += ch[k].index + 1 >= at && ch[k].index <= at + 1;
		CHECK_INT(n, 1);
		free(ch);
	}
	CHECK_INT(found, 20);

	/* the newest commit alone, 10% slower */
	series(p, 100, 99, 0.10, (size_t)-1);
	n = detect(p, 100, &ch);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(ch[0].index, 99);
		CHECK(ch[0].single);
		CHECK_NEAR(ch[0].change_pct, 10, 1.5);
		CHECK(ch[0].ci_low > 0);
	}
	free(ch);

	/* too short, and bad input */
	n = detect(p, 1, &ch);
	CHECK_INT(n, 0);
	{
		struct ty_error e = {0};
		size_t nch;
		p[3].centre = NAN;
		CHECK_INT(ty_history_detect(p, 10, NULL, &ch, &nch, &e), -EINVAL);
		CHECK(strstr(e.msg, "commit 4") != NULL);
	}
}

static void
test_parse(void)
{
	double *v;

	CHECK_INT(ty_history_parse_values("1 2.5 -3e-3", &v), 3);
	CHECK_NEAR(v[1], 2.5, 0);
	CHECK_NEAR(v[2], -3e-3, 0);
	free(v);
	CHECK_INT(ty_history_parse_values("", &v), 0);
	free(v);
	CHECK_INT(ty_history_parse_values("1 x", &v), -EINVAL);
	CHECK_INT(ty_history_parse_values("1 nan", &v), -EINVAL);
	CHECK_INT(ty_history_parse_values("1e999", &v), -EINVAL);
	CHECK_INT(ty_history_parse_values("1,2", &v), -EINVAL);
	CHECK_INT(ty_history_parse_values("inf", &v), -EINVAL);
}

#ifdef HAVE_SQLITE3
static void
test_store(void)
{
	char dir[] = "/tmp/t-history-XXXXXX", db[256], bad[256];
	struct ty_history *h;
	struct ty_error e = {0};
	struct ty_history_series *s;
	size_t n, added;
	double vals[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
	struct ty_results_saved_figure figs[2] = {
	    {.name = "wall", .unit = "s", .values = vals[0], .n = 4},
	    {.name = "task-clock", .unit = "ns", .values = vals[1], .n = 4}};
	struct ty_results_saved_bench bench = {
	    .command = "cmd", .name = "b1", .figs = figs, .nfigs = 2, .label = "b1"};
	struct ty_results_saved file = {.path = "x.json", .benches = &bench, .nbenches = 1};
	struct ty_history_meta m = {.commit = "abc123",
				    .branch = "main",
				    .commit_time = 1700000000,
				    .commit_order = 5,
				    .machine = "m1"};
	FILE *fp;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(db, sizeof(db), "%s/sub/h.db", dir);
	/* no history yet: reading fails, names the database */
	CHECK_INT(ty_history_open(&h, db, 0, &e), -ENOENT);
	CHECK(strstr(e.msg, db) != NULL);
	CHECK_INT(ty_history_open(&h, db, 1, &e), 0);
	CHECK_INT(ty_history_add(h, &m, &file, 1, &added, &e), 0);
	CHECK_INT(added, 1);
	m.commit = "def456";
	m.commit_order = 6;
	vals[0][0] = 10;
	CHECK_INT(ty_history_add(h, &m, &file, 1, &added, &e), 0);
	ty_history_close(h);

	CHECK_INT(ty_history_open(&h, db, 0, &e), 0);
	CHECK_INT(ty_history_load(h, NULL, NULL, NULL, &s, &n, &e), 0);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_STR(s[0].benchmark, "b1");
		CHECK_STR(s[0].machine, "m1");
		CHECK_INT(s[0].n, 2);
		CHECK_STR(s[0].commits[0].rev, "abc123");
		CHECK_STR(s[0].commits[0].branch, "main");
		CHECK_INT(s[0].commits[0].order, 5);
		CHECK_INT(s[0].commits[0].time, 1700000000);
		CHECK_INT(s[0].commits[1].nvalues, 4);
		CHECK_NEAR(s[0].commits[1].values[0], 10, 0);
		CHECK_NEAR(s[0].commits[0].values[3], 4, 0);
	}
	ty_history_series_free(s, n);
	CHECK_INT(ty_history_load(h, "b1", NULL, "task-clock", &s, &n, &e), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(s[0].unit, "ns");
	ty_history_series_free(s, n);
	{
		char **f;
		CHECK_INT(ty_history_figures(h, NULL, &f, &e), 0);
		CHECK_STR(f[0], "task-clock");
		CHECK_STR(f[1], "wall");
		CHECK(f[2] == NULL);
		free(f[0]);
		free(f[1]);
		free(f);
	}
	/* a file without a run: nothing written */
	figs[0].n = 0;
	CHECK_INT(ty_history_add(h, &m, &file, 1, &added, &e), -EINVAL);
	CHECK(strstr(e.msg, "no run") != NULL);
	ty_history_close(h);

	/* a corrupt file */
	snprintf(bad, sizeof(bad), "%s/bad.db", dir);
	fp = fopen(bad, "w");
	fputs("this is not a database, not at all, and it goes on for a while\n", fp);
	for (n = 0; n < 100; n++)
		fputs("garbage garbage garbage garbage\n", fp);
	fclose(fp);
	CHECK_INT(ty_history_open(&h, bad, 1, &e), -EINVAL);
	CHECK(strstr(e.msg, bad) != NULL);
	unlink(bad);
	unlink(db);
	snprintf(bad, sizeof(bad), "%s/sub", dir);
	rmdir(bad);
	rmdir(dir);
}

/* The text of the first column of SQL's first row in the file DB (malloc'd). */
static char *
sql_text(const char *db, const char *sql)
{
	sqlite3 *q = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (sqlite3_open_v2(db, &q, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(q, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(q);
	return out;
}

static int
copy_file(const char *from, const char *to)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	int rc = in && out ? 0 : -1;

	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		rc = -1;
	return rc;
}

/* Every value of every wall series, in order, added up with weights that
 * depend on the place (so a value moved or lost shows), and counted. */
static double
fingerprint(struct ty_history *h, size_t *count)
{
	struct ty_history_series *s;
	struct ty_error e = {0};
	size_t n, i, k, j;
	double f = 0;

	*count = 0;
	CHECK_INT(ty_history_load(h, NULL, NULL, NULL, &s, &n, &e), 0);
	for (i = 0; i < n; i++)
		for (k = 0; k < s[i].n; k++)
			for (j = 0; j < s[i].commits[k].nvalues; j++, (*count)++)
				f += s[i].commits[k].values[j] * (double)(*count + 1);
	ty_history_series_free(s, n);
	return f;
}

/* A history written by a tachy of schema 1 (tests/data/history/v1.db:
 * tests/data/results/old.json at c1, new.json at c2, on box): a reader
 * reads it as it is and leaves it so; a writer migrates it to schema 2
 * with every value kept, then keeps profiles in it. */
static void
test_migrate(void)
{
	const char *top = getenv("TOP");
	char dir[] = "/tmp/t-history-XXXXXX", src[1024], db[256], *v, *before = NULL;
	struct ty_history *h;
	struct ty_error e = {0};
	struct ty_results_saved at;
	size_t count, count2, added, i;
	double f1, f2;

	snprintf(src, sizeof(src), "%s/tests/data/history/v1.db", top ? top : ".");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(db, sizeof(db), "%s/h.db", dir);
	CHECK_INT(copy_file(src, db), 0);
	v = sql_text(db, "SELECT value FROM tachy_meta WHERE key = 'schema_version'");
	CHECK_STR(v, "1");
	free(v);
	before = sql_text(db, "SELECT group_concat(vals, '|') FROM (SELECT vals FROM samples "
			      "ORDER BY result_id, figure)");
	CHECK(before != NULL && strlen(before) > 100);

	/* read as it is: the series, and a commit as saved results */
	CHECK_INT(ty_history_open(&h, db, 0, &e), 0);
	f1 = fingerprint(h, &count);
	CHECK_INT(count, 6 * 12);
	CHECK_INT(ty_history_saved_at(h, "c1", "box", NULL, 0, &at, &e), 0);
	CHECK_INT(at.nbenches, 3);
	CHECK_STR(at.benches[1].name, "sleep");
	CHECK_INT(at.benches[1].nruns, 12);
	CHECK_INT(at.benches[1].left_out, -1); /* schema 1 did not keep it */
	CHECK(at.profile == NULL);
	ty_results_saved_release(&at);
	/* a reader cannot add */
	CHECK_INT(ty_history_add(h, &(struct ty_history_meta){.commit = "c3"}, &at, 0, &added, &e),
		  -EINVAL);
	ty_history_close(h);
	v = sql_text(db, "SELECT value FROM tachy_meta WHERE key = 'schema_version'");
	CHECK_STR(v, "1");
	free(v);

	/* a writer migrates: version 2, every value where it was */
	CHECK_INT(ty_history_open(&h, db, 1, &e), 0);
	f2 = fingerprint(h, &count2);
	CHECK_INT(count2, count);
	CHECK_NEAR(f2, f1, 0);
	v = sql_text(db, "SELECT value FROM tachy_meta WHERE key = 'schema_version'");
	CHECK_STR(v, "2");
	free(v);
	v = sql_text(db, "SELECT group_concat(vals, '|') FROM (SELECT vals FROM samples "
			 "ORDER BY result_id, figure)");
	CHECK_STR(v, before);
	free(v);
	v = sql_text(db, "SELECT count(*) || ' ' || count(left_out) FROM results");
	CHECK_STR(v, "6 0");
	free(v);
	v = sql_text(db, "SELECT tags FROM results WHERE id = 1");
	CHECK_STR(v, "fixture");
	free(v);

	/* then a result with a profile (4 runs, the first left out as a
	 * warm-up), and one without, of the same benchmark at c3 */
	{
		double vals[4] = {0.5, 0.011, 0.012, 0.013};
		struct ty_results_saved_figure fig = {
		    .name = "wall", .unit = "s", .values = vals, .n = 4};
		struct ty_results_saved_bench b = {.command = "sleep 0.01",
						   .name = "sleep",
						   .label = "sleep",
						   .figs = &fig,
						   .nfigs = 1,
						   .nruns = 4,
						   .left_out = 1};
		struct ty_results_saved f = {.path = "p.json", .benches = &b, .nbenches = 1};
		struct ty_history_meta m = {
		    .commit = "c3", .machine = "box", .commit_time = -1, .commit_order = -1};
		struct ty_runprof *p = calloc(1, sizeof(*p));
		struct ty_runprof_ent en[2];
		CHECK_INT(ty_runprof_init(p, 1), 0);
		p->hz = 499;
		en[0].sym = ty_runprof_sym(p, "unused", "x"); /* not in a run: not kept */
		for (i = 0; i < 4; i++) {
			en[0].sym = ty_runprof_sym(p, "f", "/bin/sleep");
			en[0].self = en[0].total = (uint32_t)(10 + i);
			en[1].sym = ty_runprof_sym(p, "g\"\n", "/lib/libc.so.6");
			en[1].self = 1;
			en[1].total = (uint32_t)(10 + i);
			CHECK_INT(ty_runprof_add_run(p, 0, 11 + i, 22.0 + (double)i, en, 2), 0);
		}
		f.profile = p;
		CHECK_INT(ty_history_add(h, &m, &f, 1, &added, &e), 0);
		f.profile = NULL;
		b.left_out = -1;
		CHECK_INT(ty_history_add(h, &m, &f, 1, &added, &e), 0);
		ty_runprof_json_free(p);
	}
	v = sql_text(db, "SELECT count(*) || ' ' || count(left_out) FROM results");
	CHECK_STR(v, "8 1");
	free(v);
	ty_history_close(h);

	CHECK_INT(ty_history_open(&h, db, 0, &e), 0);
	memset(&at, 0, sizeof(at));
#ifdef HAVE_JANSSON
	CHECK_INT(ty_history_saved_at(h, "c3", "box", NULL, 0, &at, &e), 0);
	CHECK_INT(at.nbenches, 1);
	CHECK_INT(at.nnotes, 1); /* the result without a profile left out */
	if (at.nnotes)
		CHECK(strstr(at.notes[0], "1 result without per-run profiles left out") != NULL);
	CHECK_INT(at.benches[0].nruns, 3);
	CHECK_INT(at.benches[0].left_out, 0);
	CHECK_NEAR(at.benches[0].figs[0].values[0], 0.011, 0);
	CHECK(at.profile != NULL);
	if (at.profile) {
		const struct ty_runprof *p = at.profile;
		CHECK_INT(p->hz, 499);
		CHECK_INT(p->nsyms, 2);
		CHECK_STR(p->syms[0].name, "f");
		CHECK_STR(p->syms[1].name, "g\"\n");
		CHECK_STR(p->syms[1].dso, "/lib/libc.so.6");
		CHECK_INT(p->cmds[0].nruns, 3);
		CHECK_INT(p->cmds[0].runs[0].samples, 12); /* the second run's */
		CHECK_NEAR(p->cmds[0].runs[2].ms, 25.0, 0);
		CHECK_INT(p->ents[p->cmds[0].runs[2].first].self, 13);
	}
	ty_results_saved_release(&at);
	/* a name that starts one commit; one that starts two; none */
	{
		char *full, **mach;
		CHECK_INT(ty_history_commit_find(h, "c", &full, &mach, &e), -EINVAL);
		CHECK(strstr(e.msg, "more than one commit") != NULL);
		CHECK_INT(ty_history_commit_find(h, "x", &full, &mach, &e), -ENOENT);
		CHECK_INT(ty_history_commit_find(h, "c3", &full, &mach, &e), 0);
		CHECK_STR(full, "c3");
		CHECK_STR(mach[0], "box");
		CHECK(mach[1] == NULL);
		free(full);
		free(mach[0]);
		free(mach);
	}
	/* a stored profile that is not what tachy writes: an error naming it */
	ty_history_close(h);
	{
		sqlite3 *q;
		CHECK_INT(sqlite3_open(db, &q), SQLITE_OK);
		CHECK_INT(
		    sqlite3_exec(q, "UPDATE profiles SET data = '{\"hz\": 0}'", NULL, NULL, NULL),
		    SQLITE_OK);
		sqlite3_close(q);
	}
	CHECK_INT(ty_history_open(&h, db, 0, &e), 0);
	CHECK_INT(ty_history_saved_at(h, "c3", "box", NULL, 0, &at, &e), -EINVAL);
	CHECK(strstr(e.msg, "the profile of 'sleep' at c3") != NULL);
	CHECK(strstr(e.msg, "tachy.profile.hz") != NULL);
#endif
	ty_history_close(h);
	free(before);
	{
		static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
		char path[300];
		for (i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "%s%s", db, sfx[i]);
			unlink(path);
		}
	}
	rmdir(dir);
}
#endif

static void
test_default_db(void)
{
	char buf[256];

	setenv("XDG_DATA_HOME", "/x/data", 1);
	CHECK_INT(ty_history_default_db(buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/x/data/tachy/history.db");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	CHECK_INT(ty_history_default_db(buf, sizeof(buf)), 0);
	CHECK_STR(buf, "/home/u/.local/share/tachy/history.db");
}

/* What a flat series could have shown: runs of 1% noise, 10 a commit, make
 * a median known to about 0.4%; a step a few times that is found 80% of
 * the time, and a step that size is found when planted. Too short a series
 * can tell nothing. */
static void
test_min_step(void)
{
	struct ty_history_point p[30];
	struct ty_history_change *ch = NULL;
	double step;

	series(p, 30, 30, 0, 99);
	CHECK(p[0].run_var > 0.2e-4 && p[0].run_var < 4e-4); /* (1%)^2, from 10 runs */
	step = ty_history_min_step(p, 30, NULL, 0.8);
	CHECK(step > 0.5 && step < 3);
	CHECK(isnan(ty_history_min_step(p, 3, NULL, 0.8)));
	series(p, 30, 15, 1.2 * step / 100, 99);
	CHECK(detect(p, 30, &ch) >= 1 && ch[0].index >= 14 && ch[0].index <= 16);
	free(ch);
}

int
main(void)
{
	test_detect();
	test_min_step();
	test_parse();
#ifdef HAVE_SQLITE3
	test_store();
	test_migrate();
#endif
	test_default_db();
	return check_done();
}
