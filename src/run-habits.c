/* run-habits.c - tachy run in the ways its peers' users type it. */
#include <string.h>

#include "run-habits.h"

/* Is S a process id (digits only)? */
static int
is_pid(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int
run_habits_check(struct ty_runner_opts *ro, const struct cli_strings *prepare, int perf_stat,
		 int output_given)
{
	size_t i;

	for (i = 0; i < prepare->n; i++)
		if (is_pid(prepare->v[i]))
			return cli_usage_error(
			    "-p %s: -p is --prepare in tachy run (a command before every run, "
			    "perf stat's --pre), and '%s' looks like a process id: %s",
			    prepare->v[i], prepare->v[i], RUN_HABIT_ATTACH);
	if (!perf_stat)
		return 0;
	/* perf stat runs once unless -r says otherwise; adaptive runs only
	 * when an option of theirs asks for them */
	if (!ro->runs && !ro->max_runs && ro->min_runs == 10 && ro->max_time == 10)
		ro->runs = 1;
	if (!output_given)
		ro->output = TY_OUTPUT_INHERIT;
	return 0;
}
