/* urandom.c - a loop whose length comes from /dev/urandom: another
 * instruction count every run. */
#include "sys.h"

volatile long sink;

void
_start(void)
{
	unsigned int r = 0;
	long fd = sys3(2, (long)"/dev/urandom", 0, 0); /* open */

	if (fd < 0 || sys3(0, fd, (long)&r, sizeof(r)) != sizeof(r)) /* read */
		sys_exit(1);
	for (long i = 0; i < 1000 + (long)(r & 0xfffff); i++)
		sink += i;
	sys_exit(0);
}
