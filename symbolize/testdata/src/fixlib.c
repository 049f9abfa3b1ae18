/* Shared library fixture: mapped with a non-zero pgoff for its text. */
__attribute__((noinline)) static int lib_static(int n)
{
	volatile int v = n;
	for (int i = 0; i < 100; i++)
		v = v * v + i;
	return v;
}

__attribute__((noinline)) int fixlib_inner(int n) { return lib_static(n) + 7; }

int fixlib_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += fixlib_inner(i);
	return s;
}
