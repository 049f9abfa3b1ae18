// Functions whose call frame information seeds FuzzCFI (see gen.sh).
#include <alloca.h>
#include <string.h>

// A frame-pointer function with a variable-length frame.
__attribute__((noinline)) int frame(int n) {
	char *p = alloca(n);
	memset(p, n, n);
	return p[n / 2];
}

// Pushes and pops callee-saved registers around calls, with an early
// return in the middle (remember_state/restore_state at -O2).
__attribute__((noinline)) long saves(long a, long b, long c) {
	if (a == 0)
		return b;
	long x = frame((int)a) + b;
	long y = frame((int)b) * c;
	return x + y + frame((int)(x ^ y));
}

// A signal trampoline: its CIE has the S augmentation, and every
// register is described by a DWARF expression over the saved context at
// rsp, as glibc's __restore_rt does.
__asm__(
	".text\n"
	".globl trampoline\n"
	".type trampoline, @function\n"
	"	nop\n"
	"trampoline:\n"
	".cfi_startproc simple\n"
	".cfi_signal_frame\n"
	// DW_CFA_def_cfa_expression: breg7 (rsp) +160, deref
	".cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06\n"
	// DW_CFA_expression rbp: breg7 +120
	".cfi_escape 0x10, 0x06, 0x03, 0x77, 0xf8, 0x00\n"
	// DW_CFA_expression rbx: breg7 +128
	".cfi_escape 0x10, 0x03, 0x03, 0x77, 0x80, 0x01\n"
	// DW_CFA_expression rip: breg7 +168
	".cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01\n"
	// DW_CFA_val_expression rsp: breg7 +160
	".cfi_escape 0x16, 0x07, 0x03, 0x77, 0xa0, 0x01\n"
	"	movq $15, %rax\n"
	"	syscall\n"
	"	hlt\n"
	".cfi_endproc\n"
	".size trampoline, .-trampoline\n");

int main(int argc, char **argv) {
	(void)argv;
	return (int)saves(argc, argc + 1, argc + 2);
}
