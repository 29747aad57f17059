/* cfi.h - call-frame tables: the CFI of an ELF image (x86-64), and one
 * table per file.
 *
 * A table is built from .eh_frame (found through the section headers or
 * PT_GNU_EH_FRAME) or, where there is none, .debug_frame: a sorted array
 * of rows (pc, CFA rule, rules for RBX, RBP, R12-R15 and the return
 * address), looked up by binary search. The standard PLT expression and
 * the DW_OP_breg/deref expressions of signal trampolines and realigned
 * stacks are understood. Damaged tables give no rows (or fewer), never a
 * crash. The cache makes one table per file, by path, and shares it between
 * the paths of one build-id; the vDSO's is read from tachy's own (the
 * kernel maps the same image into every process). lib/unwind.c walks
 * stacks with these tables; lib/dso.c names code without symbols by their
 * function ranges. Not thread-safe. */
#ifndef TACHY_CFI_H
#define TACHY_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/cfi-parse.h" /* struct ty_cfi_row */
#include "tachy/error.h"

struct ty_cfi_table;

/* Build the unwind table of the ELF image IMAGE (LEN bytes: a file's
 * contents or the vDSO in memory). Returns 0 and *OUT (possibly with no
 * rows: no CFI), or -EINVAL (not a 64-bit ELF image) / -ENOMEM with E set.
 * Damaged CIEs and FDEs are skipped. */
int ty_cfi_table_build(const void *image, size_t len, struct ty_cfi_table **out,
		       struct ty_error *e);

/* The same, lazily: the rows of an FDE are made the first time a pc falls
 * in it (found through .eh_frame_hdr's table; without one, or with one we
 * cannot search, the table is built whole as ty_cfi_table_build does).
 * IMAGE is read as the table is used: the caller keeps it until
 * ty_cfi_table_free. */
int ty_cfi_table_open(const void *image, size_t len, struct ty_cfi_table **out, struct ty_error *e);

/* The row covering the link-time address PC, or NULL (no CFI there). */
const struct ty_cfi_row *ty_cfi_table_find(const struct ty_cfi_table *t, uint64_t pc);

/* The function range of the call-frame information holding the link-time
 * address PC: the FDE covering it, [*START, *END). Returns 0, or -1 when no
 * FDE covers PC (or its entry is damaged). lib/symbols.c names code
 * without symbols by it (DSO+0xSTART). */
int ty_cfi_table_fde(const struct ty_cfi_table *t, uint64_t pc, uint64_t *start, uint64_t *end);

/* Map the file offset OFF to its link-time address through the image's
 * PT_LOAD segments (OFF itself when none holds it). */
uint64_t ty_cfi_table_vaddr(const struct ty_cfi_table *t, uint64_t off);

/* The GNU build-id of the image (from its PT_NOTE segments): its length
 * in bytes and *ID, or 0 when it has none. */
size_t ty_cfi_table_build_id(const struct ty_cfi_table *t, const unsigned char **id);

/* Number of rows (tests). */
size_t ty_cfi_table_rows(const struct ty_cfi_table *t);

void ty_cfi_table_free(struct ty_cfi_table *t);

/* A row for the link-time address VA where the CFI has none but the file
 * says how to unwind (the table of a file, kept mapped). EXACT (VA is the
 * sampled pc): 2 bytes past an FDE ending just before a syscall (glibc's
 * clone and clone3: the parent is sampled in the kernel for the syscall,
 * and the last row before it holds), or the first instruction of _init
 * (DT_INIT; crti.o gives it no CFI) or the one after its endbr64, where
 * the return address is at rsp. Any VA (a return address's call too):
 * inside _init past crti.o's sub $8,%rsp (the calls other objects' .init
 * sections put there), the return address at rsp + 8. NULL when VA is no
 * such place. */
const struct ty_cfi_row *ty_cfi_table_guess(const struct ty_cfi_table *t, uint64_t va, int exact);

/* Whether the code just before VA is a call instruction (direct, through
 * a register, the GOT or a pointer at disp8 from a register): VA may be a
 * return address. 0 where the bytes are not in the file. */
int ty_cfi_table_after_call(const struct ty_cfi_table *t, uint64_t va);

/* The image's entry point (e_entry): the outermost frame of a program or
 * ld.so. */
uint64_t ty_cfi_table_entry(const struct ty_cfi_table *t);

/* One table per file. */
struct ty_cfi_cache;

/* An empty cache; NULL when out of memory. */
struct ty_cfi_cache *ty_cfi_cache_new(void);
void ty_cfi_cache_free(struct ty_cfi_cache *c);

/* The table of the file PATH (an absolute path, read lazily from the file,
 * kept mapped) or of "[vdso]" (tachy's own vDSO, built whole), made the
 * first time it is asked for; a file with the build-id and the segments of
 * one read already shares that one's table. NULL when the file cannot be
 * read, is not a 64-bit ELF file, or PATH names no file ("[heap]",
 * "//anon"). Owned by C. */
struct ty_cfi_table *ty_cfi_cache_get(struct ty_cfi_cache *c, const char *path);

/* Forget the table of PATH (its rows, its mapping of the file), where no
 * other path shares it; a later ty_cfi_cache_get reads the file again.
 * Pointers to it from ty_cfi_cache_get are then dangling. */
void ty_cfi_cache_drop(struct ty_cfi_cache *c, const char *path);

/* Tables built so far (one per file, and one per build-id; tests). */
uint64_t ty_cfi_cache_tables(const struct ty_cfi_cache *c);

#endif
