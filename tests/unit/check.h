/* check.h - the smallest unit-test harness that reports well.
 *
 *   CHECK(cond)                   a boolean
 *   CHECK_INT(a, b)               integers equal
 *   CHECK_STR(a, b)               strings equal (NULL-safe)
 *   CHECK_NEAR(a, b, tol)         |a-b| <= tol
 *   CHECK_REL(a, b, rel)          |a-b| <= rel*|b| (exact when b == 0)
 * End main() with `return check_done();`. The last line a test binary
 * prints is "# checks P F", which tests/run-tests.sh adds up. */
#ifndef TACHY_CHECK_H
#define TACHY_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_pass, check_fail;

static inline int
check_report(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		check_pass++;
	} else {
		check_fail++;
		printf("FAIL %s:%d: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(c) check_report(!!(c), __FILE__, __LINE__, #c)
#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (!check_report(a_ == b_, __FILE__, __LINE__, #a " == " #b))                     \
			printf("     got %lld, expected %lld\n", a_, b_);                          \
	} while (0)
#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		int ok_ = (a_ && b_) ? strcmp(a_, b_) == 0 : a_ == b_;                             \
		if (!check_report(ok_, __FILE__, __LINE__, #a " == " #b))                          \
			printf("     got \"%s\", expected \"%s\"\n", a_ ? a_ : "(null)",           \
			       b_ ? b_ : "(null)");                                                \
	} while (0)
#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!check_report(fabs(a_ - b_) <= (tol), __FILE__, __LINE__, #a " ~ " #b))        \
			printf("     got %.17g, expected %.17g (tol %g)\n", a_, b_,                \
			       (double)(tol));                                                     \
	} while (0)
#define CHECK_REL(a, b, rel)                                                                       \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		int ok_ = b_ == 0 ? a_ == 0 : fabs(a_ - b_) <= (rel)*fabs(b_);                     \
		if (!check_report(ok_, __FILE__, __LINE__, #a " ~ " #b))                           \
			printf("     got %.17g, expected %.17g (rel %g)\n", a_, b_,                \
			       (double)(rel));                                                     \
	} while (0)

static inline int
check_done(void)
{
	printf("# checks %d %d\n", check_pass, check_fail);
	return check_fail ? 1 : 0;
}

#endif
