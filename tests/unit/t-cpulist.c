/* t-cpulist.c - CPU lists ("0-3,6"): parsing, membership, writing back. */
#include <errno.h>

#include "check.h"
#include "tachy/cpulist.h"

static void
good(const char *text, int limit, const char *want, size_t n)
{
	struct ty_cpulist l;
	struct ty_error e = {0};
	char buf[64];

	CHECK_INT(ty_cpulist_parse(&l, text, limit, &e), 0);
	CHECK_INT(l.n, n);
	CHECK_STR(ty_cpulist_format(&l, buf, sizeof(buf)), want);
	ty_cpulist_release(&l);
}

static void
bad(const char *text, int limit, const char *msg)
{
	struct ty_cpulist l;
	struct ty_error e = {0};

	CHECK_INT(ty_cpulist_parse(&l, text, limit, &e), -EINVAL);
	CHECK_INT(l.n, 0);
	CHECK(l.cpus == NULL);
	CHECK_STR(e.msg, msg);
}

int
main(void)
{
	struct ty_cpulist l;
	struct ty_error e = {0};
	char small[8];

	good("0", 2, "0", 1);
	good("1", 2, "1", 1);
	good("0-3,6", 8, "0-3,6", 5);
	good("6,0-3", 8, "0-3,6", 5);
	good("0,1,2", 8, "0-2", 3);
	good("3,3,3-3", 8, "3", 1);
	good("0-1,1-2", 0, "0-2", 3);
	good("4095", 0, "4095", 1);
	bad("", 8, "the CPU list is empty: give CPUs as 0 or 0-3,6");
	bad("2", 2, "CPU 2 does not exist here (CPUs 0 to 1; see /sys/devices/system/cpu/online)");
	bad("3-1", 8, "CPU range 3-1 runs backwards");
	bad("0-x", 8,
	    "'0-x' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad("0,", 8,
	    "'0,' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad(" 1", 8,
	    "' 1' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad("1 ", 8,
	    "'1 ' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad("-1", 8,
	    "'-1' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad("999999", 0,
	    "'999999' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	bad("0:2", 8,
	    "'0:2' is not a CPU list (give CPUs as 0 or 0-3,6: numbers and ranges joined by "
	    "commas)");
	CHECK_INT(ty_cpulist_parse(&l, "0-2,5,7", 8, &e), 0);
	CHECK(ty_cpulist_has(&l, 0) && ty_cpulist_has(&l, 2) && ty_cpulist_has(&l, 7));
	CHECK(!ty_cpulist_has(&l, 3) && !ty_cpulist_has(&l, 6) && !ty_cpulist_has(&l, -1));
	CHECK_STR(ty_cpulist_format(&l, small, sizeof(small)), "0-2...");
	ty_cpulist_release(&l);
	return check_done();
}
