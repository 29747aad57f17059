/* counters-cost.c - the system calls that counting adds to one run, alone:
 * open the default events on a (sleeping) child, read them, close them,
 * through libtachy exactly as `tachy run` does; against one posix_spawn +
 * wait4 of /bin/true, measured in alternating batches. Prints the median
 * per-run cost of each and their ratio. Run by bench/counters-overhead.sh. */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tachy/counters.h"

extern char **environ;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[16];
	struct ty_error e;
	char *targv[] = {"true", NULL};
	double tc[64], ts[64], r[64];
	int reps = argc > 1 ? atoi(argv[1]) : 15, n = argc > 2 ? atoi(argv[2]) : 200, i, k, st;
	int nok = 0;
	pid_t pid, child;

	if (reps > 64)
		reps = 64;
	ty_event_list_init(&l);
	if (ty_event_list_add_defaults(&l, &e) < 0 || ty_counters_init(&c, &l, NULL, &e) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	for (k = 0; k < reps; k++) {
		double t0 = now();

		for (i = 0; i < n; i++) {
			if (ty_counters_open(&c, child, &e) < 0 || ty_counters_read(&c, v, &e) < 0)
				return fprintf(stderr, "%s\n", e.msg), 1;
			ty_counters_close(&c);
		}
		tc[k] = (now() - t0) / n;
		t0 = now();
		for (i = 0; i < n; i++) {
			if (posix_spawn(&pid, "/bin/true", NULL, NULL, targv, environ) != 0)
				return 1;
			waitpid(pid, &st, 0);
		}
		ts[k] = (now() - t0) / n;
		r[k] = tc[k] / ts[k];
	}
	for (i = 0; i < (int)c.n; i++)
		nok += c.c[i].state == TY_COUNTER_OK;
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	qsort(tc, reps, sizeof(double), cmp);
	qsort(ts, reps, sizeof(double), cmp);
	qsort(r, reps, sizeof(double), cmp);
	printf("per run, median of %d batches of %d: counting syscalls (%d events open) %.1f us, "
	       "posix_spawn+wait4 of /bin/true %.1f us: counting adds %.3fx of a spawn\n",
	       reps, n, nok, tc[reps / 2] * 1e6, ts[reps / 2] * 1e6, r[reps / 2]);
	ty_counters_release(&c);
	ty_event_list_release(&l);
	return 0;
}
