/*
 * spin: the workload of the perfstitch testdata recordings.
 *
 * Freestanding x86-64 Linux program (no libc, raw system calls) so that
 * symfs/ needs only this small static binary. Built with frame pointers:
 * every user frame of a perf -g callchain is in this file. It mixes mutual
 * recursion (walk_a/walk_b/walk_c, 2..10 deep) with system calls at the
 * leaves (read of /dev/zero, write to /dev/null, anonymous mmap + page
 * touching + munmap, getpid), for the given number of milliseconds
 * (argv[1], default 300).
 *
 * If argv[2] is given, /proc/self/maps is copied to that file at start.
 */

typedef unsigned long u64;

enum {
	SYS_read = 0, SYS_write = 1, SYS_open = 2, SYS_close = 3,
	SYS_mmap = 9, SYS_munmap = 11, SYS_getpid = 39, SYS_exit_group = 231,
	SYS_clock_gettime = 228,
};

static long sys3(long n, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

struct timespec { long sec, nsec; };

/* now_ms uses the clock_gettime system call, not the vDSO. */
static __attribute__((noinline)) long now_ms(void)
{
	struct timespec ts;
	sys3(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0);
	return ts.sec * 1000 + ts.nsec / 1000000;
}

/* In .data, not .bss: perf adjusts the symbols of a .bss whose segment has file
 * offset 0 onto the text, naming text addresses "buf+0x…". */
static char buf[1 << 16] = {1};
static int zero_fd, null_fd;

static __attribute__((noinline)) u64 leaf_read(void)
{
	return (u64)sys3(SYS_read, zero_fd, (long)buf, sizeof buf);
}

static __attribute__((noinline)) u64 leaf_write(void)
{
	return (u64)sys3(SYS_write, null_fd, (long)buf, sizeof buf);
}

static __attribute__((noinline)) u64 leaf_mmap(void)
{
	long n = 64 * 4096;
	char *p = (char *)sys6(SYS_mmap, 0, n, 3 /* RW */, 0x22 /* PRIVATE|ANON */, -1, 0);
	u64 s = 0;
	if ((long)p < 0)
		return 0;
	for (long i = 0; i < n; i += 4096) {
		p[i] = (char)i;
		s += (unsigned char)p[i];
	}
	sys3(SYS_munmap, (long)p, n, 0);
	return s;
}

static __attribute__((noinline)) u64 leaf_compute(u64 x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static u64 walk_b(u64 depth, u64 seed);
static u64 walk_c(u64 depth, u64 seed);

static __attribute__((noinline)) u64 walk_a(u64 depth, u64 seed)
{
	if (depth == 0)
		return leaf_read() + leaf_compute(seed);
	return walk_b(depth - 1, seed * 3 + 1) + 1;
}

static __attribute__((noinline)) u64 walk_b(u64 depth, u64 seed)
{
	if (depth == 0)
		return leaf_write() + (u64)sys3(SYS_getpid, 0, 0, 0);
	return walk_c(depth - 1, seed ^ 0x5555) + 2;
}

static __attribute__((noinline)) u64 walk_c(u64 depth, u64 seed)
{
	if (depth == 0)
		return leaf_mmap() + leaf_compute(seed);
	return walk_a(depth - 1, seed + 7) + 3;
}

static __attribute__((noinline)) void copy_maps(const char *dst)
{
	int in = (int)sys3(SYS_open, (long)"/proc/self/maps", 0, 0);
	int out = (int)sys3(SYS_open, (long)dst, 01 | 0100 | 01000 /* WRONLY|CREAT|TRUNC */, 0644);
	long n;
	if (in >= 0 && out >= 0)
		while ((n = sys3(SYS_read, in, (long)buf, sizeof buf)) > 0)
			sys3(SYS_write, out, (long)buf, n);
	sys3(SYS_close, in, 0, 0);
	sys3(SYS_close, out, 0, 0);
}

static long parse(const char *s)
{
	long v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

static __attribute__((noinline)) u64 run(long ms)
{
	u64 acc = 0, i = 0;
	long end = now_ms() + ms;
	while (now_ms() < end) {
		acc += walk_a(2 + i % 9, i);
		i++;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? parse(argv[1]) : 300;
	if (argc > 2)
		copy_maps(argv[2]);
	zero_fd = (int)sys3(SYS_open, (long)"/dev/zero", 0, 0);
	null_fd = (int)sys3(SYS_open, (long)"/dev/null", 1, 0);
	return run(ms) == 42; /* 0 unless the checksum happens to be 42 */
}

/* _start: the kernel enters with argc at (%rsp); keep the stack aligned and
 * end the frame-pointer chain with a zero rbp. */
__asm__(".text\n"
	".global _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov (%rsp), %rdi\n"
	"	lea 8(%rsp), %rsi\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n");
