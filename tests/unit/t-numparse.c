/* t-numparse.c - the number parser gives strtod's bits, and number files
 * are read as ministat reads them. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "tachy/numparse.h"

static int
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* ty_numparse agrees with strtod on S: the same bits, or both reject. */
static int
agrees(const char *s)
{
	char *end;
	double want = strtod(s, &end), got = 12345;
	int rc = ty_numparse(s, strlen(s), &got);
	int whole = *s && *end == '\0';

	if (whole && isfinite(want))
		return rc == 0 && same_bits(got, want);
	if (whole)
		return rc == -ERANGE;
	return rc == -EINVAL;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t
next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static void
random_decimal(char *buf, size_t cap)
{
	size_t i = 0, nd = 1 + next() % 24, point = next() % (nd + 2);
	size_t k;

	if (next() % 4 == 0)
		buf[i++] = next() % 2 ? '-' : '+';
	for (k = 0; k < nd && i < cap - 16; k++) {
		if (k == point)
			buf[i++] = '.';
		/* runs of zeros and nines find rounding edges */
		switch (next() % 4) {
		case 0:
			buf[i++] = '0';
			break;
		case 1:
			buf[i++] = '9';
			break;
		default:
			buf[i++] = (char)('0' + next() % 10);
		}
	}
	if (next() % 3 == 0)
		i += (size_t)snprintf(buf + i, cap - i, "e%d", (int)(next() % 80) - 40);
	else if (next() % 50 == 0)
		i += (size_t)snprintf(buf + i, cap - i, "E%+d", (int)(next() % 700) - 350);
	buf[i] = '\0';
}

static void
test_random_strings(void)
{
	char buf[96];
	int i, bad = 0;

	for (i = 0; i < 300000; i++) {
		random_decimal(buf, sizeof(buf));
		if (!agrees(buf) && bad++ < 10)
			printf("disagrees with strtod: \"%s\"\n", buf);
	}
	for (i = 0; i < 200000; i++) {
		uint64_t bits = next();
		double d;
		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d))
			continue;
		snprintf(buf, sizeof(buf),
			 (i % 4 == 0)	? "%.17g"
			 : (i % 4 == 1) ? "%.15g"
			 : (i % 4 == 2) ? "%g"
					: "%.6e",
			 d);
		if (!agrees(buf) && bad++ < 20)
			printf("disagrees with strtod: \"%s\"\n", buf);
		/* ordinary measurement-like values */
		snprintf(buf, sizeof(buf), "%.*f", (int)(next() % 10),
			 (double)(next() % 100000000) / 1000);
		if (!agrees(buf) && bad++ < 30)
			printf("disagrees with strtod: \"%s\"\n", buf);
	}
	CHECK_INT(bad, 0);
}

static void
test_edges(void)
{
	static const char *ok[] = {"0",
				   "-0",
				   "+0",
				   "0.0",
				   "-0.0e10",
				   "1e22",
				   "1e23",
				   "9007199254740992",
				   "9007199254740993",
				   "9007199254740993e-5",
				   "123456789012345678901234567890",
				   "0.1",
				   ".5",
				   "5.",
				   "+.5e-3",
				   "1E5",
				   "1e-400",
				   "4.9e-324",
				   "2.2250738585072014e-308",
				   "1.7976931348623157e308",
				   "0x1p3",
				   "0X1.8P1",
				   "  12",
				   "\t\v\f\r 7",
				   "000000000000000000000000000001",
				   "1.00000000000000000000000000000",
				   "0.000000000000000000000000001",
				   "1e0022",
				   "1e-22",
				   "3e-23",
				   "12345678901234567e-3"};
	static const char *bad[] = {"",		" ",	    ".",     "-",      "+",	 "e5",
				    "1e",	"1e+",	    "1.2.3", "12abc",  "1 2",	 "--1",
				    "1e5x",	"0x",	    "12 ",   "1,5",    "nan",	 "-inf",
				    "infinity", "NAN(123)", "1e400", "-1e309", "1.8e308"};
	size_t i;
	double v;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (!CHECK(agrees(ok[i])))
			printf("     on \"%s\"\n", ok[i]);
		CHECK_INT(ty_numparse(ok[i], strlen(ok[i]), &v), 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = ty_numparse(bad[i], strlen(bad[i]), &v);
		if (!CHECK(rc == -EINVAL || rc == -ERANGE))
			printf("     on \"%s\"\n", bad[i]);
	}
	CHECK_INT(ty_numparse("nan", 3, &v), -ERANGE);
	CHECK_INT(ty_numparse("1e999", 5, &v), -ERANGE);
	CHECK_INT(ty_numparse("1x", 2, &v), -EINVAL);
	/* a span is not a C string: the length counts, not a NUL */
	CHECK_INT(ty_numparse("12345", 2, &v), 0);
	CHECK(v == 12);
	CHECK_INT(ty_numparse("1\0002", 3, &v), -EINVAL);
	ty_numparse("-0", 2, &v);
	CHECK(v == 0 && signbit(v));
}

/* Parse BUF with column COL and delimiters DELIM; return the count or a
 * negative errno; the values go to OUT. */
static int
parse(const char *buf, size_t len, int col, const char *delim, double *out, size_t max,
      struct ty_error *err)
{
	struct ty_numfile opt = {col, delim};
	struct ty_numbers nums;
	size_t i;
	int rc;

	ty_numbers_init(&nums);
	ty_error_clear(err);
	rc = ty_numfile_parse(buf, len, "f", &opt, &nums, err);
	for (i = 0; i < nums.n && i < max; i++)
		out[i] = nums.v[i];
	if (rc == 0)
		rc = (int)nums.n;
	ty_numbers_release(&nums);
	return rc;
}

#define P(s, col, delim) parse(s, sizeof(s) - 1, col, delim, v, 16, &err)

static void
test_lines(void)
{
	struct ty_error err;
	double v[16];

	CHECK_INT(P("1\n2\n3\n", 1, NULL), 3);
	CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
	CHECK_INT(P("1\n2\n3", 1, NULL), 3); /* no final newline */
	CHECK_INT(P("", 1, NULL), 0);
	CHECK_INT(P("\n\n  \n\t\n", 1, NULL), 0);
	CHECK_INT(P("# head\n1 # c\n#2\n  3\n", 1, NULL), 2);
	CHECK(v[0] == 1 && v[1] == 3);
	CHECK_INT(P("1\r\n2\r\n", 1, NULL), 2); /* trailing white space is stripped */
	CHECK_INT(P("7 x\n8\ty\n", 1, NULL), 2);
	CHECK(v[0] == 7 && v[1] == 8);
	CHECK_INT(P("a 1\nb 2\nc\n", 2, NULL), 2); /* too few fields: skipped */
	CHECK(v[0] == 1 && v[1] == 2);
	CHECK_INT(P("# 1\nx # 2\n", 2, NULL), 0);
	CHECK_INT(P("1,2,3\n4,5,6\n", 3, ","), 2);
	CHECK(v[0] == 3 && v[1] == 6);
	CHECK_INT(P("1, 2\n", 2, ","), 1); /* strtod skips leading space */
	CHECK(v[0] == 2);
	CHECK_INT(P("1 ,2\n", 1, ","), -EINVAL); /* but not trailing */
	CHECK_STR(err.msg, "Invalid data on line 1 in f");
	CHECK_INT(P("1.5.5\n", 2, "."), 1);
	CHECK(v[0] == 5);
	CHECK_INT(P("1e5\n", 1, "e"), 1);
	CHECK(v[0] == 1);
	CHECK_INT(P("1\n2\nx\n4\n", 1, NULL), -EINVAL);
	CHECK_STR(err.msg, "Invalid data on line 3 in f");
	CHECK_INT(P("1\n\n# c\n\nnan\n", 1, NULL), -EINVAL);
	CHECK_STR(err.msg, "Invalid data on line 5 in f");
	CHECK_INT(P("1\ninf\n", 1, NULL), -EINVAL);
	CHECK_INT(P("1\n1e999\n", 1, NULL), -EINVAL);
	CHECK_INT(P("1\n2x\n", 1, NULL), -EINVAL);
	CHECK_INT(P("-\n", 1, NULL), -EINVAL);
	CHECK_INT(P("1\0junk\n2\n", 1, NULL), 2); /* fgets + strlen stop at NUL */
	CHECK(v[0] == 1 && v[1] == 2);
	CHECK_INT(P("0x10\n1e-400\n", 1, NULL), 2);
	CHECK(v[0] == 16 && v[1] == 0);
}

static void
test_files(void)
{
	char path[] = "/tmp/t-numparse-XXXXXX";
	struct ty_numbers nums;
	struct ty_error err;
	int fd = mkstemp(path), rc;
	size_t i, big = 3 << 20;
	char *line = malloc(big + 8);
	FILE *fp;

	CHECK(fd >= 0);
	fp = fdopen(fd, "w");
	/* a line far longer than the read buffer, then many short ones */
	line[0] = '1';
	line[1] = '.';
	memset(line + 2, '0', big - 2);
	fwrite(line, 1, big, fp);
	fputc('\n', fp);
	for (i = 0; i < 200000; i++)
		fprintf(fp, "%zu.%zu\n", i, i % 7);
	fputs("  5e-1", fp);
	fclose(fp);
	ty_numbers_init(&nums);
	rc = ty_numfile_read(path, "big", NULL, &nums, &err);
	CHECK_INT(rc, 0);
	CHECK_INT(nums.n, 200002);
	CHECK(nums.v[0] == 1);
	CHECK(nums.v[1] == 0);
	CHECK(nums.v[200000] == strtod("199999.2", NULL));
	CHECK(nums.v[200001] == 0.5);
	ty_numbers_release(&nums);
	unlink(path);
	free(line);

	rc = ty_numfile_read("/nonexistent/x", "/nonexistent/x", NULL, &nums, &err);
	CHECK_INT(rc, -ENOENT);
	CHECK_STR(err.msg, "Cannot open /nonexistent/x: No such file or directory");
	rc = ty_numfile_read("/", "/", NULL, &nums, &err);
	CHECK_INT(rc, -EISDIR);
	ty_numbers_release(&nums);
}

/* ministat's ReadSet on BUF, lines under 8192 bytes: fgets, strip trailing
 * isspace, strtok to field COL, strtod. Non-finite values count as invalid
 * here (tachy's one difference). Returns the count or -line of the error. */
static long
ministat_read(const char *buf, size_t len, int col, const char *delim, double *out, size_t max)
{
	char line[8192], *t, *p;
	const char *s = buf, *end = buf + len;
	long n = 0, lineno = 0;
	int i;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		memcpy(line, s, l);
		line[l] = '\0';
		s += l;
		lineno++;
		i = (int)strlen(line);
		while (i > 0 && isspace((unsigned char)line[i - 1]))
			line[--i] = '\0';
		for (i = 1, t = strtok(line, delim); t != NULL && *t != '#';
		     i++, t = strtok(NULL, delim))
			if (i == col)
				break;
		if (t == NULL || *t == '#')
			continue;
		double d = strtod(t, &p);
		if (*p != '\0' || !isfinite(d))
			return -lineno;
		if ((size_t)n < max)
			out[n] = d;
		n++;
	}
	return n;
}

/* A few lines of fields: decimals, junk, comments, and separators. */
static size_t
random_lines(char *buf, size_t cap, const char *alphabet)
{
	static const char *seps[] = {" ", "\t", ",", ":", "  ", " ,", "e", "."};
	size_t i = 0, lines = 1 + next() % 8, l, f, k;

	for (l = 0; l < lines && i < cap - 300; l++) {
		size_t fields = next() % 5;
		if (next() % 3 == 0)
			i += (size_t)snprintf(buf + i, cap - i, "%s", seps[next() % 8]);
		for (f = 0; f < fields; f++) {
			if (f)
				i += (size_t)snprintf(buf + i, cap - i, "%s", seps[next() % 8]);
			switch (next() % 10) {
			case 0:
				buf[i++] = '#';
				break;
			case 1:
				for (k = next() % 4; k > 0; k--)
					buf[i++] = alphabet[next() % strlen(alphabet)];
				break;
			default:
				random_decimal(buf + i, 40);
				i += strlen(buf + i);
			}
		}
		if (next() % 4 == 0)
			buf[i++] = next() % 2 ? '\r' : ' ';
		if (l + 1 < lines || next() % 2)
			buf[i++] = '\n';
	}
	return i;
}

/* Random lines from an alphabet of what matters: the reader must agree
 * with ministat's own algorithm on every one. */
static void
test_against_ministat(void)
{
	static const char alphabet[] = "0123456789..eE+-# \t\r\v,:x0";
	static const char *delims[] = {" \t", ",", ":,", " ", "e", "."};
	static double want[4096], got[4096];
	char buf[4096];
	int iter, bad = 0, errors = 0, numbers = 0;

	for (iter = 0; iter < 20000; iter++) {
		size_t len, i;
		int col = 1 + (int)(next() % 3);
		const char *delim = delims[next() % 6];
		struct ty_numfile opt = {col, delim};
		struct ty_numbers nums;
		struct ty_error err;
		long w;
		int rc;

		len = random_lines(buf, sizeof(buf), alphabet);
		w = ministat_read(buf, len, col, delim, want, 4096);
		ty_numbers_init(&nums);
		rc = ty_numfile_parse(buf, len, "r", &opt, &nums, &err);
		if (w < 0) {
			char msg[64];
			snprintf(msg, sizeof(msg), "Invalid data on line %ld in r", -w);
			if (rc != -EINVAL || strcmp(err.msg, msg) != 0)
				bad++;
		} else if (rc != 0 || (long)nums.n != w) {
			bad++;
		} else {
			for (i = 0; i < nums.n; i++)
				got[i] = nums.v[i];
			if (nums.n && memcmp(got, want, nums.n * sizeof(double)) != 0)
				bad++;
		}
		if (w < 0)
			errors++;
		else if (w > 0)
			numbers++;
		ty_numbers_release(&nums);
	}
	CHECK_INT(bad, 0);
	printf("# %d inputs with numbers, %d with invalid data\n", numbers, errors);
	CHECK(numbers > 1000 && errors > 1000);
}

/* Lines of short decimals, the shape the 8-bytes-at-a-time path takes
 * (up to 7 digits each side), and its edges (8 digits, none, signs,
 * zeros): every value has strtod's bits. */
static void
test_short_lines(void)
{
	static const char *edges[] = {
	    "0",
	    "-0",
	    "+0",
	    "-0.0",
	    "0.0000000",
	    ".5",
	    "5.",
	    "-.5",
	    "+5",
	    "1234567",
	    "12345678",
	    "123456789",
	    "0.1234567",
	    "0.12345678",
	    "9999999.9999999",
	    "00000000.1",
	    "1.",
	    ".",
	    "-",
	    "+.",
	    "1e5",
	    "1.5e-3",
	    "0.30000000000000004",
	    "7.0000001",
	    "1234567.1234567",
	    "01234567.7654321",
	};
	char *buf = malloc(1 << 22), *p = buf, tmp[64];
	struct ty_numbers nums;
	struct ty_error err;
	size_t i, n = 0, k;
	int bad = 0, rc;
	double *want = malloc(300000 * sizeof(*want));

	for (i = 0; i < 300000; i++) {
		char *e;
		if (i < sizeof(edges) / sizeof(edges[0])) {
			snprintf(tmp, sizeof(tmp), "%s", edges[i]);
		} else {
			int ni = (int)(next() % 9), nf = (int)(next() % 10);
			k = 0;
			if (next() % 5 == 0)
				tmp[k++] = next() % 2 ? '-' : '+';
			while (ni-- > 0)
				tmp[k++] = (char)('0' + (next() % 3 == 0 ? 0 : next() % 10));
			if (nf < 9) {
				tmp[k++] = '.';
				while (nf-- > 0)
					tmp[k++] = (char)('0' + next() % 10);
			}
			tmp[k] = '\0';
		}
		want[n] = strtod(tmp, &e);
		if (e == tmp || *e)
			continue; /* not a number: left out */
		p += sprintf(p, "%s\n", tmp);
		n++;
	}
	ty_numbers_init(&nums);
	rc = ty_numfile_parse(buf, (size_t)(p - buf), "s", NULL, &nums, &err);
	CHECK_INT(rc, 0);
	CHECK_INT(nums.n, n);
	for (i = 0; i < n && i < nums.n; i++)
		if (!same_bits(nums.v[i], want[i]) && bad++ < 10)
			printf("line %zu: %.17g, strtod %.17g\n", i + 1, nums.v[i], want[i]);
	CHECK_INT(bad, 0);
	ty_numbers_release(&nums);
	free(buf);
	free(want);
}

struct done_log {
	int calls[4];
	size_t n[4];
};

static void
note_done(size_t i, void *arg)
{
	struct done_log *d = arg;

	__atomic_add_fetch(&d->calls[i], 1, __ATOMIC_RELAXED);
	d->n[i] = 0;
}

/* A file of PATH with LINES random numbers (a bad line at BAD when not 0). */
static void
write_numbers(char *path, size_t lines, size_t bad)
{
	int fd = mkstemp(path);
	FILE *fp;
	size_t i;

	CHECK(fd >= 0);
	fp = fdopen(fd, "w");
	for (i = 1; i <= lines; i++) {
		if (i == bad)
			fputs("1x\n", fp);
		else if (i % 1000 == 0)
			fprintf(fp, "# comment\n  %.6e\n", (double)next() / 3e15);
		else
			fprintf(fp, "%.*f\n", (int)(next() % 8),
				(double)(next() % 100000000) / 997);
	}
	fclose(fp);
}

/* ty_numfile_read_many gives what ty_numfile_read_fd gives, file by file,
 * whatever the threads (mapped, split at line ends, or read). */
static void
test_read_many(void)
{
	char a[] = "/tmp/t-numparse-XXXXXX", b[] = "/tmp/t-numparse-XXXXXX";
	char c[] = "/tmp/t-numparse-XXXXXX";
	const char *names[3] = {"a", "b", "c"};
	struct ty_numbers want[3], got[3];
	struct ty_error werr[3], errs[3];
	unsigned threads;
	int fds[3], rcs[3], wrc[3], i;

	write_numbers(a, 400000, 0);	  /* mapped, split */
	write_numbers(b, 1000, 0);	  /* small: read */
	write_numbers(c, 300000, 250000); /* a bad line in its last part */
	for (i = 0; i < 3; i++) {
		fds[i] = open(i == 0 ? a : i == 1 ? b : c, O_RDONLY);
		ty_numbers_init(&want[i]);
		wrc[i] = ty_numfile_read_fd(fds[i], names[i], NULL, &want[i], &werr[i]);
	}
	CHECK_INT(wrc[0], 0);
	CHECK_INT(wrc[1], 0);
	CHECK_INT(wrc[2], -EINVAL);
	CHECK_STR(werr[2].msg, "Invalid data on line 250249 in c");
	for (threads = 1; threads <= 5; threads++) {
		int nf;
		for (nf = 1; nf <= 3; nf++) {
			struct done_log d = {{0}, {0}};
			for (i = 0; i < nf; i++) {
				lseek(fds[i], 0, SEEK_SET);
				ty_numbers_init(&got[i]);
			}
			CHECK_INT(ty_numfile_read_many(fds, names, (size_t)nf, NULL, threads,
						       note_done, &d, got, rcs, errs),
				  0);
			for (i = 0; i < nf; i++) {
				CHECK_INT(rcs[i], wrc[i]);
				CHECK_INT(d.calls[i], rcs[i] == 0);
				if (rcs[i] < 0) {
					CHECK_STR(errs[i].msg, werr[i].msg);
				} else {
					CHECK_INT(got[i].n, want[i].n);
					CHECK(got[i].n == want[i].n &&
					      !memcmp(got[i].v, want[i].v,
						      want[i].n * sizeof(double)));
				}
				ty_numbers_release(&got[i]);
			}
		}
	}
	/* one descriptor twice: the first set takes every number */
	lseek(fds[0], 0, SEEK_SET);
	{
		int two[2] = {fds[0], fds[0]};
		ty_numbers_init(&got[0]);
		ty_numbers_init(&got[1]);
		CHECK_INT(ty_numfile_read_many(two, names, 2, NULL, 2, NULL, NULL, got, rcs, errs),
			  0);
		CHECK_INT(got[0].n, want[0].n);
		CHECK_INT(got[1].n, 0);
		ty_numbers_release(&got[0]);
		ty_numbers_release(&got[1]);
	}
	for (i = 0; i < 3; i++) {
		close(fds[i]);
		ty_numbers_release(&want[i]);
	}
	unlink(a);
	unlink(b);
	unlink(c);
}

/* A mapped file's line of 16 MiB is refused as a read one is. */
static void
test_read_many_long_line(void)
{
	char path[] = "/tmp/t-numparse-XXXXXX";
	const char *name = "long";
	struct ty_numbers nums[2];
	struct ty_error errs[2];
	int fd = mkstemp(path), rcs[2], fds[2];
	size_t len = (16u << 20) + 10;
	char *line = malloc(len);

	CHECK(fd >= 0);
	CHECK(write(fd, "1\n2\n", 4) == 4);
	memset(line, ' ', len);
	CHECK(write(fd, line, len) == (ssize_t)len);
	fds[0] = fds[1] = fd;
	lseek(fd, 0, SEEK_SET);
	ty_numbers_init(&nums[0]);
	CHECK_INT(ty_numfile_read_many(fds, &name, 1, NULL, 2, NULL, NULL, nums, rcs, errs), 0);
	CHECK_INT(rcs[0], -EINVAL);
	CHECK_STR(errs[0].msg, "Line 3 in long is longer than 16 MiB: not a file of numbers");
	lseek(fd, 0, SEEK_SET);
	ty_numbers_release(&nums[0]);
	CHECK_INT(ty_numfile_read_fd(fd, name, NULL, &nums[0], &errs[1]), -EINVAL);
	CHECK_STR(errs[1].msg, errs[0].msg);
	ty_numbers_release(&nums[0]);
	close(fd);
	unlink(path);
	free(line);
}

int
main(void)
{
	test_edges();
	test_random_strings();
	test_lines();
	test_files();
	test_against_ministat();
	test_short_lines();
	test_read_many();
	test_read_many_long_line();
	return check_done();
}
