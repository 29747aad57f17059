/* t-results.c - the result model: summaries, warnings, comparisons, and the
 * exact CSV and markdown forms; the JSON's keys (python checks the rest in
 * tests/cli). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "tachy/results-export.h"
#include "tachy/results.h"

static void
add_runs(struct ty_result *r, const double *ms, size_t n)
{
	struct ty_results_run s;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.start_ns = (int64_t)i * 100000000;
		s.wall_ns = (int64_t)(ms[i] * 1e6 + 0.5);
		s.usage.user_ns = 1000000;
		s.usage.system_ns = 2000000;
		s.usage.maxrss_kb = 1024;
		s.usage.minflt = 10;
		ty_result_add(r, &s, NULL, 0, NULL);
	}
}

/* Runs of MS milliseconds each using CPU_MS of CPU time (user + system). */
static void
add_runs_cpu(struct ty_result *r, const double *ms, const double *cpu_ms, size_t n)
{
	struct ty_results_run s;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.start_ns = (int64_t)i * 100000000;
		s.wall_ns = (int64_t)(ms[i] * 1e6 + 0.5);
		s.usage.user_ns = (int64_t)(cpu_ms[i] * 1e6 / 2);
		s.usage.system_ns = (int64_t)(cpu_ms[i] * 1e6 / 2);
		s.usage.maxrss_kb = 1024;
		ty_result_add(r, &s, NULL, 0, NULL);
	}
}

static void
make(struct ty_results *rs, size_t n, const char **names)
{
	struct ty_error e;
	size_t i;

	ty_results_init(rs, n, &e);
	for (i = 0; i < n; i++) {
		rs->r[i].command = strdup(names[i]);
		rs->r[i].name = strdup(names[i]);
	}
}

static char *
render(const struct ty_results *rs, int kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (kind == 0)
		ty_results_write_csv(rs, fp);
	else if (kind == 1)
		ty_results_write_markdown(rs, fp, "ms");
	else
		ty_results_write_json(rs, fp, NULL, NULL);
	fclose(fp);
	return buf;
}

static int
has_warning(const struct ty_result *r, const char *part)
{
	size_t i;

	for (i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i], part))
			return 1;
	return 0;
}

static void
test_summary_and_compare(void)
{
	static const double a[] = {10, 10.2, 9.8, 10.1, 9.9, 10, 10.05, 9.95};
	static const double b[] = {20, 20.4, 19.6, 20.2, 19.8, 20, 20.1, 19.9};
	const char *names[] = {"a", "b, \"quoted\" | piped"};
	const struct ty_comparison *c;
	struct ty_results rs;
	struct ty_error e;
	char *s;

	make(&rs, 2, names);
	add_runs(&rs.r[0], a, 8);
	add_runs(&rs.r[1], b, 8);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_NEAR(rs.r[0].sum[TY_FIG_WALL].mean, 0.010, 1e-12);
	CHECK_NEAR(rs.r[0].sum[TY_FIG_WALL].median, 0.010, 1e-12);
	CHECK_NEAR(rs.r[0].sum[TY_FIG_WALL].min, 0.0098, 1e-12);
	CHECK_NEAR(rs.r[1].sum[TY_FIG_USER].mean, 0.001, 1e-12);
	CHECK_NEAR(rs.r[1].sum[TY_FIG_MAXRSS].mean, 1024, 0);
	CHECK(rs.r[0].ci_half[TY_FIG_WALL] > 0 && rs.r[0].ci_half[TY_FIG_WALL] < 0.0002);
	c = ty_results_comparison(&rs, 1, TY_FIG_WALL);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->verdict, TY_VERDICT_SLOWER);
		CHECK_NEAR(c->c.ratio, 2.0, 1e-9);
		CHECK_NEAR(c->c.rel, 100.0, 1e-6);
		CHECK(c->c.p_value < 1e-3); /* the exact Mann-Whitney p of 8 against 8 */
		CHECK(c->c.ratio_lo < 2.0 && c->c.ratio_hi > 2.0);
	}
	/* user time is the same in both: no difference proven (or not comparable) */
	c = ty_results_comparison(&rs, 1, TY_FIG_USER);
	CHECK(c == NULL || c->verdict == TY_VERDICT_SAME);
	CHECK(ty_results_comparison(&rs, 0, TY_FIG_WALL) == NULL);

	s = render(&rs, 0);
	CHECK_STR(
	    s,
	    "command,mean,stddev,median,user,system,min,max\n"
	    "a,0.01,0.000122474487,0.01,0.001,0.002,0.0098,0.0102\n"
	    "\"b, \"\"quoted\"\" | piped\",0.02,0.000244948974,0.02,0.001,0.002,0.0196,0.0204\n");
	free(s);
	s = render(&rs, 1);
	CHECK_STR(s, "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |\n"
		     "|:---|---:|---:|---:|---:|\n"
		     "| a | 10.0 ± 0.1 | 9.8 | 10.2 | 1.00 |\n"
		     "| b, \"quoted\" \\| piped | 20.0 ± 0.2 | 19.6 | 20.4 | 2.00 ± 0.03 |\n");
	free(s);
	s = render(&rs, 2);
	CHECK(strstr(s, "\"results\": [") != NULL);
	CHECK(strstr(s, "\"memory_usage_byte\": [") != NULL);
	CHECK(strstr(s, "\"verdict\": \"slower\"") != NULL);
	CHECK(strstr(s, "\"schema\": 1") != NULL);
	CHECK(strstr(s, "\"parameters\"") == NULL);
	free(s);
	ty_results_release(&rs);
}

static void
test_mann_whitney_and_same(void)
{
	static const double a[] = {10, 11, 12, 13, 14, 15, 16};
	static const double b[] = {10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5};
	const char *names[] = {"a", "b"};
	const struct ty_comparison *c;
	struct ty_results rs;
	struct ty_error e;

	make(&rs, 2, names);
	rs.test = TY_TEST_MANN_WHITNEY;
	add_runs(&rs.r[0], a, 7);
	add_runs(&rs.r[1], b, 7);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	c = ty_results_comparison(&rs, 1, TY_FIG_WALL);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->c.test, TY_TEST_MANN_WHITNEY);
		CHECK_INT(c->verdict, TY_VERDICT_SAME);
		CHECK(c->c.p_value > 0.05);
	}
	ty_results_release(&rs);
}

static void
test_warnings(void)
{
	double x[40];
	const char *names[] = {"outliers", "drift", "cold", "one"};
	struct ty_results rs;
	struct ty_error e;
	struct ty_results_run s;
	size_t i;

	make(&rs, 4, names);
	for (i = 0; i < 40; i++)
		x[i] = 10 + 0.01 * (double)(i % 5);
	x[17] = 30;
	x[29] = 25;
	add_runs(&rs.r[0], x, 40);
	for (i = 0; i < 40; i++)
		x[i] = 10 + 0.1 * (double)i + 0.01 * (double)(i % 3);
	add_runs(&rs.r[1], x, 40);
	for (i = 0; i < 20; i++)
		x[i] = 10 + 0.01 * (double)(i % 4);
	x[0] = 40;
	add_runs(&rs.r[2], x, 20);
	memset(&s, 0, sizeof(s));
	s.wall_ns = 1000;
	s.exit_code = 2;
	ty_result_add(&rs.r[3], &s, NULL, 0, NULL);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK(has_warning(&rs.r[0], "2 outliers among 40 runs"));
	CHECK(!has_warning(&rs.r[0], "drift"));
	CHECK(!has_warning(&rs.r[0], "first run"));
	CHECK(has_warning(&rs.r[1], "drift: the times rose"));
	CHECK(!has_warning(&rs.r[1], "outlier"));
	CHECK(has_warning(&rs.r[2], "the first run took"));
	CHECK(has_warning(&rs.r[3], "1 of 1 runs failed"));
	/* one run: a summary, no comparison */
	CHECK_INT(rs.r[3].sum[TY_FIG_WALL].n, 1);
	CHECK(ty_results_comparison(&rs, 3, TY_FIG_WALL) == NULL);
	ty_results_release(&rs);
}

/* Runs orders of magnitude apart: the warning names the likely cause. */
static void
test_orders(void)
{
	const double build[] = {500, 2, 2.1, 2, 2.2, 2}, up_to_date[] = {2, 500, 510, 505, 500};
	const double mixed[] = {500, 2, 505, 2.1, 500, 2};
	const char *names[] = {"once", "none", "first-fast", "mixed", "table"};
	struct ty_results rs;
	struct ty_error e;
	size_t order[2] = {1, 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	make(&rs, 5, names);
	add_runs(&rs.r[0], build, 6);
	rs.r[0].hooks_once = 1; /* --setup 'make clean': the first run builds */
	add_runs(&rs.r[1], build, 6);
	add_runs(&rs.r[2], up_to_date, 5);
	rs.r[2].hooks_each = 1;
	add_runs_cpu(&rs.r[3], mixed, mixed, 6); /* the slow runs worked */
	rs.r[3].hooks_once = 1;
	add_runs(&rs.r[4], build + 1, 5);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK(has_warning(&rs.r[0], "the first run took 244x the median: it did work the later "
				    "runs did not, and --setup/--cleanup run once"));
	CHECK(!has_warning(&rs.r[0], "outlier"));
	CHECK(!has_warning(&rs.r[0], "caches were cold"));
	CHECK(has_warning(&rs.r[1], "the first run took 244x the median: it did work the later "
				    "runs found done"));
	CHECK(has_warning(&rs.r[2], "the first run took 1/250 of the median: it found its work "
				    "done"));
	CHECK(has_warning(&rs.r[3],
			  "the runs differ by orders of magnitude (the slowest took "
			  "252x the fastest): some did work the others did not (--setup"));
	CHECK_INT(rs.r[4].nwarnings, 0);

	/* /bin/true on a loaded machine: the slow runs waited (their CPU time
	 * is the fast ones'), and the load is named, not --prepare */
	{
		const double w[] = {1, 1.1, 30, 1, 1.2, 25}, c[] = {0.5, 0.5, 0.6, 0.5, 0.5, 0.5};
		struct ty_results rs2;
		const char *one[] = {"true"};
		make(&rs2, 1, one);
		rs2.load1 = 11.5;
		rs2.load_cpus = 2;
		add_runs_cpu(&rs2.r[0], w, c, 6);
		CHECK_INT(ty_results_analyze(&rs2, &e), 0);
		CHECK(has_warning(&rs2.r[0],
				  "in wall time but not in CPU time: the slow ones waited "
				  "for a CPU, the machine was busy (load average 11.50 on "
				  "2 CPUs at the start)"));
		CHECK(!has_warning(&rs2.r[0], "--prepare"));
		ty_results_release(&rs2);
	}

	/* the AsciiDoc and Org tables, rows in a given order */
	fp = open_memstream(&buf, &len);
	ty_results_write_table(&rs, fp, TY_TABLE_ORGMODE, "ms", NULL);
	fclose(fp);
	CHECK(strstr(buf, "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |\n"
			  "|---------+-----------+----------+----------+----------|\n"
			  "| once | 85.0 ± 203.3 | 2.0 | 500.0 | ") == buf);
	free(buf);
	rs.n = 2;
	buf = NULL;
	fp = open_memstream(&buf, &len);
	ty_results_write_table(&rs, fp, TY_TABLE_ASCIIDOC, "ms", order);
	fclose(fp);
	CHECK(strstr(buf,
		     "[cols=\"<,>,>,>,>\",options=\"header\"]\n|===\n"
		     "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative\n| none | ") == buf);
	CHECK(strstr(buf, "\n| once | ") != NULL);
	CHECK(len > 5 && strcmp(buf + len - 5, "|===\n") == 0);
	free(buf);
	rs.n = 5;
	ty_results_release(&rs);
}

static void
test_params_csv(void)
{
	static const double a[] = {1, 2};
	const char *names[] = {"sleep 1", "sleep 2"};
	struct ty_results rs;
	struct ty_error e;
	char *s;
	size_t i;

	make(&rs, 2, names);
	for (i = 0; i < 2; i++) {
		rs.r[i].params = calloc(1, sizeof(struct ty_param));
		rs.r[i].params[0].name = strdup("t");
		rs.r[i].params[0].value = strdup(i ? "2" : "1");
		rs.r[i].nparams = 1;
		add_runs(&rs.r[i], a, 2);
	}
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	s = render(&rs, 0);
	CHECK(strncmp(s, "command,mean,stddev,median,user,system,min,max,parameter_t\n", 59) == 0);
	CHECK(strstr(s, ",0.001,0.002,0.001,0.002,2\n") != NULL);
	free(s);
	s = render(&rs, 2);
	CHECK(strstr(s, "\"parameters\": {\n        \"t\": \"1\"") != NULL);
	free(s);
	ty_results_release(&rs);
}

static void
test_export_file(void)
{
	const char *names[] = {"a"};
	static const double a[] = {1, 2, 3};
	struct ty_results rs;
	struct ty_error e;
	char path[] = "/tmp/t-results-XXXXXX";
	int fd = mkstemp(path);

	close(fd);
	make(&rs, 1, names);
	add_runs(&rs.r[0], a, 3);
	ty_results_analyze(&rs, &e);
	CHECK_INT(ty_results_export(&rs, TY_EXPORT_CSV, path, NULL, NULL, NULL, &e), 0);
	CHECK(ty_results_export(&rs, TY_EXPORT_JSON, "/nonexistent-dir/x.json", NULL, NULL, NULL,
				&e) < 0);
	CHECK(strstr(e.msg, "/nonexistent-dir/x.json") != NULL);
	unlink(path);
	ty_results_release(&rs);
}

/* A warm-up is found, said, and left out of the figures (issue 16); a
 * level shift is said as one; interleaved rounds are paired. */
static void
test_warmup_shift_pairs(void)
{
	double w[30], a[30], b[30];
	const char *names[] = {"a", "b"};
	const struct ty_comparison *c;
	struct ty_results rs;
	struct ty_error e;
	size_t i;
	char *s;

	for (i = 0; i < 30; i++)
		w[i] = (i < 3 ? 20 : 10) * (1 + 0.002 * ((double)((i * 7) % 5) - 2));
	make(&rs, 1, names);
	add_runs(&rs.r[0], w, 30);
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_INT(rs.r[0].series.warmup, 3);
	CHECK_INT(rs.r[0].left_out, 3);
	CHECK_INT(rs.r[0].sum[TY_FIG_WALL].n, 27);
	CHECK_NEAR(rs.r[0].sum[TY_FIG_WALL].mean, 0.010, 0.0001);
	CHECK(has_warning(&rs.r[0], "warm-up: the first 3 runs were 2.0x slower than the rest: "
				    "left out of the figures; --warmup 3 would skip them"));
	CHECK(!has_warning(&rs.r[0], "the first run took"));
	s = render(&rs, 2);
	CHECK(s && strstr(s, "\"warmup_runs\": 3") && strstr(s, "\"left_out\": 3"));
	/* times holds the runs the figures come from; the warm-up is apart */
	CHECK(s && !strstr(s, "0.01992") && strstr(s, "\"left_out_runs\"") &&
	      strstr(s, "\"wall_ns\": 19920000"));
	free(s);
	rs.keep_warmup = 1;
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_INT(rs.r[0].left_out, 0);
	CHECK_INT(rs.r[0].sum[TY_FIG_WALL].n, 30);
	CHECK(has_warning(&rs.r[0], "kept (--keep-warmup)"));
	ty_results_release(&rs);

	/* a level shift at run 21 of 40 */
	for (i = 0; i < 40; i++)
		w[i % 30] = 0;
	make(&rs, 1, names);
	for (i = 0; i < 40; i++) {
		double x = (i < 20 ? 10 : 12) * (1 + 0.002 * ((double)((i * 7) % 5) - 2));
		add_runs(&rs.r[0], &x, 1);
	}
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_INT(rs.r[0].series.shift_at, 20);
	CHECK(
	    has_warning(&rs.r[0], "level shift: from run 21 on the times were 1.20x those before"));
	CHECK(!has_warning(&rs.r[0], "drift:"));
	ty_results_release(&rs);

	/* interleaved rounds with a 20% drift: paired, b's 3% found */
	make(&rs, 2, names);
	for (i = 0; i < 20; i++) {
		a[i] = 10 * (1 + 0.2 * (double)i / 19) * (1 + 0.003 * ((double)((i * 7) % 5) - 2));
		b[i] = a[i] * 1.03;
	}
	add_runs(&rs.r[0], a, 20);
	add_runs(&rs.r[1], b, 20);
	for (i = 0; i < 20; i++)
		rs.r[0].runs[i].round = rs.r[1].runs[i].round = (uint32_t)i;
	rs.interleaved = 1;
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	c = ty_results_comparison(&rs, 1, TY_FIG_WALL);
	CHECK(c && c->pairs == 20 && c->verdict == TY_VERDICT_SLOWER);
	CHECK(c && fabs(c->c.ratio - 1.03) < 1e-3);
	rs.no_pairing = 1;
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	c = ty_results_comparison(&rs, 1, TY_FIG_WALL);
	CHECK(c && c->pairs == 0 && c->verdict == TY_VERDICT_SAME);
	ty_results_release(&rs);
}

int
main(void)
{
	test_warmup_shift_pairs();
	test_summary_and_compare();
	test_mann_whitney_and_same();
	test_warnings();
	test_orders();
	test_params_csv();
	test_export_file();
	return check_done();
}
