/* runhist.h - TRANSITIONAL, to be deleted: the old names of run-history.h,
 * kept only for src/cmd-run.c, which another branch is splitting at the
 * same time. Once that is merged, rename there (sed -i
 * 's/"runhist.h"/"run-history.h"/; s/\brunhist_/run_history_/g;
 * s/\bstruct runhist\b/struct run_history/g') and delete this file. */
#ifndef TACHY_RUNHIST_H
#define TACHY_RUNHIST_H

#include "run-history.h"

#define runhist run_history
#define runhist_stats run_history_stats
#define runhist_prepare run_history_prepare
#define runhist_release run_history_release
#define runhist_bisect_status run_history_bisect_status
#define runhist_finish run_history_finish

#endif
