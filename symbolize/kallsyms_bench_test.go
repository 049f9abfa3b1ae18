package symbolize

import (
	"os"
	"testing"
)

// BenchmarkLoadKallsyms reads and parses the running kernel's
// /proc/kallsyms, as a script run with the default kallsyms does once.
func BenchmarkLoadKallsyms(b *testing.B) {
	if _, err := os.Stat("/proc/kallsyms"); err != nil {
		b.Skip("no /proc/kallsyms")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadKallsyms("/proc/kallsyms"); err != nil {
			b.Fatal(err)
		}
	}
}
