/* resfmt.h - TRANSITIONAL, to be deleted: the old names of figure-text.h,
 * kept only for src/cmd-run.c and src/run-profile.c, which other branches
 * are rewriting at the same time. Once those are merged, rename there
 * (sed -i 's/"resfmt.h"/"figure-text.h"/; s/\bresfmt_/figure_text_/g')
 * and delete this file. */
#ifndef TACHY_RESFMT_H
#define TACHY_RESFMT_H

#include "figure-text.h"

#define resfmt_gate figure_text_gate
#define resfmt_p figure_text_p
#define resfmt_truncate figure_text_truncate
#define resfmt_width figure_text_width

#endif
