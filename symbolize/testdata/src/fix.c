/* Fixture program for symbolize tests: global, static, weak and
 * zero-size (assembly label) functions, and calls through the PLT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fixlib_work(int n);

__attribute__((noinline)) static int static_leaf(int x) { return x * 3 + 1; }

__attribute__((noinline, weak)) int weak_leaf(int x) { return x + static_leaf(x); }

__attribute__((noinline)) int global_leaf(int x)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%d", x);
	return (int)strlen(buf) + weak_leaf(x);
}

/* A function the assembler gives no size: perf extends it to the next
 * symbol. */
__asm__(".text\n"
	".globl zero_size_fn\n"
	".type zero_size_fn, @function\n"
	"zero_size_fn:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tret\n");
int zero_size_fn(void);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	zero_size_fn();
	printf("%d %d\n", global_leaf(n), fixlib_work(n));
	return getpid() == 0;
}
