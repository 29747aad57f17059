/* forkexec.c - forks; the child execs CHILD (-DCHILD="\"/path\""); the
 * parent waits for it. */
#include "sys.h"

volatile long sink;

void
_start(void)
{
	static char *argv[] = {CHILD, 0};
	static char *envp[] = {0};
	long pid;

	for (long i = 0; i < 5000; i++)
		sink += i;
	pid = sys3(57, 0, 0, 0); /* fork */
	if (pid == 0) {
		sys3(59, (long)CHILD, (long)argv, (long)envp); /* execve */
		sys_exit(127);
	}
	sys4(61, -1, 0, 0, 0); /* wait4 */
	sys_exit(0);
}
