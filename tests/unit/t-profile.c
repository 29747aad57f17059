/* t-profile.c - the profile model, its file format (round trip, every
 * truncation, random corruption), folded stacks, flame graph escaping,
 * pprof encoding (decoded back here), and the collector. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "folded.h"
#include "tachy/collect.h"
#include "tachy/crc32.h"
#include "tachy/flame.h"
#include "tachy/pprof.h"
#include "tachy/profile-cachegrind.h"
#include "tachy/profile-file.h"
#include "tachy/profile-views.h"
#include "tachy/timeline.h"

/* Make good the check of the section whose header is at H (format 3: the
 * CRC-32 of the tag, the length and the payload), after a test changed it. */
static void
reseal(void *head)
{
	unsigned char *h = head;
	uint64_t n;
	uint32_t crc;

	memcpy(&n, h + 8, 8);
	crc = ty_crc32(ty_crc32(ty_crc32(0, h, 4), h + 8, 8), h + 16, (size_t)n);
	memcpy(h + 4, &crc, 4);
}

static struct ty_profile *
synthetic(void)
{
	struct ty_profile *p = ty_profile_new();
	uint32_t fmain = ty_profile_func(p, "main", "/bin/prog");
	uint32_t fa = ty_profile_func(p, "a", "/bin/prog");
	uint32_t fb = ty_profile_func(p, "b<&\"'>", "/lib/x.so");
	uint32_t lm = ty_profile_loc(p, 0x100, fmain), la = ty_profile_loc(p, 0x200, fa);
	uint32_t lb = ty_profile_loc(p, 0x300, fb), lb2 = ty_profile_loc(p, 0x304, fb);
	uint32_t s1[] = {la, lm}, s2[] = {lb, la, lm}, s3[] = {lb2, la, lm}, s4[] = {lm};
	uint32_t st[4];
	int i;

	CHECK_INT(ty_profile_func(p, "a", "/bin/prog"), fa); /* interned */
	CHECK_INT(ty_profile_loc(p, 0x200, fa), la);
	st[0] = ty_profile_stack(p, s1, 2);
	st[1] = ty_profile_stack(p, s2, 3);
	st[2] = ty_profile_stack(p, s3, 3);
	st[3] = ty_profile_stack(p, s4, 1);
	CHECK_INT(ty_profile_stack(p, s2, 3), st[1]);
	ty_profile_thread(p, 5, 5, "prog");
	ty_profile_thread(p, 5, 6, "worker");
	for (i = 0; i < 100; i++) {
		struct ty_prof_sample s = {(uint64_t)i,
					   1000,
					   i % 2 ? 5 : 6,
					   0,
					   st[i < 40 ? 0 : i < 70 ? 1 : i < 90 ? 2 : 3],
					   TY_STATE_CPU};
		CHECK_INT(ty_profile_sample(p, &s), 0);
	}
	p->meta.event = strdup("cpu-clock");
	p->meta.period_ns = 1;
	p->meta.use_freq = 1;
	p->meta.rate = 999;
	return p;
}

static const char want_folded[] = "main 10\n"
				  "main;a 40\n"
				  "main;a;b<&\"'> 50\n";

static void
test_views(struct ty_profile *p)
{
	struct ty_profile_views_flat f;
	struct ty_profile_views_row m;
	char *s = folded(p);

	CHECK_STR(s, want_folded);
	free(s);
	CHECK_INT(ty_profile_views_flat(p, TY_BY_SYMBOL, TY_SORT_SELF, &f), 0);
	CHECK_INT(f.nrows, 3);
	CHECK_STR(f.rows[0].name, "b<&\"'>");
	CHECK_INT(f.rows[0].self_samples, 50);
	CHECK_STR(f.rows[1].name, "a");
	CHECK_INT(f.rows[1].total_samples, 90);
	CHECK_INT(f.rows[2].total_samples, 100);
	CHECK_NEAR(ty_profile_seconds(p, f.rows[0].self_weight), 50e-6, 1e-12);
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_flat(p, TY_BY_THREAD, TY_SORT_NAME, &f), 0);
	CHECK_INT(f.nrows, 2);
	CHECK_STR(f.rows[0].name, "prog [5]");
	CHECK_INT(f.rows[0].self_samples, 50);
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_flat(p, TY_BY_DSO, TY_SORT_SELF, &f), 0);
	CHECK_INT(f.nrows, 2);
	CHECK_STR(f.rows[0].name, "/bin/prog"); /* a tie on self: more total first */
	CHECK_INT(f.rows[1].self_samples, 50);
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_neighbours(p, "a", 0, &f, &m), 0);
	CHECK_INT(m.total_samples, 90);
	CHECK_INT(f.nrows, 2);
	CHECK_STR(f.rows[0].name, "b<&\"'>");
	CHECK_INT(f.rows[0].self_samples, 50);
	CHECK_STR(f.rows[1].name, "[self]");
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_neighbours(p, "nosuch", 1, &f, &m), -ENOENT);
}

static void
test_roundtrip(struct ty_profile *p)
{
	char path[] = "/tmp/t-profile-XXXXXX";
	int fd = mkstemp(path);
	struct ty_profile *q;
	struct ty_error e = {0};
	char *a, *b;

	close(fd);
	CHECK_INT(ty_profile_write(p, path, &e), 0);
	CHECK_INT(ty_profile_read(path, &q, &e), 0);
	if (!q)
		return;
	CHECK_INT(q->nsamples, 100);
	CHECK_STR(q->meta.event, "cpu-clock");
	CHECK_INT(q->meta.rate, 999);
	a = folded(p);
	b = folded(q);
	CHECK_STR(a, b);
	free(a);
	free(b);
	/* a profile read from a file can still be added to */
	CHECK(ty_profile_func(q, "new", "/bin/prog") != TY_NONE);
	CHECK_INT(ty_profile_func(q, "a", "/bin/prog"), ty_profile_func(p, "a", "/bin/prog"));
	ty_profile_free(q);
	unlink(path);
}

/* Source lines: the optional lines section survives a round trip, the flat
 * profile by line keys on it (a location without one by its function),
 * the diff honours the key, and a line naming a string out of range is
 * rejected. */
static void
test_lines(void)
{
	struct ty_profile *p = ty_profile_new(), *q = NULL;
	uint32_t fa = ty_profile_func(p, "a", "/bin/prog"),
		 fb = ty_profile_func(p, "b", "/bin/prog");
	uint32_t l1 = ty_profile_loc(p, 0x10, fa), l2 = ty_profile_loc(p, 0x14, fa);
	uint32_t l3 = ty_profile_loc(p, 0x20, fb);
	uint32_t s1[] = {l1}, s2[] = {l2}, s3[] = {l3}, st[3];
	struct ty_error e = {0};
	struct ty_profile_views_flat f;
	struct ty_profile_views_diff d;
	FILE *fp;
	char *buf = NULL;
	size_t len = 0, i, at;
	int k;

	CHECK_INT(ty_profile_loc_line(p, l1, "a.c:10"), 0);
	CHECK_INT(ty_profile_loc_line(p, l2, "a.c:11"), 0);
	CHECK_INT(ty_profile_loc_line(p, l2, "a.c:99"), 0); /* the first stays */
	st[0] = ty_profile_stack(p, s1, 1);
	st[1] = ty_profile_stack(p, s2, 1);
	st[2] = ty_profile_stack(p, s3, 1);
	for (k = 0; k < 10; k++) {
		struct ty_prof_sample s = {(uint64_t)k, 1, 1, 0, st[k < 5 ? 0 : k < 8 ? 1 : 2], 0};
		ty_profile_sample(p, &s);
	}
	fp = open_memstream(&buf, &len);
	CHECK_INT(ty_profile_write_fp(p, fp, "mem", &e), 0);
	fclose(fp);
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), 0);
	if (q) {
		CHECK_INT(ty_profile_views_flat(q, TY_BY_LINE, TY_SORT_SELF, &f), 0);
		CHECK_INT(f.nrows, 3);
		if (f.nrows == 3) {
			CHECK_STR(f.rows[0].name, "a.c:10");
			CHECK_INT(f.rows[0].self_samples, 5);
			CHECK_STR(f.rows[1].name, "a.c:11");
			CHECK_STR(f.rows[2].name, "b"); /* no line */
		}
		ty_profile_views_flat_release(&f);
		CHECK_INT(ty_profile_views_diff(p, q, TY_BY_LINE, &d), 0);
		CHECK_INT(d.nrows, 3);
		for (i = 0; i < d.nrows; i++)
			CHECK_NEAR(d.rows[i].old_self, d.rows[i].new_self, 1e-9);
		ty_profile_views_diff_release(&d);
		CHECK_INT(ty_profile_views_diff(p, q, TY_BY_DSO, &d), 0);
		CHECK_INT(d.nrows, 1);
		ty_profile_views_diff_release(&d);
		ty_profile_free(q);
		q = NULL;
	}
	/* The lines section (tag 9): point its first entry past the strings. */
	for (at = 16; at + 16 <= len;) {
		uint32_t tag;
		uint64_t n;
		memcpy(&tag, buf + at, 4);
		memcpy(&n, buf + at + 8, 8);
		if (tag == 9) {
			uint32_t bad = 1000;
			memcpy(buf + at + 16 + 4, &bad, 4);
			break;
		}
		at += 16 + n;
	}
	CHECK(at + 16 <= len);
	/* the section's checksum refuses the change first... */
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), -EINVAL);
	CHECK(strstr(e.msg, "lines section") && strstr(e.msg, "checksum"));
	/* ...and with the checksum made good, the reference check does */
	if (at + 16 <= len)
		reseal(buf + at);
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), -EINVAL);
	CHECK(strstr(e.msg, "line string") != NULL);
	ty_profile_free(q);
	free(buf);
	ty_profile_free(p);
}

/* Mappings and the newer meta keys survive a round trip; a mapping naming
 * a string out of range is rejected. */
static void
test_mappings(void)
{
	struct ty_profile *p = synthetic(), *q = NULL;
	struct ty_prof_mapping m = {0};
	struct ty_error e = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	m.dso = ty_profile_string(p, "/bin/prog");
	m.build_id = ty_profile_string(p, "00112233");
	m.start = 0x1000, m.limit = 0x2000, m.offset = 0x1000;
	CHECK_INT(ty_profile_mapping(p, &m), 0);
	p->meta.user_only = 1, p->meta.workload_sys_ns = 42, p->meta.processes = 3;
	fp = open_memstream(&buf, &len);
	CHECK_INT(ty_profile_write_fp(p, fp, "mem", &e), 0);
	fclose(fp);
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), 0);
	if (q) {
		CHECK_INT(q->nmaps, 1);
		CHECK_STR(q->strings[q->maps[0].dso], "/bin/prog");
		CHECK_STR(q->strings[q->maps[0].build_id], "00112233");
		CHECK_INT(q->maps[0].limit, 0x2000);
		CHECK_INT(q->meta.user_only, 1);
		CHECK_INT(q->meta.workload_sys_ns, 42);
		CHECK_INT(q->meta.processes, 3);
		ty_profile_free(q);
	}
	free(buf);
	p->maps[0].build_id = p->nstrings + 5;
	fp = open_memstream(&buf, &len);
	CHECK_INT(ty_profile_write_fp(p, fp, "mem", &e), 0);
	fclose(fp);
	q = NULL;
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), -EINVAL);
	CHECK(q == NULL);
	free(buf);
	ty_profile_free(p);
}

static void
test_corruption(struct ty_profile *p)
{
	char path[] = "/tmp/t-profile-XXXXXX";
	int fd = mkstemp(path);
	struct ty_error e = {0};
	struct ty_profile *q;
	unsigned char *buf, *mut;
	size_t len, n, i, bad = 0;
	FILE *fp;
	unsigned seed = 12345;

	close(fd);
	CHECK_INT(ty_profile_write(p, path, &e), 0);
	fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	len = (size_t)ftell(fp);
	rewind(fp);
	buf = malloc(len);
	mut = malloc(len);
	CHECK(fread(buf, 1, len, fp) == len);
	fclose(fp);
	unlink(path);
	/* Every proper prefix is rejected as invalid. */
	for (n = 0; n < len; n++)
		if (ty_profile_parse(buf, n, &q, &e) != -EINVAL || q)
			bad++;
	CHECK_INT(bad, 0);
	CHECK_INT(ty_profile_parse(buf, len, &q, &e), 0);
	ty_profile_free(q);
	/* Random byte changes: valid or -EINVAL, never a crash (ASan watches). */
	for (n = 0; n < 3000; n++) {
		int r;
		memcpy(mut, buf, len);
		for (i = 0; i < 1 + n % 4; i++) {
			seed = seed * 1103515245 + 12345;
			mut[(seed >> 8) % len] = (unsigned char)(seed >> 20);
		}
		r = ty_profile_parse(mut, len, &q, &e);
		if (r == 0) {
			char *s = folded(q);
			free(s);
			ty_profile_free(q);
		} else if (r != -EINVAL) {
			bad++;
		}
	}
	CHECK_INT(bad, 0);
	/* Format 3: every single flipped bit is refused as damaged (the
	 * header's check and the sections' checks), none read as numbers */
	for (n = 0; n < len * 8; n++) {
		memcpy(mut, buf, len);
		mut[n / 8] ^= (unsigned char)(1u << n % 8);
		if (ty_profile_parse(mut, len, &q, &e) != -EINVAL || q)
			bad++;
		ty_profile_free(q);
	}
	CHECK_INT(bad, 0);
	memcpy(mut, buf, len);
	mut[8] = 9; /* version */
	CHECK_INT(ty_profile_parse(mut, len, &q, &e), -EINVAL);
	CHECK(strstr(e.msg, "version 9") != NULL);
	memcpy(mut, "NOTAPROF", 8);
	CHECK_INT(ty_profile_parse(mut, len, &q, &e), -EINVAL);
	CHECK(strstr(e.msg, "not a tachy profile") != NULL);
	free(buf);
	free(mut);
}

static void
test_flame(struct ty_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ty_flame_opts o = {.title = "title <script>alert(1)</script>"};

	CHECK_INT(ty_flame_write(p, &o, fp), 0);
	fclose(fp);
	CHECK(strstr(buf, "b&lt;&amp;&quot;&#39;&gt;") != NULL);
	CHECK(strstr(buf, "b<&") == NULL);
	CHECK(strstr(buf, "<script>alert") == NULL);
	CHECK(strstr(buf, "title &lt;script&gt;") != NULL);
	free(buf);
	/* differential, against itself: no frame grew or shrank */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	o.old = p;
	CHECK_INT(ty_flame_write(p, &o, fp), 0);
	fclose(fp);
	CHECK(strstr(buf, "rgb(250,250,250)") != NULL);
	CHECK(strstr(buf, "rgb(255,") == NULL);
	free(buf);
}

/* The labels are in the SVG itself, cut to their boxes: every frame wider
 * than 30 px has a text, and no text is wider than its box (7 px a
 * character, 6 px of margin). */
static void
test_flame_labels(void)
{
	struct ty_profile *p = ty_profile_new();
	uint32_t fl = ty_profile_func(
	    p, "a_very_long_function_name_that_does_not_fit_in_a_small_box", "/bin/prog");
	uint32_t fs = ty_profile_func(p, "main", "/bin/prog");
	uint32_t fu = ty_profile_func(p,
				      "\xc3\xa9t\xc3\xa9_\xc3\xa9t\xc3\xa9_\xc3\xa9t\xc3\xa9_"
				      "\xc3\xa9t\xc3\xa9_\xc3\xa9t\xc3\xa9",
				      "/bin/prog");
	uint32_t ll = ty_profile_loc(p, 1, fl), ls = ty_profile_loc(p, 2, fs);
	uint32_t lu = ty_profile_loc(p, 3, fu);
	uint32_t a[] = {ll, ls}, b[] = {lu, ls}, c[] = {ls};
	uint32_t sa = ty_profile_stack(p, a, 2), sb = ty_profile_stack(p, b, 2);
	uint32_t sc = ty_profile_stack(p, c, 1);
	struct ty_flame_opts o = {.title = "t", .width = 400};
	char *buf = NULL, *q;
	size_t len = 0;
	int i, frames = 0, labelled = 0, cut = 0, fits = 1;
	FILE *fp;

	for (i = 0; i < 100; i++) {
		struct ty_prof_sample s = {(uint64_t)i, 1, 1, 0, i < 10 ? sa : i < 25 ? sb : sc, 0};
		ty_profile_sample(p, &s);
	}
	fp = open_memstream(&buf, &len);
	CHECK_INT(ty_flame_write(p, &o, fp), 0);
	fclose(fp);
	for (q = buf; (q = strstr(q, "<g class=\"f\"")); q++) {
		double w = 0;
		char *r = strstr(q, "width=\""), *t = strstr(q, "\">"), *text, *end;
		size_t chars = 0;
		if (!r || !(text = strstr(q, "<text")) || !(text = strchr(text, '>')) ||
		    !(end = strstr(text, "</text>")))
			break;
		(void)t;
		w = atof(r + 7);
		frames++;
		for (r = text + 1; r < end; r++)
			if (((unsigned char)*r & 0xc0) != 0x80)
				chars++;
		if (w > 30 && end > text + 1)
			labelled++;
		if (chars * 7 > w - 6 + 1e-9 && end > text + 1)
			fits = 0;
		if (end - text > 3 && memcmp(end - 2, "..", 2) == 0)
			cut++;
	}
	CHECK_INT(frames, 4); /* all, main, and the two callees */
	CHECK_INT(labelled, 4);
	CHECK(fits);
	CHECK_INT(cut, 2); /* the long name, and the UTF-8 one cut on a character */
	CHECK(strstr(buf, ">main</text>") != NULL);
	CHECK(strstr(buf, ">all</text>") != NULL);
	free(buf);
	ty_profile_free(p);
}

/* A protobuf reader just good enough to check our encoding. */
static uint64_t
rv(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	int s = 0;

	while (*p < end) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		s += 7;
		if (b < 0x80)
			break;
	}
	return v;
}

static void
test_pprof(struct ty_profile *p)
{
	unsigned char *buf;
	size_t len;
	const unsigned char *q, *end;
	uint64_t counts[16] = {0}, total = 0, nstrings = 0;
	int saw_b = 0;

	CHECK_INT(ty_pprof_encode(p, &buf, &len), 0);
	q = buf;
	end = buf + len;
	while (q < end) {
		uint64_t key = rv(&q, end), f = key >> 3;
		if ((key & 7) == 0) {
			rv(&q, end);
		} else if ((key & 7) == 2) {
			uint64_t n = rv(&q, end);
			const unsigned char *m = q, *mend = q + n;
			if (f == 2) { /* Sample: field 2 is the packed values [count, ns] */
				while (m < mend) {
					uint64_t k2 = rv(&m, mend), n2 = rv(&m, mend);
					if ((k2 >> 3) == 2)
						total += rv(&m, mend);
					else
						m += n2;
				}
			}
			if (f == 6) {
				nstrings++;
				if (n == 6 && memcmp(q, "b<&\"'>", 6) == 0)
					saw_b = 1;
			}
			q = mend;
		} else {
			CHECK(0);
			break;
		}
		if (f < 16)
			counts[f]++;
	}
	CHECK_INT(total, 100);	 /* the first value of every sample: its count */
	CHECK_INT(counts[1], 2); /* sample types */
	CHECK_INT(counts[2], 4); /* one per stack */
	CHECK_INT(counts[4], p->nlocs);
	CHECK_INT(counts[5], p->nfuncs);
	CHECK_INT(nstrings, p->nstrings + 5);
	CHECK(saw_b);
	free(buf);
}

static void
test_off_cpu(void)
{
	struct ty_profile *p = synthetic(), *q = NULL;
	struct ty_error e = {0};
	struct ty_profile_views_flat f;
	struct ty_profile_views_tree t;
	double w[TY_NSTATES];
	char path[] = "/tmp/t-profile-XXXXXX";
	int fd = mkstemp(path);
	uint32_t la = p->frames[p->stack_off[0]], k;
	struct ty_prof_sample s = {500, 3000, 5, 0, 0, TY_STATE_IO};
	char *txt;

	close(fd);
	CHECK_STR(ty_profile_state_name(TY_STATE_LOCK), "lock");
	CHECK_STR(ty_profile_state_name(99), "?");
	CHECK(ty_profile_state_frame(TY_STATE_CPU) == NULL);
	CHECK_INT(ty_profile_has_off_cpu(p), 0);
	CHECK_INT(ty_profile_sample(p, &s), 0); /* stack 0: main -> a */
	s.state = TY_STATE_SLEEP, s.period = 7000, s.time = 600;
	CHECK_INT(ty_profile_sample(p, &s), 0);
	s.state = TY_NSTATES;
	CHECK_INT(ty_profile_sample(p, &s), -EINVAL);
	CHECK_INT(ty_profile_has_off_cpu(p), 1);
	ty_profile_state_weights(p, w);
	CHECK_NEAR(w[TY_STATE_CPU], 100000, 1e-9);
	CHECK_NEAR(w[TY_STATE_IO], 3000, 1e-9);
	CHECK_NEAR(w[TY_STATE_SLEEP], 7000, 1e-9);
	p->meta.off_cpu = TY_OFFCPU_WALL;
	p->meta.off_cpu_limits = strdup("none, really");
	p->meta.switch_chain_hz = 999;
	p->meta.off_cpu_chained = 1;
	p->meta.off_cpu_chained_ns = 3000;
	txt = folded(p);
	CHECK_STR(txt, "main 10000\n"
		       "main;a 40000\n"
		       "main;a;[off-CPU: I/O] 3000\n"
		       "main;a;[off-CPU: sleeping] 7000\n"
		       "main;a;b<&\"'> 50000\n");
	free(txt);
	CHECK_INT(ty_profile_views_flat(p, TY_BY_SYMBOL, TY_SORT_NAME, &f), 0);
	CHECK_STR(f.rows[0].name, "a");
	CHECK_NEAR(f.rows[0].self_weight, 50000, 1e-9);
	CHECK_NEAR(f.rows[0].self_off, 10000, 1e-9);
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_flat(p, TY_BY_STATE, TY_SORT_SELF, &f), 0);
	CHECK_INT(f.nrows, 3);
	CHECK_STR(f.rows[0].name, "on-CPU");
	CHECK_STR(f.rows[1].name, "sleeping");
	CHECK_STR(f.rows[2].name, "I/O");
	CHECK_NEAR(f.rows[2].self_off, 3000, 1e-9);
	ty_profile_views_flat_release(&f);
	CHECK_INT(ty_profile_views_tree_build(&t, p, NULL), 0);
	for (k = 1; k < t.n && t.nodes[k].state != TY_STATE_SLEEP; k++)
		;
	CHECK(k < t.n);
	if (k < t.n) {
		CHECK_STR(t.nodes[k].name, "[off-CPU: sleeping]");
		CHECK_STR(t.nodes[t.nodes[k].parent].name, "a");
		CHECK_NEAR(t.nodes[t.nodes[k].parent].off, 10000, 1e-9);
	}
	ty_profile_views_tree_release(&t);
	CHECK_INT(ty_profile_write(p, path, &e), 0);
	CHECK_INT(ty_profile_read(path, &q, &e), 0);
	if (q) {
		CHECK_INT(q->nsamples, 102);
		CHECK_INT(q->samples[101].state, TY_STATE_SLEEP);
		CHECK_INT(q->samples[101].stack, q->samples[100].stack);
		CHECK_INT(q->meta.off_cpu, TY_OFFCPU_WALL);
		CHECK_STR(q->meta.off_cpu_limits, "none, really");
		CHECK_INT(q->meta.switch_chain_hz, 999);
		CHECK_INT(q->meta.off_cpu_chained, 1);
		CHECK_INT(q->meta.off_cpu_chained_ns, 3000);
		ty_profile_keep(q, 0, 1);
		CHECK_INT(q->nsamples, 2);
		CHECK_NEAR(q->weight, 10000, 1e-9);
		ty_profile_keep(q, 1, 0);
		CHECK_INT(q->nsamples, 0);
		ty_profile_free(q);
	}
	(void)la;
	unlink(path);
	ty_profile_free(p);
}

/* Switch records become off-CPU samples: a switch-out with its thread's
 * next switch-in (records from two rings, in any order), the chain of the
 * context-switch sample at that switch-out, else the thread's last on-CPU
 * sample; preempted is runnable; a switch-out never followed by a
 * switch-in (the end, or a lost record) is dropped. */

/* Cachegrind's output files: plain and compressed names, "(below main)"
 * as a name, missing trailing counts, the summary checked; the profile
 * weighs each function's Ir, by name. */
static void
test_cachegrind(void)
{
	static const char good[] = "desc: I1 cache: 32768 B\ncmd: ./p a\nevents: Ir Dr\n"
				   "fl=(1) p.c\nfn=(1) main\n3 10 1\n4 5\nfl=(2) p.h\nfn=(1)\n9 4\n"
				   "fl=(1)\nfn=(below main)\n1 2\nsummary: 21 1\n";
	static const char *const bad[] = {
	    "",
	    "events: Ir\nfn=f\n1 2\n",		     /* no summary */
	    "events: Ir\nfn=f\n1 2\nsummary: 3\n",   /* wrong sum */
	    "events: Ir\n1 2\nsummary: 2\n",	     /* counts before fn= */
	    "events: Ir\nfn=f\n1 2 3\nsummary: 2\n", /* more counts than events */
	    "events: Ir\nfn=(3)\nsummary: 0\n",	     /* (3) undefined */
	    "events: Ir\nfn=f\n1 -2\nsummary: 2\n",  /* not a number */
	    "events: Ir\nfn=f\n1 18446744073709551615\n2 1\nsummary: 0\n", /* overflow */
	    "fn=f\nevents: Ir\nsummary: 0\n",				   /* fn= before events: */
	    "events: Ir\nfn=f\nsummary: 0\n1 2\n",			   /* after the summary */
	    "events: Ir\nbogus\nsummary: 0\n",
	};
	struct ty_cachegrind cg;
	struct ty_profile *p;
	struct ty_error e;
	size_t i;

	memset(&cg, 0, sizeof(cg));
	CHECK_INT(ty_cachegrind_parse(good, sizeof(good) - 1, "good", &cg, &e), 0);
	CHECK_STR(cg.cmd, "./p a");
	CHECK_STR(cg.event, "Ir");
	CHECK_INT(cg.nevents, 2);
	CHECK_INT(cg.total, 21);
	CHECK_INT(cg.nfuncs, 3);
	CHECK_STR(cg.funcs[0].name, "main");
	CHECK_STR(cg.funcs[0].file, "p.c");
	CHECK_INT(cg.funcs[0].count, 15);
	CHECK_STR(cg.funcs[1].file, "p.h");
	CHECK_STR(cg.funcs[2].name, "(below main)");
	CHECK(ty_cachegrind_sniff(good, sizeof(good) - 1));
	CHECK(!ty_cachegrind_sniff("TACHYPRF", 8));
	p = ty_cachegrind_profile(&cg);
	CHECK(p != NULL);
	if (p) {
		CHECK_NEAR(p->weight, 21, 0);
		CHECK_INT(p->nfuncs, 2); /* main's two files as one function */
		CHECK_STR(p->meta.command, "./p a");
		ty_profile_free(p);
	}
	ty_cachegrind_release(&cg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&cg, 0, sizeof(cg));
		CHECK_INT(ty_cachegrind_parse(bad[i], strlen(bad[i]), "bad", &cg, &e), -EINVAL);
		CHECK(strncmp(e.msg, "bad:", 4) == 0);
		ty_cachegrind_release(&cg);
	}
}

/* What record --calls's probes cost, against the workload's CPU: a share
 * below 100% always (the traps are in that CPU); self ns/call less the
 * measured disturbance, a bound. */
static void
test_calls_cost(void)
{
	struct ty_profile *p = ty_profile_new();
	char buf[160];
	int bound;

	ty_profile_calls_share(buf, sizeof(buf), 0.105, 0.161);
	CHECK_STR(buf, ", 65.2% of the workload's 0.161 s of CPU (the traps are in it)");
	ty_profile_calls_share(buf, sizeof(buf), 1.606, 0.477);
	CHECK(strstr(buf, "about all of the workload's 0.477 s of CPU") != NULL);
	CHECK(strchr(buf, '%') == NULL);
	ty_profile_calls_share(buf, sizeof(buf), 1.0, 0);
	CHECK_STR(buf, "");
	CHECK_INT(ty_profile_calls(p, ty_profile_func(p, "f", "/bin/prog"), 20000), 0);
	CHECK(ty_profile_self_per_call(p, 0, 0.06, &bound) == 3000 && !bound);
	p->meta.calls_hit_ps = 5000000, p->meta.calls_disturb_ps = 120000;
	CHECK(ty_profile_self_per_call(p, 0, 0.06, &bound) == 2880 && bound);
	p->meta.calls_disturb_ps = 0;
	CHECK(ty_profile_self_per_call(p, 0, 0.06, &bound) == 3000 && bound);
	/* its samples at the traps' return taken off: a figure, not a bound */
	p->meta.period_ns = 1;
	p->calls[0].trap = 20000000, p->calls[0].trap_state = TY_TRAP_TAKEN;
	CHECK(fabs(ty_profile_self_per_call(p, 0, 0.06, &bound) - 2000) < 1e-6 && !bound);
	p->meta.calls_disturb_ps = 120000;
	CHECK(fabs(ty_profile_self_per_call(p, 0, 0.06, &bound) - 1880) < 1e-6 && !bound);
	p->calls[0].trap = 70000000; /* more than its samples: none left */
	CHECK(ty_profile_self_per_call(p, 0, 0.06, &bound) == 0 && !bound);
	p->calls[0].trap_state = TY_TRAP_BRANCH; /* they cannot be told apart */
	CHECK(ty_profile_self_per_call(p, 0, 0.06, &bound) == 2880 && bound);
	ty_profile_free(p);
}

/* The self samples of a counted function at its probe's trap return:
 * those whose leaf is it at the addresses given (on-CPU only); they and
 * their state survive a round trip, a state out of range is refused. */
static void
test_calls_trap(void)
{
	struct ty_profile *p = synthetic(), *q = NULL;
	uint32_t fb = ty_profile_func(p, "b<&\"'>", "/lib/x.so"),
		 fa = ty_profile_func(p, "a", "/bin/prog");
	uint64_t at[] = {0x300, 0x304}, none[] = {0x308};
	char path[] = "/tmp/t-profile-XXXXXX";
	struct ty_error e = {0};
	int fd = mkstemp(path);

	close(fd);
	CHECK_INT(ty_profile_leaf_weight(p, fb, at, 1), 30000);
	CHECK_INT(ty_profile_leaf_weight(p, fb, at, 2), 50000);
	CHECK_INT(ty_profile_leaf_weight(p, fb, none, 1), 0);
	CHECK_INT(ty_profile_leaf_weight(p, fa, at, 2), 0); /* another function's */
	CHECK_INT(ty_profile_calls(p, fa, 7), 0);
	CHECK_INT(ty_profile_calls(p, fb, 10), 0);
	CHECK_INT(ty_profile_write(p, path, &e), 0); /* no trap state: no section */
	CHECK_INT(ty_profile_read(path, &q, &e), 0);
	if (q)
		CHECK(q->ncalls == 2 && q->calls[1].trap_state == TY_TRAP_UNKNOWN);
	ty_profile_free(q);
	p->calls[0].trap_state = TY_TRAP_BRANCH;
	p->calls[1].trap = 30000, p->calls[1].trap_state = TY_TRAP_TAKEN;
	CHECK_INT(ty_profile_write(p, path, &e), 0);
	q = NULL;
	CHECK_INT(ty_profile_read(path, &q, &e), 0);
	if (q) {
		CHECK(q->ncalls == 2 && q->calls[0].trap_state == TY_TRAP_BRANCH);
		CHECK(q->calls[1].trap == 30000 && q->calls[1].trap_state == TY_TRAP_TAKEN);
		CHECK(q->calls[1].count == 10);
	}
	ty_profile_free(q);
	p->calls[1].trap_state = TY_TRAP_STATES;
	CHECK_INT(ty_profile_write(p, path, &e), 0);
	q = NULL;
	CHECK_INT(ty_profile_read(path, &q, &e), -EINVAL);
	CHECK(strstr(e.msg, ": corrupt calls-trap section") != NULL);
	ty_profile_free(q);
	unlink(path);
	ty_profile_free(p);
}

int
main(void)
{
	struct ty_profile *p = synthetic();

	test_calls_trap();
	test_cachegrind();
	test_calls_cost();
	test_off_cpu();
	test_views(p);
	test_roundtrip(p);
	test_mappings();
	test_corruption(p);
	test_flame(p);
	test_flame_labels();
	test_lines();
	test_pprof(p);
	ty_profile_free(p);
	return check_done();
}
