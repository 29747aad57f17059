/* t-comparison.c - pairing saved benchmarks and the rows they give. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tachy/comparison.h"

#ifdef HAVE_JANSSON

static const char old_doc[] =
    "{\"results\": ["
    "{\"command\": \"./v1/prog a\", \"times\": [1.0, 1.1, 1.0, 1.05, 0.95, 1.0]},"
    "{\"command\": \"./v1/prog b\", \"times\": [2.0, 2.1, 2.0, 2.05, 1.95, 2.0]},"
    "{\"command\": \"dup\", \"times\": [1, 1.01, 0.99, 1, 1.02, 0.98]},"
    "{\"command\": \"dup\", \"times\": [5, 5.01, 4.99, 5, 5.02, 4.98]}]}";
static const char new_doc[] =
    "{\"results\": ["
    "{\"command\": \"./v2/prog b\", \"times\": [2.0, 2.1, 2.0, 2.05, 1.95, 2.0]},"
    "{\"command\": \"./v2/prog a\", \"times\": [2.0, 2.2, 2.0, 2.1, 1.9, 2.0]},"
    "{\"command\": \"dup\", \"times\": [1, 1.01, 0.99, 1, 1.02, 0.98]},"
    "{\"command\": \"dup\", \"times\": [5, 5.01, 4.99, 5, 5.02, 4.98]},"
    "{\"command\": \"extra\", \"times\": [1, 2]}]}";

static const struct ty_cmp_row *
row_of(const struct ty_cmp_table *c, const char *old, const char *new)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].old->name, old) == 0 &&
		    strcmp(c->rows[i].new->name, new) == 0)
			return &c->rows[i];
	return NULL;
}

static void
test_pairing(void)
{
	struct ty_results_saved f[2];
	struct ty_cmp_options o = {.test = TY_TEST_WELCH, .confidence = 95};
	struct ty_cmp_table c;
	struct ty_error e = {0};
	const struct ty_cmp_row *r;
	char *pairs[] = {"./v1/prog b=./v2/prog b"};

	CHECK_INT(ty_results_read_text(&f[0], old_doc, "old.json", &e), 0);
	CHECK_INT(ty_results_read_text(&f[1], new_doc, "new.json", &e), 0);

	/* By name only: the duplicates pair in order; prog a/b stay apart. */
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), 0);
	CHECK_INT(c.nrows, 2);
	CHECK(c.rows[0].old == &f[0].benches[2] && c.rows[0].new == &f[1].benches[2]);
	CHECK(c.rows[1].old == &f[0].benches[3] && c.rows[1].new == &f[1].benches[3]);
	CHECK_INT(c.sets[0].nunmatched, 5);
	CHECK_INT(c.ngeo, 1);
	CHECK_NEAR(c.geo[0].rel, 0, 1e-9);
	ty_comparison_release(&c);

	/* A key regex: the first group ("a", "b") pairs across versions. */
	o.match.key_re = "prog (.)$";
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), 0);
	CHECK_INT(c.nrows, 4);
	r = row_of(&c, "./v1/prog a", "./v2/prog a");
	CHECK(r && r->v.verdict == 1 && r->is_time);
	CHECK(r && r->v.c.rel > 90 && r->v.c.rel < 110);
	r = row_of(&c, "./v1/prog b", "./v2/prog b");
	CHECK(r && r->v.verdict == 0);
	CHECK_INT(c.sets[0].nunmatched, 1);
	CHECK_STR(c.sets[0].unmatched[0], "only in new.json: 'extra'");
	ty_comparison_release(&c);

	/* An explicit pair first, then names. */
	o.match.key_re = NULL;
	o.match.pairs = pairs;
	o.match.npairs = 1;
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), 0);
	CHECK_INT(c.nrows, 3);
	CHECK(row_of(&c, "./v1/prog b", "./v2/prog b") != NULL);
	ty_comparison_release(&c);

	/* Errors. */
	o.match.npairs = 0;
	o.match.key_re = "(";
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), -EINVAL);
	o.match.key_re = NULL;
	o.figures = "wall,cycles";
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), -EINVAL);
	CHECK_STR(e.msg, "--figures: no benchmark pair has the figure 'cycles' on both sides");
	o.figures = NULL;

	/* One file: against its reference (the first). */
	CHECK_INT(ty_comparison_build(&c, f, 1, &o, &e), 0);
	CHECK_INT(c.nrows, 3);
	CHECK(c.rows[0].old == &f[0].benches[0] && c.rows[0].new == &f[0].benches[1]);
	CHECK_INT(c.rows[0].v.verdict, 1);
	ty_comparison_release(&c);
	o.reference = "nope";
	CHECK_INT(ty_comparison_build(&c, f, 1, &o, &e), -EINVAL);
	CHECK_STR(e.msg, "--reference 'nope': no such benchmark in 'old.json'");
	ty_results_saved_release(&f[0]);
	ty_results_saved_release(&f[1]);
}

static void
test_environment(void)
{
#define RES                                                                                        \
	"{\"results\": [{\"command\": \"x\", \"times\": [1, 2], \"tachy\": {\"name\": \"x\", "     \
	"\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}, "                          \
	"{\"wall_ns\": 2, \"user_ns\": 0, \"system_ns\": 0}]}}],"
	static const char a[] =
	    RES " \"tachy\": {\"schema\": 1, \"environment\": {\"kernel\": \"6.1\","
		" \"governor\": null, \"date\": \"today\", \"cores\": 2}}}";
	static const char b[] =
	    RES " \"tachy\": {\"schema\": 1, \"environment\": {\"kernel\": \"6.2\","
		" \"governor\": null, \"date\": \"tomorrow\", \"smt\": true}}}";
	struct ty_results_saved f[2];
	struct ty_cmp_options o = {.test = TY_TEST_MANN_WHITNEY, .confidence = 95};
	struct ty_cmp_table c;
	struct ty_error e = {0};

	CHECK_INT(ty_results_read_text(&f[0], a, "a.json", &e), 0);
	CHECK_INT(ty_results_read_text(&f[1], b, "b.json", &e), 0);
	if (ty_comparison_build(&c, f, 2, &o, &e) != 0) {
		CHECK_STR(e.msg, "");
		return;
	}
	CHECK_INT(c.sets[0].nenv_diffs, 3);
	CHECK_STR(c.sets[0].env_diffs[0], "kernel: '6.1' in a.json, '6.2' in b.json");
	CHECK_STR(c.sets[0].env_diffs[1], "cores: '2' in a.json, '(absent)' in b.json");
	CHECK_STR(c.sets[0].env_diffs[2], "smt: '(absent)' in a.json, 'true' in b.json");
	/* Two runs a side: Mann-Whitney can prove nothing, and says so. */
	CHECK_INT(c.nrows, 3); /* wall, user, system */
	CHECK_INT(c.rows[0].v.too_few, 1);
	CHECK(c.nnotes >= 1 && strstr(c.notes[0], "smallest p-value") != NULL);
	ty_comparison_release(&c);
	ty_results_saved_release(&f[0]);
	ty_results_saved_release(&f[1]);
}

/* A tachy export of one benchmark: wall 10 ms, user U ms + i/10 ms, system
 * 1 ms + i us in run i. */
static void
cpu_doc(char *buf, size_t size, double u)
{
	size_t len = 0;
	int i;

	len += (size_t)snprintf(
	    buf + len, size - len,
	    "{\"results\": [{\"command\": \"b\", \"times\": [0.01, 0.01, 0.01, "
	    "0.01, 0.01, 0.01, 0.01, 0.01], \"tachy\": {\"name\": \"b\", \"runs\": [");
	for (i = 0; i < 8; i++) {
		len += (size_t)snprintf(
		    buf + len, size - len,
		    "%s{\"wall_ns\": 10000000, \"user_ns\": %.0f, \"system_ns\": %d}",
		    i ? ", " : "", (u + i / 10.0) * 1e6, 1000000 + 1000 * i);
	}
	snprintf(buf + len, size - len, "], \"left_out\": 0}}], \"tachy\": {\"schema\": 1}}");
}

/* -F cpu: user + system of each run, only where named. */
static void
test_cpu_figure(void)
{
	struct ty_cmp_options o = {
	    .test = TY_TEST_MANN_WHITNEY, .confidence = 95, .figures = "cpu"};
	struct ty_results_saved f[2];
	struct ty_cmp_table c;
	struct ty_error e = {0};
	char a[2048], b[2048];

	cpu_doc(a, sizeof(a), 2);
	cpu_doc(b, sizeof(b), 4);
	CHECK_INT(ty_results_read_text(&f[0], a, "a.json", &e), 0);
	CHECK_INT(ty_results_read_text(&f[1], b, "b.json", &e), 0);
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), 0);
	CHECK_INT(c.nrows, 1);
	CHECK_STR(c.rows[0].figure, "cpu");
	CHECK_STR(c.rows[0].unit, "s");
	CHECK_INT(c.rows[0].v.old.n, 8);
	CHECK_INT(c.rows[0].v.new.n, 8);
	/* the medians of 3.0..3.707 ms and of 5.0..5.707 ms, run by run */
	CHECK_NEAR(c.rows[0].v.old.centre, 3.3535e-3, 1e-9);
	CHECK_NEAR(c.rows[0].v.new.centre, 5.3535e-3, 1e-9);
	CHECK_INT(c.rows[0].v.verdict, TY_VERDICT_SLOWER);
	CHECK_INT(c.nnotes, 0);
	ty_comparison_release(&c);
	o.figures = "all"; /* not among all: named only */
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), 0);
	for (size_t i = 0; i < c.nrows; i++)
		CHECK(strcmp(c.rows[i].figure, "cpu") != 0);
	ty_comparison_release(&c);
	ty_results_saved_release(&f[1]);
	CHECK_INT(ty_results_read_text(&f[1],
				       "{\"results\": [{\"command\": \"b\", \"times\": [0.01, "
				       "0.01, 0.01], \"user\": 0.001, \"system\": 0.001}]}",
				       "hf.json", &e),
		  0);
	o.figures = "wall,cpu"; /* hyperfine's files: no per-run user time */
	CHECK_INT(ty_comparison_build(&c, f, 2, &o, &e), -EINVAL);
	CHECK_STR(e.msg, "--figures: no benchmark pair has the figure 'cpu' on both sides");
	ty_results_saved_release(&f[0]);
	ty_results_saved_release(&f[1]);
}

int
main(void)
{
	test_pairing();
	test_environment();
	test_cpu_figure();
	return check_done();
}

#else

int
main(void)
{
	return check_done();
}

#endif
