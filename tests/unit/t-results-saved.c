/* t-results-saved.c - saved results made from this run's results
 * (ty_results_saved_from) are those that reading its JSON export gives,
 * field for field and bit for bit: warm-ups left out, counters (one not
 * supported, one value missing), rounds, a peak RSS not measurable, names
 * shared, an interrupted run with its reference not run, the environment's
 * kinds of values. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "tachy/jsonw.h"
#include "tachy/results-read.h"
#include "tachy/results-saved.h"
#include "tachy/results.h"

static void
strv_equal(char **a, size_t na, char **b, size_t nb, const char *what)
{
	size_t i;

	CHECK_INT(na, nb);
	for (i = 0; i < na && i < nb; i++)
		if (!check_report(strcmp(a[i], b[i]) == 0, __FILE__, __LINE__, what))
			printf("     got \"%s\", expected \"%s\"\n", a[i], b[i]);
}

static void
figure_equal(const struct ty_results_saved_figure *a, const struct ty_results_saved_figure *b)
{
	size_t i;

	CHECK_STR(a->name, b->name);
	CHECK_STR(a->unit, b->unit);
	CHECK_INT(a->n, b->n);
	CHECK_INT(a->missing, b->missing);
	CHECK_INT(a->user_only, b->user_only);
	for (i = 0; i < a->n && i < b->n; i++) {
		if (!check_report(a->values[i] == b->values[i], __FILE__, __LINE__, a->name))
			printf("     value %zu: got %.17g, expected %.17g\n", i, a->values[i],
			       b->values[i]);
		CHECK_INT(a->run[i], b->run[i]);
	}
}

static void
bench_equal(const struct ty_results_saved_bench *a, const struct ty_results_saved_bench *b)
{
	size_t i;

	CHECK_STR(a->command, b->command);
	CHECK_STR(a->name, b->name);
	CHECK_STR(a->label, b->label);
	CHECK_INT(a->dup, b->dup);
	CHECK_INT(a->nruns, b->nruns);
	CHECK_INT(a->left_out, b->left_out);
	CHECK_STR(a->maxrss_why, b->maxrss_why);
	CHECK_INT(a->nfigs, b->nfigs);
	for (i = 0; i < a->nfigs && i < b->nfigs; i++)
		figure_equal(&a->figs[i], &b->figs[i]);
	CHECK_INT(!a->rounds, !b->rounds);
	for (i = 0; a->rounds && b->rounds && i < a->nruns; i++)
		CHECK_INT(a->rounds[i], b->rounds[i]);
	strv_equal(a->warnings, a->nwarnings, b->warnings, b->nwarnings, "warning");
}

/* FROM (made from the results) against READ (their export read back). */
static void
saved_equal(const struct ty_results_saved *from, const struct ty_results_saved *read)
{
	size_t i;

	CHECK_STR(from->path, read->path);
	CHECK_INT(from->schema, read->schema);
	CHECK_INT(from->nbenches, read->nbenches);
	for (i = 0; i < from->nbenches && i < read->nbenches; i++)
		bench_equal(&from->benches[i], &read->benches[i]);
	CHECK_INT(from->reference, read->reference);
	CHECK(from->confidence == read->confidence);
	CHECK_STR(from->test, read->test);
	CHECK_STR(from->order, read->order);
	strv_equal(from->env_keys, from->nenv, read->env_keys, read->nenv, "environment key");
	strv_equal(from->env_values, from->nenv, read->env_values, read->nenv, "environment value");
	CHECK_INT(from->interrupted, read->interrupted);
	CHECK_STR(from->reference_norun, read->reference_norun);
	strv_equal(from->notes, from->nnotes, read->notes, read->nnotes, "note");
}

static void
add_run(struct ty_results *rs, struct ty_result *r, int64_t wall_ns, uint32_t round,
	const double *values)
{
	struct ty_results_run s = {0};
	struct ty_error e;

	s.start_ns = (int64_t)r->nruns * 1000;
	s.wall_ns = wall_ns;
	s.usage.user_ns = wall_ns / 3 + 7;
	s.usage.system_ns = wall_ns / 7 + 1;
	s.usage.maxrss_kb = 2048 + (long)r->nruns;
	s.usage.minflt = 100 + (long)r->nruns;
	s.usage.majflt = 0;
	s.usage.nvcsw = 3;
	s.usage.nivcsw = (long)r->nruns % 5;
	s.round = round;
	CHECK_INT(ty_result_add(r, &s, values, rs->nvalues, &e), 0);
}

static void
env_kinds(struct ty_jsonw *w, void *ctx)
{
	(void)ctx;
	ty_jsonw_kstring(w, "hostname", "box \"one\"\t\xc3\xa9");
	ty_jsonw_kint(w, "cores", -4);
	ty_jsonw_kuint(w, "big", 18000000000ULL);
	ty_jsonw_kbool(w, "smt", 1);
	ty_jsonw_kbool(w, "boost", 0);
	ty_jsonw_kstring(w, "governor", NULL);
	ty_jsonw_key(w, "aslr");
	ty_jsonw_null(w);
	ty_jsonw_kdouble(w, "whole", 3);
	ty_jsonw_kdouble(w, "ratio", 0.1);
	ty_jsonw_kdouble(w, "nan", NAN);
}

static void
env_nested(struct ty_jsonw *w, void *ctx)
{
	(void)ctx;
	ty_jsonw_kstring(w, "kernel", "6.1");
	ty_jsonw_key(w, "cpus");
	ty_jsonw_array_begin(w);
	ty_jsonw_int(w, 1);
	ty_jsonw_array_end(w);
}

/* Both ways from RS: through the JSON text, and directly. */
static void
both_ways(const struct ty_results *rs, ty_results_env_fn env)
{
	struct ty_results_saved read, from;
	struct ty_error e = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	CHECK_INT(ty_results_write_json(rs, fp, env, NULL), 0);
	fclose(fp);
	CHECK_INT(ty_results_read_text(&read, buf, "this run", &e), 0);
	CHECK_INT(ty_results_saved_from(&from, rs, env, NULL, "this run", &e), 0);
	saved_equal(&from, &read);
	CHECK(from.profile == NULL);
	ty_results_saved_release(&from);
	ty_results_saved_release(&read);
	free(buf);
}

static const struct ty_value_desc counters[] = {
    {"task-clock", "ns", 1, 0, 1.0, 1, 0, 0, NULL},
    {"cycles", "", 0, 0, 0.0, 1, 0, 0, NULL}, /* not supported: no figure */
    {"instructions:u", "", 1, 1, 0.5, 1, 1, 0, NULL},
};

static void
test_full(void)
{
	static const char *names[] = {"sort", "sort", "uniq"};
	struct ty_results rs;
	struct ty_error e;
	struct ty_value_desc *v = malloc(sizeof(counters));
	size_t i, k;

	CHECK_INT(ty_results_init(&rs, 3, &e), 0);
	memcpy(v, counters, sizeof(counters));
	rs.values = v;
	rs.nvalues = 3;
	rs.order = "interleaved";
	rs.interleaved = 1;
	rs.confidence = 99;
	rs.test = TY_TEST_WELCH;
	rs.reference = 2;
	for (i = 0; i < 3; i++) {
		rs.r[i].command = strdup(names[i]);
		rs.r[i].name = strdup(i == 2 ? "uniq -c" : names[i]);
	}
	for (k = 0; k < 30; k++)
		for (i = 0; i < 3; i++) {
			/* a warm-up: the first three runs of sort #1 far slower */
			int64_t ns =
			    (int64_t)(1000000 * (i + 1)) + (int64_t)((k * 7919 + i) % 50) * 1001;
			double val[3] = {(double)ns * 0.97, 5.0,
					 k == 4 ? NAN : 1234.5 + (double)k / 3};
			if (i == 0 && k < 3)
				ns *= 40;
			add_run(&rs, &rs.r[i], ns, (uint32_t)k, val);
		}
	/* the second command's peak RSS at the spawner's floor: not measurable */
	for (k = 0; k < rs.r[1].nruns; k++)
		rs.r[1].runs[k].usage.maxrss_floor_kb = 1 << 20;
	ty_result_warn(&rs.r[2], "a warning with \"quotes\" and a\nline break");
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK(rs.r[0].left_out > 0); /* what the case is about */
	CHECK_INT(rs.r[1].maxrss_measurable, 0);
	both_ways(&rs, NULL);
	both_ways(&rs, env_kinds);
	ty_results_release(&rs);
}

static void
test_interrupted(void)
{
	static const char *names[] = {"a", "b", "c"};
	struct ty_results rs;
	struct ty_results_saved from;
	struct ty_error e = {0};
	size_t k;

	CHECK_INT(ty_results_init(&rs, 3, &e), 0);
	for (k = 0; k < 3; k++) {
		rs.r[k].command = strdup(names[k]);
		rs.r[k].name = strdup(names[k]);
	}
	rs.interrupted = 1;
	rs.reference = 1; /* interrupted before its first run */
	for (k = 0; k < 12; k++) {
		add_run(&rs, &rs.r[0], 2000000 + (int64_t)k * 1000, (uint32_t)k, NULL);
		add_run(&rs, &rs.r[2], 3000000 + (int64_t)k * 3000, (uint32_t)k, NULL);
	}
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	both_ways(&rs, env_kinds);
	CHECK_INT(ty_results_saved_from(&from, &rs, env_nested, NULL, "this run", &e), -EINVAL);
	CHECK_STR(e.msg, "this run: an environment fact is an object or an array");
	CHECK_INT(from.nbenches, 0);
	ty_results_release(&rs);
	/* no command with a run */
	CHECK_INT(ty_results_init(&rs, 1, &e), 0);
	rs.r[0].command = strdup("x");
	rs.r[0].name = strdup("x");
	rs.interrupted = 1;
	CHECK_INT(ty_results_analyze(&rs, &e), 0);
	CHECK_INT(ty_results_saved_from(&from, &rs, NULL, NULL, "this run", &e), -EINVAL);
	CHECK_STR(e.msg, "this run: no benchmark has a finished run");
	ty_results_release(&rs);
}

#ifdef HAVE_JANSSON
int
main(void)
{
	test_full();
	test_interrupted();
	return check_done();
}
#else
int
main(void)
{
	printf("# not built with jansson: the export cannot be read back to compare\n");
	return check_done();
}
#endif
