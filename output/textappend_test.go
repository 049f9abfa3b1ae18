package output

import (
	"fmt"
	"testing"
)

func TestAppendHexPad(t *testing.T) {
	vals := []uint64{0, 1, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0xabcde, 0x7fffffffffff,
		0xffffffff81000000, 0x8000000000000000, ^uint64(0)}
	for i := range 64 {
		vals = append(vals, 1<<i, 1<<i-1)
	}
	for _, v := range vals {
		for _, w := range []int{0, 1, 6, 16, 18} {
			got := string(appendHexPad([]byte("x"), v, w))
			if want := fmt.Sprintf("x%*x", w, v); got != want {
				t.Errorf("appendHexPad(%#x, %d) = %q, want %q", v, w, got, want)
			}
		}
	}
}

func BenchmarkAppendHexPad(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = appendHexPad(buf[:0], 0xffffffff81000000+uint64(i), 16)
	}
}
