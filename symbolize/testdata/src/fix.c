/* Fixture program for symbolize tests: global, static, weak and
 * zero-size (assembly label) functions, calls through the PLT and into a
 * shared library. With an argument N it loops N times (for recording). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fixlib_work(int n);

__attribute__((noinline)) static int static_leaf(int x)
{
	volatile int v = x;
	for (int i = 0; i < 200; i++)
		v = v * 3 + 1;
	return v;
}

__attribute__((noinline, weak)) int weak_leaf(int x) { return x + static_leaf(x); }

__attribute__((noinline)) int global_leaf(int x)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%d", x);
	return (int)strlen(buf) + weak_leaf(x);
}

/* A function the assembler gives no size: perf extends it to the next
 * symbol. It spins for %edi iterations. */
__asm__(".text\n"
	".globl zero_size_fn\n"
	".type zero_size_fn, @function\n"
	"zero_size_fn:\n"
	"\tpush %rbp\n\tmov %rsp, %rbp\n"
	"1:\tnop\n\tnop\n\tdec %edi\n\tjg 1b\n"
	"\tpop %rbp\n\tret\n");
int zero_size_fn(int n);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long s = 0;
	for (long i = 0; i < n; i++) {
		zero_size_fn(300);
		s += global_leaf((int)i) + fixlib_work((int)(i & 15));
	}
	printf("%ld\n", s);
	return getpid() == 0;
}
