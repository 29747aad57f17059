/* elfsyms.h - the symbols of an ELF file, read through libelf into a
 * struct ty_symtab: the function symbols of .symtab and .dynsym (and code
 * labels without a type, such as ld.so's _start), and names for the
 * entries of the x86-64 PLT ("malloc@plt"; a library's IRELATIVE entry for
 * one of its own IFUNCs by that IFUNC, else objdump's "*ABS*+0xADDR@plt").
 * lib/dso.c reads a file with it, and its debug files. Without elfutils
 * (no HAVE_LIBELF) this module is empty. */
#ifndef TACHY_ELFSYMS_H
#define TACHY_ELFSYMS_H

#include <elf.h>

#include "tachy/symtab.h"

struct Elf;	/* libelf's Elf */
struct Elf_Scn; /* libelf's Elf_Scn */

/* Add the symbols of ELF's symbol tables to T. Returns 1 when it had a
 * .symtab (a full table, damaged or not), 0 when only .dynsym or nothing.
 * A damaged table (its entry size, its place in the file, its string
 * table, symbols' names or sections out of range) is said in W, naming
 * PATH and what is wrong; what can be read of it is kept. */
int ty_elfsyms_read(struct ty_symtab *t, struct Elf *elf, struct ty_symtab_warnings *w,
		    const char *path);

/* Add the PLT entries of ELF (an x86-64 file) to T, named for the symbols
 * their GOT slots or lazy stubs resolve. Call after ty_elfsyms_read (an
 * IRELATIVE entry is named by the IFUNC symbol read). */
void ty_elfsyms_plt(struct ty_symtab *t, struct Elf *elf);

/* Name a stripped program's entry point `_start` in T (the range of the
 * CFI that begins at e_entry, in a file with a program interpreter and no
 * symbol there), and `main` what _start hands __libc_start_main (x86-64's
 * lea/mov to %rdi); ld.so's entry without CFI: its first 0x40 bytes up to
 * the next FDE. CFI: the file's call-frame table (NULL: nothing named). */
struct ty_cfi_table;
void ty_elfsyms_entry(struct ty_symtab *t, struct Elf *elf, const struct ty_cfi_table *cfi);

/* The section of ELF called NAME, its header in *SH; NULL if none. */
struct Elf_Scn *ty_elfsyms_section(struct Elf *elf, const char *name, Elf64_Shdr *sh);

#endif
