/*
 * bpfload: the workload of testdata/bpf (perf script --show-bpf-events and
 * --show-round-events).
 *
 * Freestanding x86-64 Linux program (no libc, raw system calls), built
 * with frame pointers like spin.c. It forks, so that two processes spin on
 * the two CPUs (their samples land in two ring buffers, which perf's
 * rounds put back in time order), and the parent loads a two-instruction
 * BPF socket filter in the middle of its run and closes it before the end:
 * the kernel writes PERF_RECORD_KSYMBOL and PERF_RECORD_BPF_EVENT records
 * for the load and for the unload.
 */

typedef unsigned long u64;

enum {
	SYS_close = 3, SYS_wait4 = 61, SYS_fork = 57, SYS_exit_group = 231,
	SYS_clock_gettime = 228, SYS_bpf = 321,
};

static long sys4(long n, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

struct timespec { long sec, nsec; };

static __attribute__((noinline)) long now_ms(void)
{
	struct timespec ts;
	sys4(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0, 0);
	return ts.sec * 1000 + ts.nsec / 1000000;
}

static volatile u64 sink;

static __attribute__((noinline)) u64 spin_inner(u64 x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static __attribute__((noinline)) void spin(long ms)
{
	long end = now_ms() + ms;
	u64 x = 1;
	while (now_ms() < end)
		x = spin_inner(x);
	sink = x;
}

/* struct bpf_insn and the part of union bpf_attr BPF_PROG_LOAD reads. */
struct insn { unsigned char code, regs; short off; int imm; };
struct prog_load {
	unsigned int prog_type, insn_cnt;
	u64 insns, license;
	unsigned int log_level, log_size;
	u64 log_buf;
	unsigned int kern_version, prog_flags;
	char prog_name[16];
	char pad[64];
};

static __attribute__((noinline)) long load_filter(void)
{
	static struct insn prog[2] = {
		{ 0xb7, 0, 0, 0 }, /* r0 = 0 */
		{ 0x95, 0, 0, 0 }, /* exit */
	};
	static struct prog_load a;
	static const char name[] = "pstitch_filter";
	a.prog_type = 1; /* BPF_PROG_TYPE_SOCKET_FILTER */
	a.insn_cnt = 2;
	a.insns = (u64)prog;
	a.license = (u64)"GPL";
	for (int i = 0; i < (int)sizeof(name); i++)
		a.prog_name[i] = name[i];
	return sys4(SYS_bpf, 5 /* BPF_PROG_LOAD */, (long)&a, sizeof(a), 0);
}

int main(void)
{
	long child = sys4(SYS_fork, 0, 0, 0, 0);
	if (child == 0) {
		spin(300);
		return 0;
	}
	spin(100);
	long fd = load_filter();
	spin(100);
	if (fd >= 0)
		sys4(SYS_close, fd, 0, 0, 0);
	spin(100);
	sys4(SYS_wait4, child, 0, 0, 0);
	return fd < 0;
}

/* _start: as in spin.c. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n");
