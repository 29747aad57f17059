/* t-record-diag.c - the unwind diagnostics (TACHY_UNWIND_DEBUG) from
 * records made up here: a complete chain whose frames lie in no mapping
 * known, taken before the process's exec (named with the program it was
 * then, "pre-exec"), a complete chain in a mapping (not written), and a
 * chain lost after the exec with the maps read again, two inside an
 * execve call whose chains the exec probe's replaced (one lost, complete
 * now: not written; one complete, lost now); then the counts by program
 * and cause. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/record-diag.h"

#define T0 1000000000ull

static void
rec_init(struct ty_sampler_rec *r, enum ty_sampler_rec_type type, uint32_t pid, uint64_t time)
{
	memset(r, 0, offsetof(struct ty_sampler_rec, chainbuf));
	r->type = type;
	r->pid = r->tid = pid;
	r->time = time;
}

int
main(void)
{
	struct ty_record_diag g = {0};
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_sampler_rec r;
	uint64_t lib[2] = {0x401000, 0x402000}, mapped[1] = {0x10010};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(syms != NULL && f != NULL);
	if (!syms || !f)
		return check_done();
	ty_symbols_add_mmap(syms, 100, 0x10000, 0x1000, 0, "/bin/true", T0);
	rec_init(&r, TY_SAMPLER_REC_COMM, 100, T0);
	r.name = "prog";
	ty_record_diag_record(&g, &r);
	/* complete, but its frames in no mapping */
	rec_init(&r, TY_SAMPLER_REC_SAMPLE, 100, T0 + 1000000000ull);
	r.user = 1, r.nr = 2, r.chain = lib;
	ty_record_diag_sample(&g, &r, 0, TY_UNWIND_COMPLETE, 0, NULL);
	/* complete and mapped: not written */
	rec_init(&r, TY_SAMPLER_REC_SAMPLE, 100, T0 + 1500000000ull);
	r.user = 1, r.nr = 1, r.chain = mapped;
	ty_record_diag_sample(&g, &r, 0, TY_UNWIND_COMPLETE, 0, NULL);
	/* the program changes; a chain lost after it, the maps read again */
	rec_init(&r, TY_SAMPLER_REC_COMM, 100, T0 + 2000000000ull);
	r.exec = 1, r.name = "next";
	ty_record_diag_record(&g, &r);
	rec_init(&r, TY_SAMPLER_REC_SAMPLE, 100, T0 + 2500000000ull);
	r.user = 1, r.nr = 1, r.chain = mapped, r.stack_dyn = 64, r.stack_size = 8192;
	ty_record_diag_sample(&g, &r, 0, TY_UNWIND_LOST, 1, NULL);
	rec_init(&r, TY_SAMPLER_REC_SAMPLE, 100, T0 + 2600000000ull);
	r.user = 1, r.nr = 1, r.chain = mapped;
	ty_record_diag_sample(&g, &r, 0, TY_UNWIND_LOST, 0, NULL);
	ty_record_diag_exec(&g, 100, T0 + 2600000000ull, 1);
	rec_init(&r, TY_SAMPLER_REC_SAMPLE, 100, T0 + 2700000000ull);
	r.user = 1, r.nr = 1, r.chain = mapped;
	ty_record_diag_sample(&g, &r, 0, TY_UNWIND_COMPLETE, 0, NULL);
	ty_record_diag_exec(&g, 100, T0 + 2700000000ull, 0);
	ty_record_diag_report(&g, f, syms, 100, T0);
	fclose(f);
	CHECK_STR(
	    out, "unwind: pid 100 tid 100 prog (pre-exec) t+1.000s user: complete, stopped: no "
		 "user registers; 2 frames, leaf 0x401000 in (no mapping), last 0x402000 in (no "
		 "mapping); stack copy 0/0 bytes; frame #0 0x401000 in no mapping\n"
		 "unwind: pid 100 tid 100 next (after exec) t+2.500s user: lost, stopped: no user "
		 "registers; 1 frames, leaf 0x10010 in true+0x10, last 0x10010 in true+0x10; stack "
		 "copy 64/8192 bytes (maps read again)\n"
		 "unwind: pid 100 tid 100 next (after exec) t+2.700s user: lost, stopped: no user "
		 "registers; 1 frames, leaf 0x10010 in true+0x10, last 0x10010 in true+0x10; stack "
		 "copy 0/0 bytes\n"
		 "unwind: 3 of 5 samples incomplete or with a frame in no mapping\n"
		 "unwind:      1  prog pre-exec: complete, frame in no mapping\n"
		 "unwind:      2  next after exec: no user registers\n");
	free(out);
	ty_record_diag_release(&g);
	CHECK_INT(g.ndg, 0);
	ty_symbols_free(syms);
	return check_done();
}
