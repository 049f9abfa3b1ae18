package symbolize

import "testing"

func TestPreloadable(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", true},
		{"/usr/bin/perf", true},
		{"//anon", false},
		{"/dev/zero (deleted)", false},
		{"/anon_hugepage (deleted)", false},
		{"/SYSV00000000", false},
		{"/tmp/perf-123.map", false},
		{"/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko", false},
		{"/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko.xz", false},
		{"[kernel.kallsyms]", false},
		{"[vdso]", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := preloadable(tt.name); got != tt.want {
			t.Errorf("preloadable(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
