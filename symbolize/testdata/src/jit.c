/* JIT fixture: copies a tiny counting loop into anonymous executable
 * memory, describes it in /tmp/perf-PID.map the way JIT runtimes do, and
 * runs it. Usage: fix-jit ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov %edi,%ecx; 1: dec %ecx; jnz 1b; ret */
static const unsigned char loop_code[] = {0x89, 0xf9, 0xff, 0xc9, 0x75, 0xfc, 0xc3};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, loop_code, sizeof loop_code);
	memcpy(mem + 0x200, loop_code, sizeof loop_code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return 1;
	fprintf(f, "%lx %zx jit_loop_a\n", (unsigned long)(mem + 0x100), sizeof loop_code);
	fprintf(f, "%lx %zx _ZN3jit6Engine3runEv\n", (unsigned long)(mem + 0x200), sizeof loop_code);
	fclose(f);
	void (*a)(int) = (void (*)(int))(mem + 0x100);
	void (*b)(int) = (void (*)(int))(mem + 0x200);
	for (long i = 0; i < n; i++) {
		a(20000);
		b(10000);
	}
	return 0;
}
