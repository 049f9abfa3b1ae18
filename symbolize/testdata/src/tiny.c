// A tiny program for the FuzzELFSymbols seeds (see gen-fuzz.sh).
extern int lib_add(int, int);

static int helper(int x) { return x * 3 + 1; }
__attribute__((weak)) int weakfn(int x) { return helper(x) ^ 5; }
int global_counter;

__asm__(".text\n.globl zero_size\nzero_size:\n");

void _start(void) {
	global_counter = lib_add(weakfn(global_counter), helper(2));
	__asm__ volatile("mov $60, %eax\n xor %edi, %edi\n syscall");
}
