// The shared library src/tiny.c calls through its PLT (see gen-fuzz.sh).
int lib_add(int a, int b) { return a + b; }
