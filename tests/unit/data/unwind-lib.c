/* unwind-lib.c - the library unwind-prog.c loads with dlopen. */
void tsnap(void);
void tsave(int n);
volatile int lib_sink;

__attribute__((noinline)) void
lib_inner(void)
{
	tsnap();
	tsave(5);
	lib_sink++;
}

void
lib_fn(void)
{
	lib_inner();
	lib_sink++;
}
