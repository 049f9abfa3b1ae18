package stitch_test

import (
	"bytes"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// benchCopies is how many time-shifted copies of the simulated corpus case
// make up the large deferred file.
const benchCopies = 20

// largeDeferredFile returns a large deferred recording: the corpus case
// c-pthreads (5 threads, kernel entries of up to 10 samples) run through
// the simulator (cookie ABI), its records written benchCopies times, each
// copy shifted in time after the previous one.
func largeDeferredFile(b *testing.B) []byte {
	b.Helper()
	var src string
	for _, c := range testfixture.Corpus(b) {
		if c.Name == "c-pthreads" {
			src = c.Data
		}
	}
	if src == "" {
		b.Skip("corpus case c-pthreads absent")
	}
	var sim bytes.Buffer
	if _, err := deferralsim.Simulate(src, &sim, deferralsim.Options{ABI: decode.DeferredCookie}); err != nil {
		b.Fatal(err)
	}
	f, err := decode.NewFile(bytes.NewReader(sim.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	rs := f.Records(decode.FileOrder)
	var recs []decode.Record
	var first, last uint64
	for rs.Next() {
		r := rs.Record().Clone()
		if c := r.Common(); c.HasTime() {
			if first == 0 || c.Time < first {
				first = c.Time
			}
			last = max(last, c.Time)
		}
		recs = append(recs, r)
	}
	if err := rs.Err(); err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	w, err := encode.NewWriter(&out, encode.Options{Attrs: f.Attrs, Meta: &f.Meta})
	if err != nil {
		b.Fatal(err)
	}
	span := last - first + 1
	for k := range uint64(benchCopies) {
		for _, r := range recs {
			if _, ok := r.(*decode.Compressed); ok {
				continue
			}
			c := r.Common()
			t, tt := c.Time, c.TrailerTime
			if c.HasTime() {
				c.Time += k * span
			}
			if tt != 0 {
				c.TrailerTime += k * span
			}
			if err := w.WriteRecord(r); err != nil {
				b.Fatal(err)
			}
			c.Time, c.TrailerTime = t, tt
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

// benchPass is one pass over the large deferred file: decode it in time
// order, with or without stitching, reading every chain or not. It returns
// the stitcher's statistics when it stitched.
type benchPass struct {
	data       []byte
	withStitch bool
	withRead   bool
	order      stitch.Order // of the Stitcher
	sink       uint64
}

func (p *benchPass) run(b *testing.B) *stitch.Stats {
	read := func(ips []uint64) {
		for _, ip := range ips {
			p.sink += ip
		}
	}
	f, err := decode.NewFile(bytes.NewReader(p.data))
	if err != nil {
		b.Fatal(err)
	}
	rs := f.Records(decode.TimeOrder)
	if !p.withStitch {
		for rs.Next() {
			if !p.withRead {
				continue
			}
			switch r := rs.Record().(type) {
			case *decode.Sample:
				read(r.Callchain)
			case *decode.CallchainDeferred:
				read(r.IPs)
			}
		}
		if err := rs.Err(); err != nil {
			b.Fatal(err)
		}
		return nil
	}
	st := stitch.New(rs, stitch.Options{Order: p.order})
	for st.Next() {
		if s := st.Event().Sample; s != nil && p.withRead {
			read(s.Callchain)
		}
	}
	if err := st.Err(); err != nil {
		b.Fatal(err)
	}
	if st.Stats().Count(stitch.Stitched) == 0 {
		b.Fatal("nothing stitched")
	}
	return st.Stats()
}

// BenchmarkDecodeStitch measures what stitching adds to decoding a large
// deferred file in time order. "decode" only iterates; "decode+read" also
// reads every callchain entry and deferred IP once, as any consumer
// (symbolizer, printer) does; "decode+stitch+read" stitches and then reads
// the stitched chains. The stitching cost is the difference between the
// last two; "overhead" runs those two passes in turn in every iteration
// and reports the difference as a percentage of decode+read's CPU time
// (stitch-%), which holds when the machine's speed drifts between
// sub-benchmarks (see docs/stitching.md).
func BenchmarkDecodeStitch(b *testing.B) {
	data := largeDeferredFile(b)
	run := func(b *testing.B, withStitch, withRead bool) {
		b.SetBytes(int64(len(data)))
		p := &benchPass{data: data, withStitch: withStitch, withRead: withRead}
		var st *stitch.Stats
		cpu0 := cpuTime()
		for b.Loop() {
			st = p.run(b)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		if st != nil {
			b.ReportMetric(float64(st.Total()), "samples/op")
			b.ReportMetric(float64(st.QueueHighWater), "held-max")
		}
	}
	b.Run("decode", func(b *testing.B) { run(b, false, false) })
	b.Run("decode+read", func(b *testing.B) { run(b, false, true) })
	b.Run("decode+stitch+read", func(b *testing.B) { run(b, true, true) })
	// overhead in TimeOrder (the library's default) and in ArrivalOrder
	// (what a session uses; scripts/bench-script.sh prints its
	// stitch-ns/sample).
	b.Run("overhead", func(b *testing.B) { benchOverhead(b, data, stitch.TimeOrder) })
	b.Run("overhead-arrival", func(b *testing.B) { benchOverhead(b, data, stitch.ArrivalOrder) })
}

// benchOverhead runs decode+read and decode+stitch+read (in the given
// order) in turn and reports the medians over the pairs: stitch-%,
// base-cpu-ns and stitch-ns/sample, the Stitcher's own cost per deferred
// sample.
func benchOverhead(b *testing.B, data []byte, order stitch.Order) {
	base := &benchPass{data: data, withRead: true}
	full := &benchPass{data: data, withStitch: true, withRead: true, order: order}
	samples := full.run(b).Deferred()
	timed := func(p *benchPass) time.Duration {
		// Each pass starts on a collected heap: a pass takes a few
		// milliseconds, and a collection cycle falling into one of a
		// pair and not the other swamps the difference. (Neither
		// the decoder nor the Stitcher allocates per record, so no
		// collection cost is left out.)
		runtime.GC()
		c := cpuTime()
		p.run(b)
		return cpuTime() - c
	}
	var ratios, bases, diffs []float64
	for i := 0; b.Loop(); i++ {
		var tb, tf time.Duration
		if i%2 == 0 {
			tb = timed(base)
			tf = timed(full)
		} else {
			tf = timed(full)
			tb = timed(base)
		}
		ratios = append(ratios, float64(tf)/float64(tb))
		bases = append(bases, float64(tb))
		diffs = append(diffs, float64(tf-tb))
	}
	// One of a pair may still meet a stall of the (shared) machine
	// the other did not: the medians are what one pass costs.
	median := func(v []float64) float64 {
		slices.Sort(v)
		return v[len(v)/2]
	}
	b.ReportMetric(100*(median(ratios)-1), "stitch-%")
	b.ReportMetric(median(bases), "base-cpu-ns")
	b.ReportMetric(median(diffs)/float64(samples), "stitch-ns/sample")
}
