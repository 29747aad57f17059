/* numparse.c - fast exact decimal parsing and number-file reading.
 *
 * The fast path (Clinger 1990): a decimal whose significand W fits in 53
 * bits and whose power of ten P has |P| <= 22 is W * 10^P or W / 10^-P,
 * where both operands are exact doubles, so the one IEEE operation rounds
 * correctly -- the same double strtod must return. Anything else (more
 * digits, big exponents, hex, inf, nan, odd syntax) is left to strtod. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/numparse.h"

/* The fast path needs IEEE double arithmetic without extra precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && DBL_MANT_DIG == 53
#define FAST_PATH 1
#else
#define FAST_PATH 0
#endif

static const double pow10_exact[23] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,  1e6,	 1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* White space as isspace() has it in the C locale. */
static int
is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int
is_digit(unsigned char c)
{
	return (unsigned)(c - '0') < 10;
}

/* Parse an ordinary decimal at S (before END): [+-]digits[.digits][e[+-]digits].
 * Returns where it stopped and stores the value, or NULL when the text is
 * not such a decimal or not exactly representable by the fast path. */
static inline const char *
fast_number(const char *s, const char *end, double *out)
{
	uint64_t w = 0;
	int neg = 0, nd = 0, any = 0, exp10 = 0;
	double v;

	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	for (; s < end && is_digit(*s); s++) {
		any = 1;
		if (w == 0 && *s == '0')
			continue;
		if (++nd > 19)
			return NULL;
		w = w * 10 + (uint64_t)(*s - '0');
	}
	if (s < end && *s == '.') {
		for (s++; s < end && is_digit(*s); s++) {
			any = 1;
			exp10--;
			if (w == 0 && *s == '0')
				continue;
			if (++nd > 19)
				return NULL;
			w = w * 10 + (uint64_t)(*s - '0');
		}
	}
	if (!any)
		return NULL;
	if (s < end && (*s == 'e' || *s == 'E')) {
		int eneg = 0, e = 0, edigits = 0;

		s++;
		if (s < end && (*s == '-' || *s == '+'))
			eneg = *s++ == '-';
		for (; s < end && is_digit(*s); s++) {
			if (++edigits > 4)
				return NULL;
			e = e * 10 + (*s - '0');
		}
		if (!edigits)
			return NULL;
		exp10 += eneg ? -e : e;
	}
	if (w == 0)
		v = 0;
	else if (w > (UINT64_C(1) << 53) || exp10 < -22 || exp10 > 22)
		return NULL;
	else if (exp10 >= 0)
		v = (double)w * pow10_exact[exp10];
	else
		v = (double)w / pow10_exact[-exp10];
	*out = neg ? -v : v;
	return s;
}

int
ty_numparse(const char *s, size_t len, double *out)
{
	const char *end = s + len, *stop;
	char small[128], *tmp = small, *ep;
	double v;
	int rc = 0;

	while (s < end && is_space((unsigned char)*s))
		s++;
	if (FAST_PATH && (stop = fast_number(s, end, &v)) == end) {
		*out = v;
		return 0;
	}
	len = (size_t)(end - s);
	if (len == 0)
		return -EINVAL;
	if (len >= sizeof(small)) {
		tmp = malloc(len + 1);
		if (!tmp)
			return -ENOMEM;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v = strtod(tmp, &ep);
	if (ep != tmp + len)
		rc = -EINVAL;
	else if (!isfinite(v))
		rc = -ERANGE;
	else
		*out = v;
	if (tmp != small)
		free(tmp);
	return rc;
}

void
ty_numbers_init(struct ty_numbers *nums)
{
	nums->v = NULL;
	nums->n = nums->cap = 0;
}

void
ty_numbers_release(struct ty_numbers *nums)
{
	free(nums->v);
	ty_numbers_init(nums);
}

/* The state of reading one file. */
struct reader {
	unsigned char delim[256]; /* 1 for a delimiter byte */
	int column;
	int fast;    /* lines of one plain number may skip tokenizing */
	size_t line; /* lines seen so far */
	const char *name;
	struct ty_numbers *nums;
	struct ty_error *err;
};

static int
reader_init(struct reader *r, const char *name, const struct ty_numfile *opt,
	    struct ty_numbers *nums, struct ty_error *err)
{
	const char *d = (opt && opt->delim && *opt->delim) ? opt->delim : " \t";
	const char *numchars = "0123456789+-.eE";

	memset(r, 0, sizeof(*r));
	for (; *d; d++)
		r->delim[(unsigned char)*d] = 1;
	r->column = opt && opt->column > 0 ? opt->column : 1;
	r->name = name;
	r->nums = nums;
	r->err = err;
	/* Column 1 and no delimiter inside numbers: a line that is delimiters
	 * then a plain number then the newline has that number as its first
	 * field, whatever strtok would do. */
	r->fast = FAST_PATH && r->column == 1;
	for (; *numchars; numchars++)
		if (r->delim[(unsigned char)*numchars])
			r->fast = 0;
	return 0;
}

static int
push(struct reader *r, double v)
{
	struct ty_numbers *nums = r->nums;

	if (ty_array_grow(&nums->v, sizeof(*nums->v), nums->n + 1, &nums->cap) < 0)
		return ty_error_set(r->err, -ENOMEM, "out of memory reading %s", r->name);
	nums->v[nums->n++] = v;
	return 0;
}

/* The general path for the line [P, END): 1 and *OUT for a number, 0 for a
 * line to skip, -1 for invalid data. */
static int
parse_line(struct reader *r, const char *p, const char *end, double *out)
{
	const char *nul = memchr(p, '\0', (size_t)(end - p)), *ts;
	int col = 1;

	if (nul)
		end = nul; /* what fgets and strlen would see */
	while (end > p && is_space((unsigned char)end[-1]))
		end--;
	for (;;) {
		while (p < end && r->delim[(unsigned char)*p])
			p++;
		if (p == end)
			return 0;
		ts = p;
		while (p < end && !r->delim[(unsigned char)*p])
			p++;
		if (*ts == '#')
			return 0;
		if (col++ == r->column)
			return ty_numparse(ts, (size_t)(p - ts), out) == 0 ? 1 : -1;
	}
}

/* Take the lines of BUF[0..LEN). Unless FINAL, a last line without its
 * newline is left for later. Returns the bytes consumed, or a negative
 * errno with R->err set. */
static long long
take_lines(struct reader *r, const char *buf, size_t len, int final)
{
	const char *p = buf, *end = buf + len, *q, *nl;
	double v;
	int rc;

	while (p < end) {
		if (r->fast) {
			for (q = p; q < end && r->delim[(unsigned char)*q]; q++)
				;
			q = fast_number(q, end, &v);
			if (q && ((q < end && *q == '\n') || (q == end && final))) {
				r->line++;
				if (r->nums->n < r->nums->cap)
					r->nums->v[r->nums->n++] = v;
				else if ((rc = push(r, v)) < 0)
					return rc;
				p = q + (q < end);
				continue;
			}
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			if (!final)
				break;
			nl = end;
		}
		r->line++;
		rc = parse_line(r, p, nl, &v);
		if (rc < 0)
			return ty_error_set(r->err, -EINVAL, "Invalid data on line %zu in %s",
					    r->line, r->name);
		if (rc > 0 && (rc = push(r, v)) < 0)
			return rc;
		p = nl + (nl < end);
	}
	return p - buf;
}

int
ty_numfile_parse(const char *buf, size_t len, const char *name, const struct ty_numfile *opt,
		 struct ty_numbers *nums, struct ty_error *err)
{
	struct reader r;
	long long rc;

	reader_init(&r, name, opt, nums, err);
	rc = take_lines(&r, buf, len, 1);
	return rc < 0 ? (int)rc : 0;
}

#define CHUNK (1 << 20)
/* The longest line read: a number with its fields before it is a few
 * hundred bytes; a line of 16 MiB is a file that is not numbers (/dev/zero,
 * a binary), refused instead of read until memory runs out. */
#define MAX_LINE (16 << 20)

static int
read_fd(struct reader *r, int fd)
{
	size_t cap = CHUNK, have = 0;
	char *buf = malloc(cap);
	long long used;
	ssize_t got;
	int rc = 0;

	if (!buf)
		return ty_error_set(r->err, -ENOMEM, "out of memory reading %s", r->name);
	for (;;) {
		if (have == cap && cap >= MAX_LINE) {
			rc = ty_error_set(r->err, -EINVAL,
					  "Line %zu in %s is longer than %d MiB: not a file of "
					  "numbers",
					  r->line + 1, r->name, MAX_LINE >> 20);
			break;
		}
		/* one line longer than the buffer: make room */
		if (have == cap && ty_array_grow(&buf, 1, cap + 1, &cap) < 0) {
			rc = ty_error_set(r->err, -ENOMEM, "out of memory reading %s", r->name);
			break;
		}
		got = read(fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = ty_error_set(r->err, -errno, "Cannot read %s: %s", r->name,
					  strerror(errno));
			break;
		}
		have += (size_t)got;
		used = take_lines(r, buf, have, got == 0);
		if (used < 0) {
			rc = (int)used;
			break;
		}
		memmove(buf, buf + used, have - (size_t)used);
		have -= (size_t)used;
		if (got == 0)
			break;
	}
	free(buf);
	return rc;
}

int
ty_numfile_read_fd(int fd, const char *name, const struct ty_numfile *opt, struct ty_numbers *nums,
		   struct ty_error *err)
{
	struct reader r;

	reader_init(&r, name, opt, nums, err);
	return read_fd(&r, fd);
}

int
ty_numfile_read(const char *path, const char *name, const struct ty_numfile *opt,
		struct ty_numbers *nums, struct ty_error *err)
{
	struct reader r;
	int fd, rc;

	reader_init(&r, name, opt, nums, err);
	if (!strcmp(path, "-")) {
		fd = STDIN_FILENO;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return ty_error_set(err, -errno, "Cannot open %s: %s", name,
					    strerror(errno));
	}
#ifdef POSIX_FADV_SEQUENTIAL
	if (fd != STDIN_FILENO)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	rc = read_fd(&r, fd);
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}
