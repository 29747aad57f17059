/* run-habits.c - tachy run in the ways its peers' users type it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run-habits.h"
#include "tachy/argv.h"
#include "tachy/spawn.h"

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

/* Is W, a command of its own, an argument rather than a program: one word,
 * not found as a program (no '/', no parameter {NAME}), that is a number or
 * names a file here (a missing program stays "command not found")? */
static int
argument_like(const char *w)
{
	char path[PATH_MAX], *end;
	struct ty_error e;
	struct stat st;

	if (!*w || strpbrk(w, " \t\n/{") || ty_spawn_resolve(w, path, sizeof(path), &e) != -ENOENT)
		return 0;
	(void)strtod(w, &end);
	return !*end || stat(w, &st) == 0;
}

int
run_habits_two_commands(const struct cli_strings *cmds, int argc, char **argv)
{
	char path[PATH_MAX], **words = NULL, *cmd, *quoted, *line;
	struct ty_error e;
	size_t i, k, len;
	int rc, n;

	if (cmds->n < 2 || strchr(cmds->v[0], '{'))
		return 0;
	for (i = 1; i < cmds->n; i++)
		if (!argument_like(cmds->v[i]))
			return 0;
	if ((n = ty_argv_split(cmds->v[0], &words, &e)) < 1 ||
	    ty_spawn_resolve(words[0], path, sizeof(path), &e) < 0) {
		free(words);
		return 0;
	}
	free(words);
	/* the one command: the words joined, quoted as one; the rest of the
	 * command line as typed, less the commands */
	for (len = 1, i = 0; i < cmds->n; i++)
		len += strlen(cmds->v[i]) + 1;
	if (!(cmd = calloc(len, 1)))
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (i = 0; i < cmds->n; i++) {
		if (i)
			strcat(cmd, " ");
		strcat(cmd, cmds->v[i]);
	}
	quoted = ty_argv_join(&cmd, 1);
	if (!(words = calloc((size_t)argc + 2, sizeof(*words))) || !quoted) {
		free(words);
		free(quoted);
		free(cmd);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	for (k = 0, i = 1; i < (size_t)argc; i++) {
		size_t j;
		for (j = 0; j < cmds->n && argv[i] != cmds->v[j]; j++)
			;
		if (j == cmds->n)
			words[k++] = argv[i];
	}
	line = ty_argv_join(words, k);
	rc =
	    cli_usage_error("'%s' is not a program: these are %zu commands ('%s', then '%s'%s), "
			    "not one program with its arguments; to run '%s', quote it as one "
			    "command: tachy run %s%s%s",
			    cmds->v[1], cmds->n, cmds->v[0], cmds->v[1], cmds->n > 2 ? ", ..." : "",
			    cmd, line ? line : "", k ? " " : "", quoted);
	free(line);
	free(words);
	free(quoted);
	free(cmd);
	return rc;
}
