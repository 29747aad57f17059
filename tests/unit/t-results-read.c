/* t-results-read.c - reading tachy's and hyperfine's exports, and refusing
 * bad ones with the file and the place named. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tachy/results-read.h"

#ifdef HAVE_JANSSON

static const char tachy_doc[] =
    "{\"results\": [{\"command\": \"sleep 0.01\", \"mean\": 0.0104, \"stddev\": null,\n"
    " \"times\": [0.0103, 0.0105],\n"
    " \"tachy\": {\"name\": \"nap\", \"warnings\": [\"1 outlier\"],\n"
    "   \"counters\": {\"task-clock\": {\"supported\": true, \"unit\": \"ns\"},\n"
    "                \"cycles\": {\"supported\": false}},\n"
    "   \"runs\": [\n"
    "    {\"wall_ns\": 10300000, \"user_ns\": 1000, \"system_ns\": 2000, \"maxrss_kb\": 1792,\n"
    "     \"counters\": {\"task-clock\": 500, \"page-faults\": 80, \"cycles\": null}},\n"
    "    {\"wall_ns\": 10500000, \"user_ns\": 3000, \"system_ns\": 4000, \"maxrss_kb\": 1800,\n"
    "     \"counters\": {\"task-clock\": 700, \"page-faults\": null}}]}}],\n"
    " \"tachy\": {\"schema\": 1, \"reference\": 0, \"confidence\": 99, \"test\": \"welch\",\n"
    "   \"environment\": {\"cpu_model\": \"X\", \"cores\": 2, \"smt\": false}}}\n";

static void
test_tachy(void)
{
	struct ty_results_saved r;
	struct ty_error e = {0};
	const struct ty_results_saved_figure *f;

	CHECK_INT(ty_results_read_text(&r, tachy_doc, "t.json", &e), 0);
	if (e.msg[0])
		printf("     %s\n", e.msg);
	CHECK_INT(r.schema, 1);
	CHECK_INT(r.nbenches, 1);
	CHECK_STR(r.benches[0].name, "nap");
	CHECK_STR(r.benches[0].command, "sleep 0.01");
	CHECK_NEAR(r.confidence, 99, 0);
	CHECK_STR(r.test, "welch");
	CHECK_STR(ty_results_saved_env_value(&r, "cpu_model"), "X");
	CHECK_STR(ty_results_saved_env_value(&r, "cores"), "2");
	CHECK_STR(ty_results_saved_env_value(&r, "smt"), "false");
	CHECK_INT(r.benches[0].nwarnings, 1);
	f = ty_results_saved_figure_named(&r.benches[0], "wall");
	CHECK(f && f->n == 2 && f->values[1] == 0.0105 && strcmp(f->unit, "s") == 0);
	f = ty_results_saved_figure_named(&r.benches[0], "user");
	CHECK(f && f->n == 2 && fabs(f->values[1] - 3e-6) < 1e-18);
	f = ty_results_saved_figure_named(&r.benches[0], "task-clock");
	CHECK(f && f->n == 2 && f->values[0] == 500 && strcmp(f->unit, "ns") == 0);
	f = ty_results_saved_figure_named(&r.benches[0], "page-faults");
	CHECK(f && f->n == 1 && f->missing == 1 && strcmp(f->unit, "") == 0);
	CHECK(ty_results_saved_figure_named(&r.benches[0], "cycles") == NULL); /* not supported */
	CHECK(ty_results_saved_figure_named(&r.benches[0], "minflt") == NULL); /* in no run */
	CHECK(ty_results_saved_figure_named(&r.benches[0], "maxrss") != NULL);
	ty_results_saved_release(&r);
	ty_results_saved_release(&r);
}

static void
test_hyperfine(void)
{
	static const char doc[] =
	    "{\"results\": [{\"command\": \"true\", \"mean\": 0.001, \"stddev\": 0.0001,"
	    " \"median\": 0.001, \"user\": 0.0005, \"system\": 0.0004, \"min\": 0.0009,"
	    " \"max\": 0.0011, \"times\": [0.0009, 0.001, 0.0011], \"exit_codes\": [0, 0, 0]}]}";
	struct ty_results_saved r;
	struct ty_error e = {0};

	CHECK_INT(ty_results_read_text(&r, doc, "h.json", &e), 0);
	CHECK_INT(r.schema, 0);
	CHECK_INT(r.benches[0].nfigs, 1);
	CHECK_STR(r.benches[0].name, "true");
	CHECK_INT(r.nenv, 0);
	ty_results_saved_release(&r);
}

/* A benchmark without runs (an interrupted run) is left out with a note;
 * the reference index follows the benchmarks that stay. */
static void
test_no_runs(void)
{
	static const char fmt[] =
	    "{\"results\": ["
	    "{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", \"runs\": "
	    "[{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}},"
	    "{\"command\": \"b\", \"times\": [], \"mean\": null, \"tachy\": {\"name\": \"bee\", "
	    "\"runs\": []}},"
	    "{\"command\": \"c\", \"times\": [2], \"tachy\": {\"name\": \"c\", \"runs\": "
	    "[{\"wall_ns\": 2, \"user_ns\": 0, \"system_ns\": 0}]}}],"
	    " \"tachy\": {\"schema\": 1, \"reference\": %d, \"interrupted\": %s}}";
	static const char hf[] = "{\"results\": [{\"command\": \"x\", \"times\": []},"
				 " {\"command\": \"y\", \"times\": [1, 2]}]}";
	static const char notrun[] =
	    "{\"results\": [{\"command\": \"nap\", \"times\": [1], \"tachy\": {\"name\": "
	    "\"nap\", \"command\": \"sleep 1\", \"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, "
	    "\"system_ns\": 0}]}}], \"tachy\": {\"schema\": 1, \"interrupted\": true, "
	    "\"not_run\": [{\"name\": \"ref\", \"command\": \"true\"}]}}";
	char doc[1024];
	struct ty_results_saved r;
	struct ty_error e = {0};

	snprintf(doc, sizeof(doc), fmt, 2, "true");
	CHECK_INT(ty_results_read_text(&r, doc, "i.json", &e), 0);
	CHECK_INT(r.nbenches, 2);
	CHECK_STR(r.benches[0].name, "a");
	CHECK_STR(r.benches[1].name, "c");
	CHECK_INT(r.reference, 1);
	CHECK(r.reference_norun == NULL);
	CHECK_INT(r.interrupted, 1);
	CHECK_INT(r.nnotes, 2);
	if (r.nnotes == 2) {
		CHECK_STR(r.notes[0], "the run was interrupted (tachy.interrupted): the file holds "
				      "only the runs finished before the stop");
		CHECK_STR(r.notes[1], "'bee' (results[1]) has no finished run: left out");
	}
	ty_results_saved_release(&r);

	snprintf(doc, sizeof(doc), fmt, 1, "false");
	CHECK_INT(ty_results_read_text(&r, doc, "i.json", &e), 0);
	CHECK_INT(r.interrupted, 0);
	CHECK_INT(r.nnotes, 1);
	CHECK_INT(r.reference, 0);
	CHECK(r.reference_norun && strcmp(r.reference_norun, "bee") == 0);
	ty_results_saved_release(&r);

	/* As run writes it since it leaves such commands out: tachy.not_run,
	 * without tachy.reference when the reference did not run. */
	CHECK_INT(ty_results_read_text(&r, notrun, "n.json", &e), 0);
	CHECK_INT(r.nbenches, 1);
	CHECK_STR(r.benches[0].name, "nap");
	CHECK_INT(r.nnotes, 2);
	if (r.nnotes == 2)
		CHECK_STR(r.notes[1], "'ref' (tachy.not_run) has no finished run: left out");
	CHECK(r.reference_norun && r.reference_norun[0] == '\0');
	ty_results_saved_release(&r);

	CHECK_INT(ty_results_read_text(&r, hf, "h.json", &e), 0);
	CHECK_INT(r.benches[0].dup, 0);
	CHECK_STR(r.benches[0].label, "y");
	CHECK_INT(r.nbenches, 1);
	CHECK_STR(r.benches[0].name, "y");
	CHECK_INT(r.nnotes, 1);
	if (r.nnotes)
		CHECK_STR(r.notes[0], "'x' (results[0]) has no finished run: left out");
	ty_results_saved_release(&r);
}

/* Benchmarks sharing a name are numbered, with a note. */
static void
test_duplicates(void)
{
	static const char doc[] = "{\"results\": [{\"command\": \"x\", \"times\": [1]},"
				  " {\"command\": \"y\", \"times\": [1]},"
				  " {\"command\": \"x\", \"times\": []},"
				  " {\"command\": \"x\", \"times\": [2]}]}";
	struct ty_results_saved r;
	struct ty_error e = {0};

	CHECK_INT(ty_results_read_text(&r, doc, "d.json", &e), 0);
	CHECK_INT(r.nbenches, 3);
	CHECK_INT(r.benches[0].dup, 1);
	CHECK_INT(r.benches[1].dup, 0);
	CHECK_INT(r.benches[2].dup, 2);
	CHECK_STR(r.benches[0].label, "x #1");
	CHECK_STR(r.benches[1].label, "y");
	CHECK_STR(r.benches[2].label, "x #2");
	CHECK_INT(r.nnotes, 2);
	if (r.nnotes == 2)
		CHECK_STR(r.notes[1], "2 benchmarks are named 'x' (results[0], results[3]): shown "
				      "numbered ('x #1', ...); across files they pair in the order "
				      "they appear");
	ty_results_saved_release(&r);
}

/* Each bad document and the message it must give. */
static const struct {
	const char *doc, *msg;
} bad[] = {
    {"{\"results\": [{\"command\": \"a\", \"times\": [1,",
     "b.json: line 1, column 42: ']' expected near end of file"},
    {"", "b.json: line 1, column 0: '[' or '{' expected near end of file"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [NaN]}]}",
     "b.json: line 1, column 43: invalid token near 'NaN'"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1e999]}]}",
     "b.json: line 1, column 45: real number overflow near '1e999'"},
    {"[1, 2]", "b.json: top level: expected an object, found an array"},
    {"{\"result\": []}", "b.json: top level: missing field \"results\""},
    {"{\"results\": []}", "b.json: results: no results (the array is empty)"},
    {"{\"results\": {}}", "b.json: results: expected an array, found an object"},
    {"{\"results\": [{\"times\": [1]}]}", "b.json: results[0]: missing field \"command\""},
    {"{\"results\": [{\"command\": 7, \"times\": [1]}]}",
     "b.json: results[0].command: expected a string, found an integer"},
    {"{\"results\": [{\"command\": \"a\", \"times\": \"1\"}]}",
     "b.json: results[0].times: expected an array, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": []}]}",
     "b.json: results: no benchmark has a finished run (every \"times\" array is empty)"},
    {"{\"results\": [{\"times\": []}]}", "b.json: results[0]: missing field \"command\""},
    {"{\"results\": [{\"command\": \"a\", \"times\": [], \"tachy\": {\"name\": 3}}, "
     "{\"command\": \"b\", \"times\": [1]}]}",
     "b.json: results[0].tachy.name: expected a string, found an integer"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": 1, \"interrupted\": \"yes\"}}",
     "b.json: tachy.interrupted: expected a boolean, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": 1, \"not_run\": [{\"command\": \"b\"}]}}",
     "b.json: tachy.not_run[0]: missing field \"name\""},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1, \"2\"]}]}",
     "b.json: results[0].times[1]: expected a number, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1, null]}]}",
     "b.json: results[0].times[1]: expected a number, found null"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1, -2]}]}",
     "b.json: results[0].times[1]: expected a number >= 0, found -2"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"mean\": \"x\"}]}",
     "b.json: results[0].mean: expected a number, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"command\": \"b\"}]}",
     "b.json: line 1, column 53: duplicate object key near '\"command\"'"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1]}], \"tachy\": {\"schema\": 2}}",
     "b.json: tachy: schema version 2 is newer than this tachy understands (1); read it "
     "with a newer tachy"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1]}], \"tachy\": {\"schema\": \"1\"}}",
     "b.json: results[0]: missing field \"tachy\""},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": {}}",
     "b.json: tachy: missing field \"schema\""},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": \"1\"}}",
     "b.json: tachy.schema: expected an integer, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1, 2], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": 1}}",
     "b.json: results[0].tachy.runs: 1 runs, but \"times\" has 2"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"system_ns\": 0}]}}], \"tachy\": {\"schema\": 1}}",
     "b.json: results[0].tachy.runs[0]: missing field \"user_ns\""},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0, \"counters\": "
     "{\"x\": \"5\"}}]}}], \"tachy\": {\"schema\": 1}}",
     "b.json: results[0].tachy.runs[0].counters.x: expected a number, found a string"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": 1, \"reference\": 3}}",
     "b.json: tachy: \"reference\" is 3: there are 1 results"},
    {"{\"results\": [{\"command\": \"a\", \"times\": [1], \"tachy\": {\"name\": \"a\", "
     "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
     "{\"schema\": 1, \"confidence\": 100}}",
     "b.json: tachy: \"confidence\" is 100: expected a percentage in (0, 100)"},
};

static void
test_bad(void)
{
	struct ty_results_saved r;
	struct ty_error e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ty_error_clear(&e);
		CHECK_INT(ty_results_read_text(&r, bad[i].doc, "b.json", &e), -EINVAL);
		CHECK_STR(e.msg, bad[i].msg);
		CHECK(r.nbenches == 0 && r.benches == NULL && r.path == NULL);
	}
}

/* Every truncation and many random byte changes of a good document: the
 * reader accepts or refuses with "b.json: ..." and never crashes (the
 * sanitizer build checks memory too). */
static void
test_mangled(void)
{
	static const char subst[] = "{}[],:\"0-9.eE nul\\tf";
	char doc[sizeof(tachy_doc)];
	struct {
		unsigned long long x;
	} rng = {88172645463325252ULL};
	struct ty_results_saved r;
	struct ty_error e;
	size_t i, len = strlen(tachy_doc), bad_msgs = 0, accepted = 0, k;
	int rc;

	for (i = 0; i < len; i++) {
		memcpy(doc, tachy_doc, i);
		doc[i] = '\0';
		ty_error_clear(&e);
		rc = ty_results_read_text(&r, doc, "b.json", &e);
		if (rc == 0)
			ty_results_saved_release(&r);
		else if (rc != -EINVAL || strncmp(e.msg, "b.json: ", 8) != 0)
			bad_msgs++;
	}
	CHECK_INT(bad_msgs, 0);
	for (i = 0; i < 3000; i++) {
		memcpy(doc, tachy_doc, sizeof(doc));
		for (k = 0; k < 1 + i % 3; k++) {
			rng.x ^= rng.x << 13;
			rng.x ^= rng.x >> 7;
			rng.x ^= rng.x << 17;
			doc[rng.x % len] = subst[(rng.x >> 32) % (sizeof(subst) - 1)];
		}
		ty_error_clear(&e);
		rc = ty_results_read_text(&r, doc, "b.json", &e);
		if (rc == 0) {
			accepted++;
			CHECK(r.nbenches == 1 && r.benches[0].nfigs >= 1);
			ty_results_saved_release(&r);
		} else if (rc != -EINVAL || strncmp(e.msg, "b.json: ", 8) != 0) {
			bad_msgs++;
		}
	}
	CHECK_INT(bad_msgs, 0);
	printf("# mangled documents: %zu of 3000 still valid\n", accepted);
}

static void
test_files(void)
{
	struct ty_results_saved r;
	struct ty_error e = {0};

	CHECK_INT(ty_results_read_file(&r, "/nonexistent/x.json", &e), -ENOENT);
	CHECK_STR(e.msg, "cannot open '/nonexistent/x.json': No such file or directory");
	CHECK_INT(ty_results_read_file(&r, "/", &e) < 0, 1);
}

int
main(void)
{
	test_tachy();
	test_hyperfine();
	test_no_runs();
	test_duplicates();
	test_bad();
	test_mangled();
	test_files();
	return check_done();
}

#else

int
main(void)
{
	struct ty_results_saved r;
	struct ty_error e = {0};

	CHECK_INT(ty_results_read_text(&r, "{}", "x.json", &e), -ENOTSUP);
	CHECK_STR(e.msg, "cannot read 'x.json': not built with jansson");
	return check_done();
}

#endif
