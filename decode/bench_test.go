package decode_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// repeatData builds a file-mode perf.data in memory whose data section is
// the data section of src repeated until it holds at least size bytes; the
// feature sections are moved behind it.
func repeatData(tb testing.TB, src []byte, size int) []byte {
	tb.Helper()
	le := binary.LittleEndian
	if string(src[:8]) != "PERFILE2" || le.Uint64(src[8:]) != 104 {
		tb.Fatal("want a little-endian file-mode perf.data")
	}
	doff, dsize := le.Uint64(src[40:]), le.Uint64(src[48:])
	data := src[doff : doff+dsize]
	k := max(1, (size+len(data)-1)/len(data))
	out := make([]byte, 0, len(src)+k*len(data))
	out = append(out, src[:doff]...)
	for range k {
		out = append(out, data...)
	}
	newSize := uint64(k) * dsize
	le.PutUint64(out[48:], newSize)
	delta := newSize - dsize
	// Feature table and sections follow the data section.
	nfeat := 0
	for i := 0; i < 4; i++ {
		w := le.Uint64(src[72+8*i:])
		for ; w != 0; w &= w - 1 {
			nfeat++
		}
	}
	tab := append([]byte(nil), src[doff+dsize:doff+dsize+uint64(16*nfeat)]...)
	for i := 0; i < nfeat; i++ {
		le.PutUint64(tab[16*i:], le.Uint64(tab[16*i:])+delta)
	}
	out = append(out, tab...)
	out = append(out, src[doff+dsize+uint64(16*nfeat):]...)
	return out
}

func benchDecode(b *testing.B, name string, order decode.Order) {
	benchDecodeFrom(b, name, order, false)
}

// benchDecodeFrom decodes a 64 MiB file made from a corpus case, from
// memory (bytes.Reader) or, with onDisk, through decode.Open of a file in
// a temporary directory (the page cache, as cat would read it).
func benchDecodeFrom(b *testing.B, name string, order decode.Order, onDisk bool) {
	root := filepath.Join(testfixture.SharedDir(b), "corpus", name, "perf.data")
	src, err := os.ReadFile(root)
	if err != nil {
		b.Skip(err)
	}
	buf := repeatData(b, src, 64<<20)
	path := ""
	if onDisk {
		path = filepath.Join(b.TempDir(), "perf.data")
		if err := os.WriteFile(path, buf, 0o600); err != nil {
			b.Fatal(err)
		}
		if p := os.Getenv("PERFSTITCH_BENCH_KEEP"); p != "" {
			os.WriteFile(p, buf, 0o600)
		}
	}
	open := func() (*decode.File, error) {
		if onDisk {
			return decode.Open(path)
		}
		return decode.NewFile(bytes.NewReader(buf))
	}
	f, err := open()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(f.Header.Data.Size))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		f, err := open()
		if err != nil {
			b.Fatal(err)
		}
		rs := f.Records(order)
		n := 0
		for rs.Next() {
			n++
		}
		if err := rs.Err(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.StopTimer()
	// Throughput per CPU second: less sensitive than wall time to other
	// jobs on a shared machine (GC workers count too).
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(f.Header.Data.Size)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// cpuTime is the user+system CPU time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDecode measures decoding throughput (MB/s of the data section)
// on 64 MiB files made by repeating corpus recordings.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"c-pie-so", "two-events", "dwarf"} {
		b.Run(name+"/file-order", func(b *testing.B) { benchDecode(b, name, decode.FileOrder) })
	}
	b.Run("c-pie-so/time-order", func(b *testing.B) { benchDecode(b, "c-pie-so", decode.TimeOrder) })
	b.Run("c-pie-so/file-order/open", func(b *testing.B) { benchDecodeFrom(b, "c-pie-so", decode.FileOrder, true) })
	b.Run("c-pie-so/time-order/open", func(b *testing.B) { benchDecodeFrom(b, "c-pie-so", decode.TimeOrder, true) })
}
