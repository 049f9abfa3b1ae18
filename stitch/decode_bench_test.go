package stitch_test

import (
	"bytes"
	"syscall"
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

// cpuTime returns the process's user+system CPU time. The benchmarks
// report it per operation next to the wall time, which on a shared,
// throttled machine varies far more than the work done.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDecodeStitch measures what stitching adds to decoding a large
// deferred file in time order. "decode" only iterates; "decode+read" also
// reads every callchain entry and deferred IP once, as any consumer
// (symbolizer, printer) does; "decode+stitch+read" stitches and then reads
// the stitched chains. The stitching cost is the difference between the
// last two (on this machine: see docs/stitching.md), compare cpu-ns/op.
func BenchmarkDecodeStitch(b *testing.B) {
	data := largeDeferredFile(b)
	var sink uint64
	read := func(ips []uint64) {
		for _, ip := range ips {
			sink += ip
		}
	}
	run := func(b *testing.B, withStitch, withRead bool) {
		b.SetBytes(int64(len(data)))
		var samples uint64
		var queue int
		cpu0 := cpuTime()
		for b.Loop() {
			f, err := decode.NewFile(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			rs := f.Records(decode.TimeOrder)
			if !withStitch {
				for rs.Next() {
					if !withRead {
						continue
					}
					switch r := rs.Record().(type) {
					case *decode.Sample:
						read(r.Callchain)
					case *decode.CallchainDeferred:
						read(r.IPs)
					}
				}
				continue
			}
			st := stitch.New(rs, stitch.Options{})
			for st.Next() {
				if s := st.Event().Sample; s != nil && withRead {
					read(s.Callchain)
				}
			}
			if err := st.Err(); err != nil {
				b.Fatal(err)
			}
			if st.Stats().Count(stitch.Stitched) == 0 {
				b.Fatal("nothing stitched")
			}
			samples = st.Stats().Total()
			queue = st.Stats().QueueHighWater
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		if samples > 0 {
			b.ReportMetric(float64(samples), "samples/op")
			b.ReportMetric(float64(queue), "held-max")
		}
	}
	b.Run("decode", func(b *testing.B) { run(b, false, false) })
	b.Run("decode+read", func(b *testing.B) { run(b, false, true) })
	b.Run("decode+stitch+read", func(b *testing.B) { run(b, true, true) })
}
