/* t-profile-match.c - a function's identity across two builds
 * (profile-match.h), and the views that ask it: runprof-diff's rows,
 * profile-views' diff and differential tree, on synthetic profiles. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/profile-match.h"
#include "tachy/profile-views.h"
#include "tachy/profile.h"
#include "tachy/runprof-diff.h"
#include "tachy/runprof.h"

static int
same(const struct ty_profile_match *m, const char *n0, const char *d0, const char *n1,
     const char *d1)
{
	char *a = ty_profile_match_key(m, 0, n0, d0), *b = ty_profile_match_key(m, 1, n1, d1);
	int r = a && b && strcmp(a, b) == 0;

	free(a);
	free(b);
	return r;
}

static void
test_parse(void)
{
	enum ty_match_mode m = TY_MATCH_SYM;

	CHECK_INT(ty_profile_match_parse("dso,sym", &m), 0);
	CHECK_INT(m, TY_MATCH_DSO_SYM);
	CHECK_INT(ty_profile_match_parse("sym", &m), 0);
	CHECK_INT(m, TY_MATCH_SYM);
	CHECK_INT(ty_profile_match_parse("path,sym", &m), 0);
	CHECK_INT(m, TY_MATCH_PATH_SYM);
	CHECK_INT(ty_profile_match_parse("dso,sym,", &m), -EINVAL);
	CHECK_INT(ty_profile_match_parse("", &m), -EINVAL);
	CHECK_INT(ty_profile_match_parse("build-id", &m), -EINVAL);
	CHECK_INT(ty_profile_match_parse(NULL, &m), -EINVAL);
	CHECK_STR(ty_profile_match_mode_name(TY_MATCH_PATH_SYM), "path,sym");
	CHECK_STR(ty_profile_match_mode_words(TY_MATCH_DSO_SYM), "name and object");
}

static void
test_keys(void)
{
	struct ty_profile_match d = {TY_MATCH_DSO_SYM, {"/a/old/app", "/b/new/app2"}};
	struct ty_profile_match s = d, p = d;
	char buf[64];

	s.mode = TY_MATCH_SYM;
	p.mode = TY_MATCH_PATH_SYM;
	/* the program renamed and moved: one function under dso,sym and sym */
	CHECK(same(&d, "hot", "/a/old/app", "hot", "/b/new/app2"));
	CHECK(same(&s, "hot", "/a/old/app", "hot", "/b/new/app2"));
	CHECK(!same(&p, "hot", "/a/old/app", "hot", "/b/new/app2"));
	CHECK(same(&p, "hot", "/x/app", "hot", "/x/app"));
	/* one name in two libraries: two functions, but under sym */
	CHECK(!same(&d, "init", "/usr/lib/liba.so.1", "init", "/usr/lib/libb.so.1"));
	CHECK(same(&s, "init", "/usr/lib/liba.so.1", "init", "/usr/lib/libb.so.1"));
	/* a library by its file name, the version cut to the major */
	CHECK(same(&d, "memcpy", "/lib/x86_64-linux-gnu/libc.so.6", "memcpy",
		   "/opt/glibc/lib/libc.so.6"));
	CHECK(same(&d, "f", "/usr/lib/libfoo.so.1.2.3", "f", "/usr/lib/libfoo.so.1.4.0"));
	CHECK(!same(&d, "f", "/usr/lib/libfoo.so.1.2.3", "f", "/usr/lib/libfoo.so.2.0.0"));
	CHECK_STR(ty_profile_match_object(&d, 0, "/usr/lib/libfoo.so.1.2.3", buf, sizeof(buf)),
		  "libfoo.so.1");
	/* the program is not a library of the same file name on the other side */
	CHECK(!same(&d, "hot", "/a/old/app", "hot", "/usr/bin/app"));
	CHECK_STR(ty_profile_match_object(&d, 1, "/b/new/app2", buf, sizeof(buf)),
		  TY_MATCH_PROGRAM);
	CHECK_STR(ty_profile_match_object(&d, 0, "/b/new/app2", buf, sizeof(buf)), "app2");
	/* the kernel and its modules by name, under every mode */
	CHECK(same(&d, "do_syscall_64", "[kernel.kallsyms]", "do_syscall_64", "[kernel.kallsyms]"));
	CHECK(same(&p, "ext4_read", "[ext4]", "ext4_read", "[ext4]"));
	CHECK(!same(&d, "f", "[ext4]", "f", "[xfs]"));
	CHECK(same(&d, "__vdso_clock_gettime", "[vdso]", "__vdso_clock_gettime", "[vdso]"));
	/* JIT code named by a perf map: the PID changes between runs */
	CHECK(
	    same(&d, "LazyCompile:f", "/tmp/perf-123.map", "LazyCompile:f", "/tmp/perf-4567.map"));
	CHECK(
	    !same(&p, "LazyCompile:f", "/tmp/perf-123.map", "LazyCompile:f", "/tmp/perf-4567.map"));
	/* unnamed addresses: one [unknown] an object, never split by address */
	CHECK(same(&d, "[unknown] 0x1130 in app", "/a/old/app", "[unknown] 0x11a0 in app2",
		   "/b/new/app2"));
	CHECK(!same(&d, "[unknown] 0x1130 in app", "/a/old/app", "[unknown] 0x1130 in libc.so.6",
		    "/lib/libc.so.6"));
	CHECK(!same(&p, "[unknown] 0x1130 in app", "/x/app", "[unknown] 0x11a0 in app", "/x/app"));
	CHECK_STR(ty_profile_match_name(&d, "[unknown] 0x1130 in app"), "[unknown]");
	CHECK_STR(ty_profile_match_name(&p, "[unknown] 0x1130 in app"), "[unknown] 0x1130 in app");
	/* a name holding the separator cannot pose as another (name, object) */
	CHECK(!same(&d,
		    "a\x1f"
		    "b",
		    "[k]", "a", "b\x1f[k]"));
	CHECK_STR(ty_profile_match_shown("/a/old/app", "/b/new/app", buf, sizeof(buf)), "app");
	CHECK_STR(ty_profile_match_shown("/a/old/app", "/b/new/app2", buf, sizeof(buf)),
		  "app -> app2");
	CHECK_STR(ty_profile_match_shown(NULL, "/b/new/app2", buf, sizeof(buf)), "app2");
}

static void
test_main(void)
{
	const char *dsos[] = {"/lib/libc.so.6", "/usr/bin/sh", "/w/old/app", "[kernel.kallsyms]",
			      "/w/other/app"};
	double w[] = {50, 1, 10, 100, 5};

	CHECK_STR(ty_profile_match_main("./old/app 100", dsos, w, 5), "/w/old/app");
	CHECK_STR(ty_profile_match_main("other/app", dsos, w, 5), "/w/other/app");
	/* only the file name: the heavier of the two */
	CHECK_STR(ty_profile_match_main("/elsewhere/app", dsos, w, 5), "/w/old/app");
	/* no command, or one no object is: the heaviest executable, never a library */
	CHECK_STR(ty_profile_match_main(NULL, dsos, w, 5), "/w/old/app");
	CHECK_STR(ty_profile_match_main("python3 x.py", dsos, w, 5), "/w/old/app");
	CHECK_STR(ty_profile_match_main("sh -c x", dsos, w, 5), "/usr/bin/sh");
	CHECK(ty_profile_match_main(NULL, dsos, w, 1) == NULL);
	CHECK(ty_profile_match_main("'unterminated", dsos, w, 5) != NULL);
}

/* Two commands' per-run profiles: the program at two paths (and a library
 * function "init" in two libraries); NEW's "hot" SLOW times OLD's. */
static void
fill(struct ty_runprof *p, int slow, const char *new_app)
{
	const char *app[2] = {"/w/old/app", new_app};
	size_t c, r;

	for (c = 0; c < 2; c++)
		for (r = 0; r < 12; r++) {
			struct ty_runprof_ent en[4];
			uint32_t hot = 40 + (uint32_t)(r % 3) * 2, cold = 30 + (uint32_t)(r % 2);
			if (c == 1)
				hot *= (uint32_t)slow;
			en[0] = (struct ty_runprof_ent){ty_runprof_sym(p, "hot", app[c]), hot, hot};
			en[1] =
			    (struct ty_runprof_ent){ty_runprof_sym(p, "cold", app[c]), cold, cold};
			en[2] = (struct ty_runprof_ent){ty_runprof_sym(p, "init", "/l/liba.so.1"),
							20, 20};
			en[3] = (struct ty_runprof_ent){ty_runprof_sym(p, "init", "/l/libb.so.1"),
							20 + (uint32_t)(r % 2), 20};
			ty_runprof_add_run(p, c, hot + cold + 40, (double)(hot + cold + 40), en, 4);
		}
}

static size_t
flagged(const struct ty_runprof_diff *d)
{
	return d->nflagged;
}

static void
test_runprof(void)
{
	enum ty_match_mode modes[] = {TY_MATCH_DSO_SYM, TY_MATCH_SYM, TY_MATCH_PATH_SYM};
	size_t rows_want[] = {4, 3, 6}, m;

	for (m = 0; m < 3; m++) {
		struct ty_runprof p;
		struct ty_runprof_diff d;
		struct ty_runprof_diff_opts o = {0};
		struct ty_error e;
		CHECK_INT(ty_runprof_init(&p, 2), 0);
		fill(&p, 1, "/w/new/app2"); /* A/A: one build renamed at another path */
		o.test = TY_TEST_MANN_WHITNEY;
		o.confidence = 95;
		o.min_samples = 10;
		o.match.mode = modes[m];
		o.old_command = "./old/app 1";
		o.new_command = "./new/app2 1";
		CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
		CHECK_INT(d.nrows, rows_want[m]);
		if (modes[m] == TY_MATCH_PATH_SYM)
			CHECK(flagged(&d) >= 2); /* the old split: each side's only */
		else
			CHECK_INT(flagged(&d), 0);
		if (modes[m] == TY_MATCH_DSO_SYM) {
			size_t i, both = 0;
			CHECK_STR(d.match.main[0], "/w/old/app");
			CHECK_STR(d.match.main[1], "/w/new/app2");
			for (i = 0; i < d.nrows; i++)
				both += d.rows[i].old_sym != UINT32_MAX &&
					d.rows[i].new_sym != UINT32_MAX;
			CHECK_INT(both, 4);
		}
		ty_runprof_diff_release(&d);
		ty_runprof_release(&p);
	}
	/* a planted change at two paths: exactly it flagged, first */
	{
		struct ty_runprof p;
		struct ty_runprof_diff d;
		struct ty_runprof_diff_opts o = {0};
		struct ty_error e;
		CHECK_INT(ty_runprof_init(&p, 2), 0);
		fill(&p, 3, "/w/new/app");
		o.test = TY_TEST_MANN_WHITNEY;
		o.confidence = 99;
		o.min_samples = 10;
		CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
		CHECK_INT(flagged(&d), 1);
		CHECK_STR(p.syms[d.rows[0].sym].name, "hot");
		CHECK_INT(d.rows[0].verdict, 1);
		CHECK_INT(d.rows[0].other, 1); /* its total proven too */
		CHECK(d.rows[0].old_sym != d.rows[0].new_sym);
		ty_runprof_diff_release(&d);
		ty_runprof_release(&p);
	}
}

/* A profile of COMMAND: samples of hot (N) and cold (10) in APP. */
static struct ty_profile *
prof(const char *command, const char *app, int n)
{
	struct ty_profile *p = ty_profile_new();
	uint32_t fm = ty_profile_func(p, "main", app), fh = ty_profile_func(p, "hot", app),
		 fc = ty_profile_func(p, "cold", app);
	uint32_t lm = ty_profile_loc(p, 0x10, fm), lh = ty_profile_loc(p, 0x20, fh),
		 lc = ty_profile_loc(p, 0x30, fc);
	uint32_t sh[2] = {lh, lm}, sc[2] = {lc, lm};
	struct ty_prof_sample s = {0};
	int i;

	p->meta.command = strdup(command);
	for (i = 0; i < n + 10; i++) {
		s.period = 1;
		s.stack = ty_profile_stack(p, i < n ? sh : sc, 2);
		ty_profile_sample(p, &s);
	}
	return p;
}

static void
test_views(void)
{
	struct ty_profile *a = prof("./old/app 5", "/w/old/app", 30),
			  *b = prof("./new/app2 5", "/w/new/app2", 30);
	struct ty_profile_match m = {TY_MATCH_DSO_SYM, {NULL, NULL}};
	struct ty_profile_views_diff d;
	struct ty_profile_views_tree t;
	size_t i;
	uint32_t k;
	double most = 0;

	m.main[0] = ty_profile_match_main_of(a);
	m.main[1] = ty_profile_match_main_of(b);
	CHECK_STR(m.main[0], "/w/old/app");
	CHECK_STR(m.main[1], "/w/new/app2");
	CHECK_INT(ty_profile_views_diff_match(a, b, TY_BY_SYMBOL, &m, &d), 0);
	CHECK_INT(d.nrows, 3);
	for (i = 0; i < d.nrows; i++) {
		CHECK_NEAR(d.rows[i].new_self - d.rows[i].old_self, 0, 1e-9);
		CHECK_STR(d.rows[i].dso, "/w/new/app2");
		CHECK_STR(d.rows[i].old_dso, "/w/old/app");
	}
	ty_profile_views_diff_release(&d);
	CHECK_INT(ty_profile_views_diff(a, b, TY_BY_SYMBOL, &d), 0); /* by full path */
	CHECK_INT(d.nrows, 6);
	ty_profile_views_diff_release(&d);
	/* the differential tree: old's nodes merged into new's, nothing changed */
	CHECK_INT(ty_profile_views_tree_build_match(&t, b, a, &m), 0);
	CHECK_INT(t.n, 4); /* root, main, hot, cold */
	for (k = 1; k < t.n; k++)
		if (fabs(t.nodes[k].total - t.nodes[k].old_total) > most)
			most = fabs(t.nodes[k].total - t.nodes[k].old_total);
	CHECK_NEAR(most, 0, 1e-9);
	ty_profile_views_tree_release(&t);
	CHECK_INT(ty_profile_views_tree_build(&t, b, a), 0);
	CHECK_INT(t.n, 7);
	ty_profile_views_tree_release(&t);
	ty_profile_free(a);
	ty_profile_free(b);
}

int
main(void)
{
	test_parse();
	test_keys();
	test_main();
	test_runprof();
	test_views();
	return check_done();
}
