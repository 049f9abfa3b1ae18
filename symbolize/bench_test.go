package symbolize

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// loadCase decodes a corpus case into memory (cloned records).
func loadCase(tb testing.TB, name string) (*testfixture.CorpusCase, *decode.Meta, []decode.Record) {
	tb.Helper()
	c := testfixture.CorpusCaseNamed(tb, name)
	meta, recs := readRecords(tb, c.Data)
	return c, meta, recs
}

// readRecords decodes the recording at path into memory, in time order
// (cloned records), with its metadata.
func readRecords(tb testing.TB, path string) (*decode.Meta, []decode.Record) {
	tb.Helper()
	f, err := decode.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var recs []decode.Record
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		recs = append(recs, rs.Record().Clone())
	}
	if err := rs.Err(); err != nil {
		tb.Fatal(err)
	}
	meta := f.Meta
	return &meta, recs
}

// warmCase returns a Symbolizer that has resolved every sample of corpus
// case name once (every DSO loaded, every address seen), and the samples.
func warmCase(tb testing.TB, name string) (*Symbolizer, []*decode.Sample) {
	tb.Helper()
	c, meta, recs := loadCase(tb, name)
	s, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: meta})
	if err != nil {
		tb.Fatal(err)
	}
	var ev Event
	var smp stitch.Sample
	runRecords(s, recs, &ev, &smp)
	var samples []*decode.Sample
	for _, r := range recs {
		if ds, ok := r.(*decode.Sample); ok {
			samples = append(samples, ds)
		}
	}
	return s, samples
}

func runRecords(s *Symbolizer, recs []decode.Record, ev *Event, smp *stitch.Sample) int {
	n := 0
	for _, r := range recs {
		if ds, ok := r.(*decode.Sample); ok {
			smp.Sample = ds
			s.Resolve(smp, ev)
			n++
			continue
		}
		s.Observe(r)
	}
	return n
}

// BenchmarkResolveCorpus resolves every sample of the c-pie-so case
// (kernel, PIE, shared library and libc frames) with a fresh Symbolizer
// per iteration: ELF and kallsyms loading included.
func BenchmarkResolveCorpus(b *testing.B) {
	c, meta, recs := loadCase(b, "c-pie-so")
	var ev Event
	var smp stitch.Sample
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: meta})
		if err != nil {
			b.Fatal(err)
		}
		runRecords(s, recs, &ev, &smp)
	}
}

// BenchmarkResolveSteady resolves the samples of c-pie-so again and again
// with one warmed-up Symbolizer: the per-sample cost.
func BenchmarkResolveSteady(b *testing.B) {
	s, samples := warmCase(b, "c-pie-so")
	var ev Event
	var smp stitch.Sample
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		smp.Sample = samples[i%len(samples)]
		s.Resolve(&smp, &ev)
	}
}

// TestResolveNoAlloc checks that resolving samples whose DSOs are loaded
// and whose addresses were seen allocates nothing.
func TestResolveNoAlloc(t *testing.T) {
	s, samples := warmCase(t, "c-pie-so")
	var ev Event
	var smp stitch.Sample
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		smp.Sample = samples[i%len(samples)]
		s.Resolve(&smp, &ev)
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per Resolve, want 0", allocs)
	}
}
