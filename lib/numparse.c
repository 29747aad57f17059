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
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/numparse.h"

#define CHUNK (1 << 20)
/* The longest line read: a number with its fields before it is a few
 * hundred bytes; a line of 16 MiB is a file that is not numbers (/dev/zero,
 * a binary), refused instead of read until memory runs out. */
#define MAX_LINE (16 << 20)

/* The fast path needs IEEE double arithmetic without extra precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && DBL_MANT_DIG == 53
#define FAST_PATH 1
#else
#define FAST_PATH 0
#endif

static const double pow10_exact[23] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,  1e6,	 1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t pow10_int[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

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

/* The digits at S (8 bytes readable): how many lead (0 to 8) in *N, and
 * their value. Eight bytes are classified at once: a byte is a digit when
 * it is '0' + d with d < 10 (the 0x7f mask keeps each byte's sum in the
 * byte). */
static inline uint64_t
swar_digits(const char *s, int *n)
{
	const uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f), hi = UINT64_C(0x8080808080808080);
	uint64_t x, a, nondigit;

	memcpy(&x, s, 8);
	a = x ^ UINT64_C(0x3030303030303030);
	nondigit = (((a & lo7) + UINT64_C(0x7676767676767676)) | a) & hi;
	*n = nondigit ? __builtin_ctzll(nondigit) >> 3 : 8;
	if (*n == 0)
		return 0;
	/* the N digits to the top bytes, zeros before them, then pairs,
	 * quads and octets of digits summed */
	a <<= 8 * (8 - *n);
	a = ((a & UINT64_C(0x0f0f0f0f0f0f0f0f)) * 2561) >> 8;
	a = ((a & UINT64_C(0x00ff00ff00ff00ff)) * 6553601) >> 16;
	return ((a & UINT64_C(0x0000ffff0000ffff)) * UINT64_C(42949672960001)) >> 32;
}

/* The common line, [+-]digits[.digits] then a newline, with at most 7
 * digits each side, parsed 8 bytes at a time; the same value as
 * fast_number. NULL (nothing stored) for anything else, or too near END. */
static inline const char *
swar_number(const char *s, const char *end, double *out)
{
	uint64_t ip, fp = 0;
	int neg = 0, ni, nf = 0;
	double v;

	if (end - s < 18)
		return NULL;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	ip = swar_digits(s, &ni);
	if (ni == 8)
		return NULL;
	s += ni;
	if (*s == '.') {
		fp = swar_digits(++s, &nf);
		if (nf == 8)
			return NULL;
		s += nf;
	}
	if (*s != '\n' || ni + nf == 0)
		return NULL;
	ip = ip * pow10_int[nf] + fp;
	v = ip == 0 ? 0 : (double)ip / pow10_exact[nf];
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
	int fast;	 /* lines of one plain number may skip tokenizing */
	size_t line;	 /* lines seen so far */
	size_t max_line; /* a line this long is refused (0: any length) */
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
	const char *p = buf, *end = buf + len, *q, *q2, *nl;
	double v;
	int rc;

	while (p < end) {
		if (r->fast) {
			for (q = p; q < end && r->delim[(unsigned char)*q]; q++)
				;
			if (r->max_line && (size_t)(q - p) >= r->max_line)
				q = NULL; /* the general path refuses it */
			else if (!(q2 = swar_number(q, end, &v)))
				q = fast_number(q, end, &v);
			else
				q = q2;
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
		if (r->max_line && (size_t)(nl - p) >= r->max_line)
			return ty_error_set(r->err, -EINVAL,
					    "Line %zu in %s is longer than %d MiB: not a file of "
					    "numbers",
					    r->line, r->name, MAX_LINE >> 20);
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

static int
read_fd(struct reader *r, int fd)
{
	size_t cap = CHUNK, have = 0;
	struct stat st;
	long long used;
	ssize_t got;
	char *buf;
	int rc = 0;

	/* a small file: a buffer of its size (a power of two, as the growth
	 * keeps), not 1 MiB mapped and unmapped for 800 bytes */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < CHUNK / 2)
		for (cap = 4096; cap <= (size_t)st.st_size; cap *= 2)
			;
	buf = malloc(cap);

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

/* ---- many files at once: mapped, split at lines, parsed on threads ---- */

#define MAP_MIN (1 << 20)  /* smaller files are read: mapping costs more */
#define PART_MIN (1 << 20) /* a file is split in parts of at least this */
#define SLICE (4 << 20)	   /* parsed pages are dropped from the mapping */
#define MAX_PARTS 16

struct many;

struct part {
	struct many *m;
	size_t file;
	const char *buf; /* NULL: the file is read, not mapped */
	size_t len;
	struct ty_numbers own; /* the numbers of a part after the first */
	int rc;
	struct ty_error err;
};

struct mapped {
	char *map; /* NULL: read */
	size_t len;
	size_t first, nparts; /* its parts */
	int left;	      /* parts not done yet */
};

struct many {
	const int *fds;
	const char *const *names;
	const struct ty_numfile *opt;
	struct ty_numbers *nums;
	int *rcs;
	struct ty_error *errs;
	void (*done)(size_t i, void *arg);
	void *arg;
	struct mapped *f;
	struct part *parts;
	size_t nparts, next;
};

/* Room for LEN bytes of lines in NUMS (at most one number a 2 bytes, the
 * last may lack its newline), on huge pages where the kernel has them: the
 * pages of the room left untouched cost nothing. Best effort. */
static void
reserve(struct ty_numbers *nums, size_t len)
{
	uintptr_t a, b;

	if (ty_array_grow(&nums->v, sizeof(*nums->v), nums->n + len / 2 + 1, &nums->cap) < 0)
		return;
#ifdef MADV_HUGEPAGE
	a = ((uintptr_t)(nums->v + nums->n) + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
	b = (uintptr_t)(nums->v + nums->cap) & ~(uintptr_t)((2u << 20) - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)a, (void)b;
#endif
}

/* Parse BUF[0..LEN) (whole lines, the last may lack its newline) into
 * NUMS, a slice at a time, dropping each parsed slice's pages from the
 * mapping (the file stays in the page cache): the peak RSS is the numbers,
 * not the file. */
static int
parse_mapped(const char *buf, size_t len, const char *name, const struct ty_numfile *opt,
	     struct ty_numbers *nums, struct ty_error *err)
{
	const char *p = buf, *end = buf + len, *cut, *drop = buf;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), upto;
	struct reader r;
	long long rc;

	reader_init(&r, name, opt, nums, err);
	r.max_line = MAX_LINE;
	reserve(nums, len);
	while (p < end) {
		cut = (size_t)(end - p) > SLICE ? p + SLICE : end;
		if (cut < end) {
			const char *nl = memchr(cut, '\n', (size_t)(end - cut));
			cut = nl ? nl + 1 : end;
		}
		rc = take_lines(&r, p, (size_t)(cut - p), 1);
		if (rc < 0)
			return (int)rc;
		p = cut;
		upto = (uintptr_t)p & ~(pg - 1);
		if (upto > (uintptr_t)drop) {
			(void)madvise((void *)drop, upto - (uintptr_t)drop, MADV_DONTNEED);
			drop = (const char *)upto;
		}
	}
	return 0;
}

/* The last part of file I is done: its numbers put together in order, its
 * mapping dropped, and DONE called. */
static void
finish_file(struct many *m, size_t i)
{
	struct mapped *f = &m->f[i];
	struct ty_numbers *nums = &m->nums[i];
	size_t k, n;
	int rc = 0;

	for (k = 0; k < f->nparts && !rc; k++)
		if ((rc = m->parts[f->first + k].rc) < 0)
			m->errs[i] = m->parts[f->first + k].err;
	if (rc < 0 && f->nparts > 1 && rc != -ENOMEM) {
		/* the line number counts from the file's start: read it again,
		 * in one piece, for the first bad line's message */
		nums->n = 0;
		rc = parse_mapped(f->map, f->len, m->names[i], m->opt, nums, &m->errs[i]);
	}
	for (k = 1; k < f->nparts; k++) {
		struct ty_numbers *own = &m->parts[f->first + k].own;

		n = own->n;
		if (!rc && ty_array_grow(&nums->v, sizeof(*nums->v), nums->n + n, &nums->cap) < 0)
			rc = ty_error_set(&m->errs[i], -ENOMEM, "out of memory reading %s",
					  m->names[i]);
		if (!rc && n) {
			memcpy(nums->v + nums->n, own->v, n * sizeof(*own->v));
			nums->n += n;
		}
		ty_numbers_release(own);
	}
	if (f->map)
		munmap(f->map, f->len);
	f->map = NULL;
	m->rcs[i] = rc;
	if (!rc && m->done)
		m->done(i, m->arg);
}

static void *
worker(void *arg)
{
	struct many *m = arg;
	size_t k;

	while ((k = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED)) < m->nparts) {
		struct part *pt = &m->parts[k];
		size_t i = pt->file;
		struct mapped *f = &m->f[i];
		struct ty_numbers *into = k == f->first ? &m->nums[i] : &pt->own;

		ty_error_clear(&pt->err);
		if (!pt->buf)
			pt->rc = ty_numfile_read_fd(m->fds[i], m->names[i], m->opt, into, &pt->err);
		else
			pt->rc =
			    parse_mapped(pt->buf, pt->len, m->names[i], m->opt, into, &pt->err);
		if (__atomic_sub_fetch(&f->left, 1, __ATOMIC_ACQ_REL) == 0)
			finish_file(m, i);
	}
	return NULL;
}

/* Map file I when it is a regular file big enough, from its offset. */
static void
map_file(struct many *m, size_t i)
{
	struct mapped *f = &m->f[i];
	struct stat st;
	off_t at;
	void *p;

	f->map = NULL;
	if (fstat(m->fds[i], &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < MAP_MIN ||
	    (at = lseek(m->fds[i], 0, SEEK_CUR)) != 0 || (uintmax_t)st.st_size > SIZE_MAX)
		return;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, m->fds[i], 0);
	if (p == MAP_FAILED)
		return;
	(void)madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	f->map = p;
	f->len = (size_t)st.st_size;
}

int
ty_numfile_read_many(const int *fds, const char *const *names, size_t n,
		     const struct ty_numfile *opt, unsigned threads,
		     void (*done)(size_t i, void *arg), void *arg, struct ty_numbers *nums,
		     int *rcs, struct ty_error *errs)
{
	struct many m = {fds, names, opt, nums, rcs, errs, done, arg, NULL, NULL, 0, 0};
	pthread_t tid[MAX_PARTS];
	size_t i, k, per, nt = 0;

	if (!threads)
		threads = 1;
	if (threads > MAX_PARTS)
		threads = MAX_PARTS;
	/* one descriptor twice ("-" twice): the first takes it all, as
	 * when read one after the other */
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (fds[i] == fds[k])
				threads = 1;
	per = n < threads ? (threads + n - 1) / n : 1;
	m.f = calloc(n ? n : 1, sizeof(*m.f));
	m.parts = calloc(n * per + 1, sizeof(*m.parts));
	if (!m.f || !m.parts) {
		free(m.f);
		free(m.parts);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct mapped *f = &m.f[i];
		size_t np = 1, at = 0;

		ty_error_clear(&errs[i]);
		rcs[i] = 0;
		if (threads > 1)
			map_file(&m, i);
		if (f->map)
			np = f->len / PART_MIN < per ? f->len / PART_MIN : per;
		if (np < 1)
			np = 1;
		f->first = m.nparts;
		for (k = 0; k < np; k++) {
			struct part *pt = &m.parts[m.nparts];
			size_t to = k + 1 == np ? f->len : f->len / np * (k + 1);

			if (f->map && to < f->len) {
				const char *nl = memchr(f->map + to, '\n', f->len - to);
				to = nl ? (size_t)(nl + 1 - f->map) : f->len;
			}
			if (f->map && to <= at && k + 1 < np)
				continue; /* one line longer than a part */
			pt->m = &m;
			pt->file = i;
			pt->buf = f->map ? f->map + at : NULL;
			pt->len = to - at;
			ty_numbers_init(&pt->own);
			m.nparts++;
			f->nparts++;
			at = to;
		}
		f->left = (int)f->nparts;
	}
	for (i = 0; i < n && !m.f[i].map; i++)
		;
	if (i == n)
		threads = 1; /* small files: a thread costs more than it saves */
	for (k = 1; k < threads && k < m.nparts; k++)
		if (pthread_create(&tid[nt], NULL, worker, &m) == 0)
			nt++;
	worker(&m);
	for (k = 0; k < nt; k++)
		pthread_join(tid[k], NULL);
	free(m.parts);
	free(m.f);
	return 0;
}
