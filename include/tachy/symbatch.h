/* symbatch.h - addresses resolved in one batch, file by file: the caller
 * asks for every address it will need, then the batch reads each file,
 * resolves all of that file's addresses and lets go of the file before the
 * next (ty_dso_release), so that one file's tables at a time are in memory
 * (a system-wide profile samples hundreds of files, libLLVM's tables alone
 * take tens of megabytes). The results are those ty_symbols_resolve and
 * ty_symbols_frames give, their strings copied into the batch. Files are
 * read in the order their first addresses were asked for (the order of the
 * symbol reader's warnings). Not thread-safe. */
#ifndef TACHY_SYMBATCH_H
#define TACHY_SYMBATCH_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/symbols.h"

struct ty_symbatch;

/* An empty batch over the address spaces and files of S (the caller's,
 * kept as long as the batch) that keeps up to MAX_FRAMES frames of each
 * address (ty_symbols_frames's MAX). NULL when out of memory. */
struct ty_symbatch *ty_symbatch_new(struct ty_symbols *s, size_t max_frames);
void ty_symbatch_free(struct ty_symbatch *b);

/* Ask for the user address IP (below TY_KERNEL_START) of PID at TIME,
 * under the caller's TAG (the same IP and PID under another tag is another
 * address: another epoch of the process's mappings). The first ask of a
 * (PID, TAG, IP) sets its TIME. Returns 0, -EINVAL for a kernel address, or
 * -ENOMEM. */
int ty_symbatch_add(struct ty_symbatch *b, uint32_t pid, uint32_t tag, uint64_t ip, uint64_t time);

/* Resolve every address asked for, file by file, each file let go once its
 * addresses are resolved. Returns 0, or -ENOMEM. */
int ty_symbatch_run(struct ty_symbatch *b);

/* The result of (PID, TAG, IP) after ty_symbatch_run: R as
 * ty_symbols_resolve gave it (its handle NULL) and the frames
 * ty_symbols_frames gave into FRAMES (up to MAX, and the batch's MAX_FRAMES). Returns the number of
 * frames, or -1 when the address was not asked for. Strings live as long as B. */
long ty_symbatch_get(const struct ty_symbatch *b, uint32_t pid, uint32_t tag, uint64_t ip,
		     struct ty_sym_result *r, struct ty_dso_frame *frames, size_t max);

/* How many times a file was let go in ty_symbatch_run (tests). */
size_t ty_symbatch_released(const struct ty_symbatch *b);

#endif
