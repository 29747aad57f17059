/* t-record-exec.c - the samples inside an execve call counted by the exec
 * probe's chain of the call (lib/record-exec.c): the same thread and sp,
 * the pc at the call's or in the [uprobes] page, the thread's latest call
 * before the sample, and that call's chain complete; given in any order. */
#include <stdint.h>

#include "check.h"
#include "tachy/record-exec.h"
#include "tachy/symbols.h"

#define SP 0x7ffd1000ull
#define EXECVE 0x7f0000d4ad0ull /* the probed entry */
#define XOL 0x7fffffffe000ull	/* the [uprobes] page */

int
main(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_record_exec x = {0};

	CHECK(syms != NULL);
	ty_symbols_add_mmap(syms, 10, XOL, 4096, 0, "[uprobes]", 1);
	/* lost samples first: the rings give them in no order */
	ty_record_exec_lost(&x, 10, 10, 200, EXECVE + 7, SP);	  /* inside the call: yes */
	ty_record_exec_lost(&x, 10, 10, 150, XOL + 0x80, SP);	  /* its step out of line: yes */
	ty_record_exec_lost(&x, 10, 10, 210, EXECVE + 7, SP + 8); /* another sp */
	ty_record_exec_lost(&x, 10, 10, 220, EXECVE + 64, SP);	  /* not in the call */
	ty_record_exec_lost(&x, 10, 10, 50, EXECVE + 7, SP);	  /* before any call */
	ty_record_exec_lost(&x, 10, 11, 200, EXECVE + 7, SP);	  /* another thread */
	ty_record_exec_lost(&x, 10, 10, 400, EXECVE + 7, SP);	  /* in the later call, lost */
	ty_record_exec_call(&x, 10, 10, 300, EXECVE, SP, 0);
	ty_record_exec_call(&x, 10, 10, 100, EXECVE, SP, 1);
	CHECK_INT((long)ty_record_exec_complete(&x, syms, NULL), 2);
	ty_record_exec_release(&x);
	/* no call at all: none */
	ty_record_exec_lost(&x, 10, 10, 200, EXECVE + 7, SP);
	CHECK_INT((long)ty_record_exec_complete(&x, syms, NULL), 0);
	ty_record_exec_release(&x);
	ty_symbols_free(syms);
	return check_done();
}
