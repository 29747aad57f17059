/* run-habits.h - tachy run in the ways its peers' users type it (src/ only).
 *
 * perf stat's options that have no meaning for tachy run (it counts the
 * commands it starts, whole runs, per command) are refused with what tachy
 * offers instead; perf stat's defaults under --perf-stat (one run, the
 * command's output shown); a prepare command that is a process id
 * (perf stat -p PID typed to tachy run, whose -p is --prepare). */
#ifndef TACHY_RUN_HABITS_H
#define TACHY_RUN_HABITS_H

#include "cli.h"
#include "tachy/runner.h"

#define RUN_HABIT_ALL_CPUS                                                                         \
	"tachy run counts the commands it starts, not the whole system (perf stat "                \
	"-a): run the workload as the command, and see what else runs with tachy env"
#define RUN_HABIT_PER_CPU                                                                          \
	"tachy run counts per command, not per CPU, core or socket: pin the command "              \
	"with --cpu LIST to count it on chosen CPUs"
#define RUN_HABIT_INTERVAL                                                                         \
	"tachy run counts whole runs, not intervals (perf stat -I): -r N gives N runs and "        \
	"their spread; tachy record and tachy report --firefox show the time as it goes"
#define RUN_HABIT_ATTACH                                                                           \
	"tachy run counts the commands it starts; it does not attach to a running "                \
	"process (perf stat -p/-t): tachy record -p PID samples one"

/* perf stat's options, not listed in the help, each refused with the tachy way. */
#define RUN_HABIT_OPTIONS()                                                                        \
	OPT_REFUSED('a', "all-cpus", NULL, RUN_HABIT_ALL_CPUS),                                    \
	    OPT_REFUSED('A', "no-aggr", NULL, RUN_HABIT_PER_CPU),                                  \
	    OPT_REFUSED(0, "per-core", NULL, RUN_HABIT_PER_CPU),                                   \
	    OPT_REFUSED(0, "per-socket", NULL, RUN_HABIT_PER_CPU),                                 \
	    OPT_REFUSED(0, "per-die", NULL, RUN_HABIT_PER_CPU),                                    \
	    OPT_REFUSED(0, "per-thread", NULL, RUN_HABIT_PER_CPU),                                 \
	    OPT_REFUSED('I', "interval-print", "MSECS", RUN_HABIT_INTERVAL),                       \
	    OPT_REFUSED(0, "pid", "PID", RUN_HABIT_ATTACH),                                        \
	    OPT_REFUSED('t', "tid", "TID", RUN_HABIT_ATTACH)

/* After the options: refuse a --prepare that is a process id (perf stat's
 * -p PID: tachy run's -p is --prepare), then give --perf-stat perf stat's
 * defaults where the options left them: one run (no -r, -m, -M or
 * --max-time given), the command's output shown (no --output given).
 * Returns 0 or an exit status after saying why. */
int run_habits_check(struct ty_runner_opts *ro, const struct cli_strings *prepare, int perf_stat,
		     int output_given);

/* Refuse commands typed as one program and its arguments without quotes
 * (tachy run -r 5 ./prog 200000: two commands, './prog' and '200000'):
 * when the first command's program exists and every later command is one
 * word that is no program but a number or a file here, say so and give the one
 * command to type, the rest of ARGV[1..ARGC) as typed. Returns 0 (not
 * so) or EXIT_USAGE after saying why. */
int run_habits_two_commands(const struct cli_strings *cmds, int argc, char **argv);

#endif
