package symbolize

import (
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/stitch"
)

// BenchmarkResolveFile replays the recording named by
// $PERFSTITCH_BENCH_DATA (e.g. the one scripts/bench-script.sh records)
// through a warm Symbolizer: side-band records and samples in time order,
// with the running kernel's kallsyms when it matches. It measures the
// steady-state cost per sample of the hot path (map search, symbol
// lookup, frame cache); loading is done before the timer starts.
func BenchmarkResolveFile(b *testing.B) {
	p := os.Getenv("PERFSTITCH_BENCH_DATA")
	if p == "" {
		b.Skip("PERFSTITCH_BENCH_DATA not set")
	}
	meta, recs := readRecords(b, p)
	s, err := New(Options{Meta: meta})
	if err != nil {
		b.Fatal(err)
	}
	var ev Event
	var smp stitch.Sample
	n := runRecords(s, recs, &ev, &smp) // warm: every DSO loaded
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s2 := *s
		s2.fc = newFrameCache()
		runRecords(&s2, recs, &ev, &smp)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/sample")
}
