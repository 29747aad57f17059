/* unwind-prog.c - built by t-unwind with -O2 -fomit-frame-pointer: takes
 * snapshots of its registers and stack (as a sample would carry them) in
 * known call chains, and writes each with a copy of its maps to
 * DIR/N/snap and DIR/N/maps. 1: alloca in the chain; 2: a signal handler;
 * 3, 4: two threads; 5: a library loaded with dlopen (argv[2]); 6: a
 * return address kept in a register, as glibc's vfork does; 7: the pc 2
 * bytes past an FDE that ends before a syscall, as glibc's clone3 does; 8:
 * the first instruction of _init (no CFI), as when it is first called; 9:
 * inside an assembly leaf without CFI (as libgmp's), nothing pushed; 10:
 * a function without CFI entered at its endbr64; 11: a leaf past its
 * epilogue's pop %rbp; 12: a call put into _init by an .init section. */
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAP_STACK 16384

struct snap {
	uint64_t regs[24]; /* PERF_REG_X86_* order */
	uint64_t len;
	unsigned char stack[SNAP_STACK];
};

struct snap g_snap;
uint64_t g_stack_end;
static const char *g_dir;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The state of its caller right after the call: pc = the return address,
 * sp above it; the stack from there up to g_stack_end (at most
 * SNAP_STACK bytes) is copied. */
void tsnap(void);
__asm__(".text\n"
	".globl tsnap\n"
	".type tsnap,@function\n"
	"tsnap:\n"
	".cfi_startproc\n"
	"movq %rax, g_snap+0(%rip)\n"
	"movq %rbx, g_snap+8(%rip)\n"
	"movq %rcx, g_snap+16(%rip)\n"
	"movq %rdx, g_snap+24(%rip)\n"
	"movq %rsi, g_snap+32(%rip)\n"
	"movq %rdi, g_snap+40(%rip)\n"
	"movq %rbp, g_snap+48(%rip)\n"
	"leaq 8(%rsp), %rax\n"
	"movq %rax, g_snap+56(%rip)\n"
	"movq (%rsp), %rax\n"
	"movq %rax, g_snap+64(%rip)\n"
	"movq %r8, g_snap+128(%rip)\n"
	"movq %r9, g_snap+136(%rip)\n"
	"movq %r10, g_snap+144(%rip)\n"
	"movq %r11, g_snap+152(%rip)\n"
	"movq %r12, g_snap+160(%rip)\n"
	"movq %r13, g_snap+168(%rip)\n"
	"movq %r14, g_snap+176(%rip)\n"
	"movq %r15, g_snap+184(%rip)\n"
	"movq g_stack_end(%rip), %rcx\n"
	"subq g_snap+56(%rip), %rcx\n"
	"cmpq $16384, %rcx\n"
	"jbe 1f\n"
	"movq $16384, %rcx\n"
	"1:\n"
	"movq %rcx, g_snap+192(%rip)\n"
	"movq g_snap+56(%rip), %rsi\n"
	"leaq g_snap+200(%rip), %rdi\n"
	"rep movsb\n"
	"ret\n"
	".cfi_endproc\n"
	".size tsnap, .-tsnap\n");

/* 6: vfork pops its return address into rdi before the syscall (the
 * child must not find it on the shared stack): CFA = rsp, rip in rdi. */
void t6_vfork(void);
uint64_t t6_ra;
__asm__(".text\n"
	".globl t6_vfork\n"
	".type t6_vfork,@function\n"
	"t6_vfork:\n"
	".cfi_startproc\n"
	"popq %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_register rip, rdi\n"
	"movq %rdi, t6_ra(%rip)\n"
	"call tsnap\n"
	"movq t6_ra(%rip), %rdi\n"
	"pushq %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_restore rip\n"
	"ret\n"
	".cfi_endproc\n"
	".size t6_vfork, .-t6_vfork\n");

/* 7: clone3 ends its FDE before the syscall; the parent, sampled in the
 * kernel, is at the instruction after it (t7_after: the snapshot's pc is
 * moved there; the stack is the same as at the call of tsnap). */
void t7_gap(void);
extern char t7_after[];
__asm__(".text\n"
	".globl t7_gap\n"
	".type t7_gap,@function\n"
	"t7_gap:\n"
	".cfi_startproc\n"
	"subq $24, %rsp\n"
	".cfi_adjust_cfa_offset 24\n"
	"call tsnap\n"
	"jmp 2f\n"
	"movl $435, %eax\n"
	".cfi_endproc\n"
	"syscall\n"
	".globl t7_after\n"
	"t7_after:\n"
	"nop\n"
	"2:\n"
	"addq $24, %rsp\n"
	"ret\n"
	".size t7_gap, .-t7_gap\n");

/* 8: the state at the first instruction of a function just called (the
 * snapshot's pc is moved to _init: the return address is at sp). */
void t8_snap(void);
extern void _init(void);
__asm__(".text\n"
	".globl t8_snap\n"
	".type t8_snap,@function\n"
	"t8_snap:\n"
	".cfi_startproc\n"
	"call tsnap\n"
	"ret\n"
	".cfi_endproc\n"
	".size t8_snap, .-t8_snap\n");

/* 9: the snapshot's pc moved into t9_nocfi, a leaf without CFI (the return
 * address into t9_call at sp, as t8_snap left it). */
void t9_nocfi(void);
extern const char t9_nocfi_mid[];
__asm__(".text\n"
	".globl t9_nocfi\n"
	".type t9_nocfi,@function\n"
	"t9_nocfi:\n"
	"movq %rdi, %rax\n"
	".globl t9_nocfi_mid\n"
	"t9_nocfi_mid:\n"
	"addq $1, %rax\n"
	"ret\n"
	".size t9_nocfi, .-t9_nocfi\n");

/* 10: the snapshot's pc moved to the first instruction of t10_endbr, a
 * function without CFI that starts with endbr64 (crt's frame_dummy, called
 * by ld.so): nothing pushed yet, the return address at sp. t10_tramp
 * enters t8_snap by a push and a jump, so that address follows no call:
 * only the endbr64 rule finds t10_tramp (a scan for a return address
 * after a call would skip it). */
void t10_tramp(void);
__asm__(".text\n"
	".globl t10_tramp\n"
	".type t10_tramp,@function\n"
	"t10_tramp:\n"
	".cfi_startproc\n"
	"leaq 1f(%rip), %rax\n"
	"pushq %rax\n" /* as a call's: the callee's return address */
	"jmp t8_snap\n"
	"1:\n"
	"ret\n"
	".cfi_endproc\n"
	".size t10_tramp, .-t10_tramp\n");
void t10_endbr(void);
__asm__(".text\n"
	".globl t10_endbr\n"
	".type t10_endbr,@function\n"
	"t10_endbr:\n"
	".byte 0xf3, 0x0f, 0x1e, 0xfa\n" /* endbr64 */
	"pushq %rbx\n"
	"popq %rbx\n"
	"ret\n"
	".size t10_endbr, .-t10_endbr\n");

/* 11: the snapshot's pc moved right after the pop %rbp of t11_leaf's
 * epilogue, whose CFI (as GCC writes it) still puts %rbp at CFA - 16,
 * below sp now (no stack copy holds it: the register holds the value);
 * t11_outer's CFA is by %rbp. */
void t11_outer(void);
extern const char t11_popped[];
__asm__(".text\n"
	".globl t11_leaf\n"
	".type t11_leaf,@function\n"
	"t11_leaf:\n"
	".cfi_startproc\n"
	"pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset rbp, -16\n"
	"movq %rsp, %rbp\n"
	".cfi_def_cfa_register rbp\n"
	"popq %rbp\n"
	".cfi_def_cfa rsp, 8\n"
	".globl t11_popped\n"
	"t11_popped:\n"
	"call tsnap\n"
	"ret\n"
	".cfi_endproc\n"
	".size t11_leaf, .-t11_leaf\n"
	".globl t11_outer\n"
	".type t11_outer,@function\n"
	"t11_outer:\n"
	".cfi_startproc\n"
	"pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset rbp, -16\n"
	"movq %rsp, %rbp\n"
	".cfi_def_cfa_register rbp\n"
	"subq $32, %rsp\n"
	"call t11_leaf\n"
	"leave\n"
	".cfi_def_cfa rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size t11_outer, .-t11_outer\n");

/* 12: a call that another object's .init section puts into _init, between
 * crti.o's prologue and crtn.o's epilogue (as OpenSSL's does in node):
 * t12_init takes the snapshot before main, which saves it. */
void t12_init(void);
__asm__(".section .init,\"ax\",@progbits\n"
	"call t12_init\n"
	".text\n");

void
tsave(int n)
{
	char path[4096], buf[65536];
	ssize_t k;
	int in, out;

	snprintf(path, sizeof(path), "%s/%d", g_dir, n);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/snap", g_dir, n);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0 || write(out, &g_snap, sizeof(g_snap)) != (ssize_t)sizeof(g_snap))
		exit(3);
	close(out);
	snprintf(path, sizeof(path), "%s/%d/maps", g_dir, n);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	in = open("/proc/self/maps", O_RDONLY);
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k)
			exit(3);
	close(in);
	close(out);
}

/* The end of the stack the calling thread runs on. */
static uint64_t
stack_end(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	return (uint64_t)(uintptr_t)addr + size;
}

volatile int sink;

__attribute__((noinline)) void
t1_leaf(int n)
{
	g_stack_end = stack_end();
	tsnap();
	tsave(n);
	sink++;
}

__attribute__((noinline)) void
t1_mid(int n)
{
	char *p = alloca(40 + (size_t)(sink & 7) * 100);
	memset(p, n, 40);
	sink += p[1];
	t1_leaf(n);
	sink++;
}

__attribute__((noinline)) void
t1_top(int n)
{
	t1_mid(n);
	sink++;
}

__attribute__((noinline)) void
t2_handler(int sig)
{
	tsnap();
	tsave(2);
	sink += sig;
}

__attribute__((noinline)) void
t2_raise(void)
{
	g_stack_end = stack_end();
	kill(getpid(), SIGUSR1);
	sink++;
}

__attribute__((noinline)) void
t3_leaf(long n)
{
	pthread_mutex_lock(&lock);
	g_stack_end = stack_end();
	tsnap();
	tsave((int)n);
	pthread_mutex_unlock(&lock);
	sink++;
}

__attribute__((noinline)) void *
t3_thread(void *arg)
{
	t3_leaf((long)arg);
	sink++;
	return NULL;
}

__attribute__((noinline)) void
t4_call(void (*fn)(void))
{
	g_stack_end = stack_end();
	fn();
	sink++;
}

__attribute__((noinline)) void
t6_call(void)
{
	g_stack_end = stack_end();
	t6_vfork();
	tsave(6);
	sink++;
}

__attribute__((noinline)) void
t7_call(void)
{
	g_stack_end = stack_end();
	t7_gap();
	g_snap.regs[8] = (uint64_t)(uintptr_t)t7_after;
	tsave(7);
	sink++;
}

__attribute__((noinline)) void
t8_call(void)
{
	g_stack_end = stack_end();
	t8_snap();
	g_snap.regs[8] = (uint64_t)(uintptr_t)_init;
	tsave(8);
	sink++;
}

__attribute__((noinline)) void
t9_call(void)
{
	g_stack_end = stack_end();
	t8_snap();
	g_snap.regs[8] = (uint64_t)(uintptr_t)t9_nocfi_mid;
	tsave(9);
	sink++;
}

__attribute__((noinline)) void
t10_call(void)
{
	g_stack_end = stack_end();
	t10_tramp();
	g_snap.regs[8] = (uint64_t)(uintptr_t)t10_endbr;
	tsave(10);
	sink++;
}

__attribute__((noinline)) void
t11_call(void)
{
	g_stack_end = stack_end();
	t11_outer();
	g_snap.regs[8] = (uint64_t)(uintptr_t)t11_popped;
	tsave(11);
	sink++;
}

static struct snap t12_snap;

__attribute__((noinline, used)) void
t12_init(void)
{
	g_stack_end = stack_end();
	tsnap();
	t12_snap = g_snap;
}

int
main(int argc, char **argv)
{
	pthread_t a, b;
	void *lib;
	void (*fn)(void);

	if (argc < 3)
		return 2;
	g_dir = argv[1];
	t1_top(1);
	signal(SIGUSR1, t2_handler);
	t2_raise();
	pthread_create(&a, NULL, t3_thread, (void *)3L);
	pthread_join(a, NULL);
	pthread_create(&b, NULL, t3_thread, (void *)4L);
	pthread_join(b, NULL);
	if (!(lib = dlopen(argv[2], RTLD_NOW)) || !(fn = (void (*)(void))dlsym(lib, "lib_fn")))
		return 4;
	t4_call(fn);
	t6_call();
	t7_call();
	t8_call();
	t9_call();
	t10_call();
	t11_call();
	g_snap = t12_snap;
	tsave(12);
	return 0;
}
