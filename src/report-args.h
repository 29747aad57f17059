/* report-args.h - tachy report's command line: its options parsed and
 * checked into one struct (report-args.c), the views drawn from it in
 * cmd-report.c. */
#ifndef TACHY_REPORT_ARGS_H
#define TACHY_REPORT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "tachy/cpulist.h"
#include "tachy/profile-match.h"
#include "tachy/profile-views.h"

enum mode { M_FLAT, M_CALLERS, M_CALLEES, M_TREE, M_FOLDED, M_DIFF };

struct report_opts {
	enum mode mode;
	enum ty_prof_sort sort;
	enum ty_prof_by by;
	long limit;
	double min;
	const char *sym, *flame, *pprof, *title, *file, *old, *new_;
	const char *firefox, *speedscope;
	const char *event, *convert; /* perf.data: -e NAME; --convert OUT.prof */
	int on_cpu, off_cpu;
	enum ty_match_mode match; /* --diff: how the two profiles' functions meet */
	struct cli_strings comm_args, pid_args;
	const char *cpu_arg;
	const char **comms; /* --comm, split at commas */
	size_t ncomms;
	uint32_t *pids; /* --pid */
	size_t npids;
	struct ty_cpulist cpus; /* --cpu */
	int filtered;
	char **dups; /* a copy of each --comm, split in place into COMMS */
};

/* Parse tachy report's ARGV into *O (zeroed first). 0: run it; -1: done
 * (--help printed); otherwise the exit status after the usage error said.
 * Release *O with report_opts_release whatever it returns. */
int report_parse_args(int argc, char **argv, struct report_opts *o);
void report_opts_release(struct report_opts *o);

#endif
