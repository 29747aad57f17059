/* record-args.h - tachy record's command line: its options parsed and
 * checked into one struct (record-args.c); cmd-record.c records with
 * them. */
#ifndef TACHY_RECORD_ARGS_H
#define TACHY_RECORD_ARGS_H

#include <stdint.h>

#include "cli.h"
#include "tachy/cpulist.h"
#include "tachy/record.h"

struct record_opts {
	const char *event, *output;
	long freq, period, pid, pages;
	int off_cpu; /* TY_OFFCPU_* */
	int callchain, user, quiet, proc_maps, mmap_records;
	enum ty_callgraph cg;
	long stack_size;
	uint64_t switch_chains; /* 0: the default; TY_RECORD_CHAINS_ALL */
	char **argv;
	int all;		  /* -a */
	const char *cpu_list;	  /* -C */
	double duration;	  /* --duration, seconds (0: none) */
	int fallback;		  /* --fallback */
	struct ty_cpulist cpus;	  /* -C parsed */
	int cg_given;		  /* --call-graph named the mode */
	struct cli_strings calls; /* --calls */
};

/* Parse tachy record's ARGV into *O (zeroed first). 0: record; -1: done
 * (--help printed); otherwise the exit status after the usage error said. */
int record_parse_args(int argc, char **argv, struct record_opts *o);

#endif
