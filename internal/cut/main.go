// Command cut writes the beginning of a recording as a recording of its
// own: the same mode, byte order, attrs and feature sections, and the
// records of the input in file order up to and including the FINISHED_ROUND
// that ends the first round after which at least -samples samples were
// written. It is how testdata/demo/perf.data is cut from a real deferred
// recording of ../shared/kernel (see testdata/demo/README.md):
//
//	go run ./internal/cut -samples 300 -i ../shared/kernel/c-threads/perf.data -o testdata/demo/perf.data
//
// The SAMPLE_TIME feature is set to the first and last sample kept. With
// -inline OUT2 it also writes the cut as a perf older than 6.19 can read
// it: the defer bits of the attrs cleared, every deferred sample's
// PERF_CONTEXT_USER_DEFERRED, cookie replaced by PERF_CONTEXT_USER and the
// IPs of the thread's first CALLCHAIN_DEFERRED record with that cookie
// stamped at or after the sample (both dropped when there is none: perf 6.1
// prints no callchain at all for a chain with a context it does not know),
// and the CALLCHAIN_DEFERRED records left out. On
// standard error it prints what it kept, and how many deferred samples
// kept have no CALLCHAIN_DEFERRED record in the output because their
// record comes after the cut (or never).
package main

import (
	"cmp"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

func main() {
	in := flag.String("i", "", "input perf.data (file mode)")
	out := flag.String("o", "", "output perf.data")
	samples := flag.Int("samples", 200, "cut after about this many samples (see cut)")
	inline := flag.String("inline", "", "also write the cut with every deferred user callchain inlined into its sample, for perf before 6.19")
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: cut -i IN -o OUT [-samples N] [-inline OUT2]")
		os.Exit(2)
	}
	if err := run(*in, *out, *inline, *samples, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cut:", err)
		os.Exit(1)
	}
}

// summary is what a cut kept.
type summary struct {
	records, samples, deferred, kept int
	first, last, cut                 uint64
	missing                          int // deferred samples whose record was not kept
}

// run cuts the recording at in after its first samples samples (in time
// order) and writes it to out.
func run(in, out, inline string, samples int, log io.Writer) error {
	f, err := decode.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Header.Pipe {
		return errors.New("pipe-mode input: not supported (the cut is written in file mode)")
	}
	var all []decode.Record
	rs := f.Records(decode.FileOrder)
	for rs.Next() {
		all = append(all, rs.Record().Clone())
	}
	if err := rs.Err(); err != nil {
		return err
	}
	recs, s := cut(all, samples)
	meta := f.Meta
	if meta.SampleTime != nil && s.samples > 0 {
		meta.SampleTime = &decode.SampleTimeRange{First: s.first, Last: s.last}
	}
	if err := write(out, f.Header.ByteOrder, f.Attrs, &meta, recs); err != nil {
		return err
	}
	if inline != "" {
		attrs, irecs := inlineUser(f.Attrs, recs)
		if err := write(inline, f.Header.ByteOrder, attrs, &meta, irecs); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "cut at time %d: %d of %d records, %d samples (%d deferred, %d without their CALLCHAIN_DEFERRED record), %d CALLCHAIN_DEFERRED records, samples %d..%d\n",
		s.cut, s.kept, s.records, s.samples, s.deferred, s.missing, countDeferred(recs), s.first, s.last)
	return nil
}

// write writes recs as a file-mode recording to path.
func write(path string, order binary.ByteOrder, attrs []*decode.EventAttr, meta *decode.Meta, recs []decode.Record) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := encode.NewWriter(fh, encode.Options{ByteOrder: order, Attrs: attrs, Meta: meta})
	if err != nil {
		fh.Close()
		return err
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			fh.Close()
			return fmt.Errorf("write %v record at %#x: %w", r.Type(), r.Common().Offset, err)
		}
	}
	if err := w.Close(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// perf61AttrSize is the largest perf_event_attr perf 6.1 reads from a
// file (PERF_ATTR_SIZE_VER7): it rejects a file whose attrs are larger.
const perf61AttrSize = 128

// inlineUser returns attrs without the defer bits (and cut to perf 6.1's
// size when the fields beyond it are zero) and recs with every
// deferred user callchain put back into its sample (see the package
// comment). Records keep their place and their attr (by index).
func inlineUser(attrs []*decode.EventAttr, recs []decode.Record) ([]*decode.EventAttr, []decode.Record) {
	na := make([]*decode.EventAttr, len(attrs))
	for i, a := range attrs {
		c := *a
		c.Flags &^= decode.AttrDeferCallchain | decode.AttrDeferOutput
		if c.Size > perf61AttrSize && c.Config3 == 0 && c.Config4 == 0 {
			c.Size = perf61AttrSize
		}
		na[i] = &c
	}
	// The record of a sample is the first of its thread with its cookie
	// stamped at or after it (a sample taken in the kernel entry after its
	// record was written gets the same cookie and no record).
	recsOf := map[key][]*decode.CallchainDeferred{}
	for _, r := range recs {
		if d, ok := r.(*decode.CallchainDeferred); ok {
			k := key{d.TID, d.Cookie}
			recsOf[k] = append(recsOf[k], d)
		}
	}
	var out []decode.Record
	for _, r := range recs {
		if _, ok := r.(*decode.CallchainDeferred); ok {
			continue
		}
		r = r.Clone()
		c := r.Common()
		if c.Attr != nil && c.Attr.Index >= 0 && c.Attr.Index < len(na) {
			c.Attr = na[c.Attr.Index]
		}
		if smp, ok := r.(*decode.Sample); ok {
			if cookie, ok := deferredCookie(smp.Callchain); ok {
				chain := smp.Callchain[:len(smp.Callchain)-2]
				for _, d := range recsOf[key{smp.TID, cookie}] {
					if d.Time >= smp.Time {
						chain = append(append(chain, decode.ContextUser), d.IPs...)
						break
					}
				}
				smp.Callchain = chain
			}
		}
		out = append(out, r)
	}
	return na, out
}

// key is a deferred sample's thread and cookie.
type key struct {
	tid    int32
	cookie uint64
}

// cut returns the records of all (in file order) that a recording stopped
// at time T would hold: every record without a timestamp and every one
// stamped T or earlier. T is the time of a sample between the samples-th
// and the 2*samples-th (in time order): the first at which the fewest
// deferred samples kept have their CALLCHAIN_DEFERRED record after T, so
// that as few as can be lose their user callchain to the cut (samples
// whose record never comes stay without it, as in the input).
func cut(all []decode.Record, samples int) ([]decode.Record, summary) {
	s := summary{records: len(all)}
	// The time of the record that serves each deferred sample: the first
	// record of the thread with the cookie at or after the sample.
	type smp struct{ time, rec uint64 }
	var smps []smp
	waiting := map[key][]int{}
	for _, r := range all {
		switch r := r.(type) {
		case *decode.Sample:
			smps = append(smps, smp{time: r.Time})
			if c, ok := deferredCookie(r.Callchain); ok {
				k := key{r.TID, c}
				waiting[k] = append(waiting[k], len(smps)-1)
			}
		case *decode.CallchainDeferred:
			k := key{r.TID, r.Cookie}
			for _, i := range waiting[k] {
				smps[i].rec = r.Time
			}
			delete(waiting, k)
		}
	}
	slices.SortStableFunc(smps, func(a, b smp) int { return cmp.Compare(a.time, b.time) })
	// Candidates are the sample times from the samples-th on, for as many
	// samples again; the first with the fewest samples whose record comes
	// later wins.
	t := uint64(math.MaxUint64)
	if samples > 0 && samples <= len(smps) {
		best := -1
		for j := samples - 1; j < len(smps) && j < 2*samples; j++ {
			ct := smps[j].time
			if j+1 < len(smps) && smps[j+1].time == ct {
				continue
			}
			n := 0
			for _, p := range smps[:j+1] {
				if p.rec > ct {
					n++
				}
			}
			if best < 0 || n < best {
				best, t = n, ct
			}
		}
	}
	s.cut = t
	var recs []decode.Record
	pending := map[key]int{}
	for _, r := range all {
		c := r.Common()
		if c.HasTime() && c.Time > t {
			continue
		}
		recs = append(recs, r)
		switch r := r.(type) {
		case *decode.Sample:
			if s.samples == 0 || r.Time < s.first {
				s.first = r.Time
			}
			s.samples++
			s.last = max(s.last, r.Time)
			if c, ok := deferredCookie(r.Callchain); ok {
				s.deferred++
				pending[key{r.TID, c}]++
			}
		case *decode.CallchainDeferred:
			delete(pending, key{r.TID, r.Cookie})
		}
	}
	for _, n := range pending {
		s.missing += n
	}
	s.kept = len(recs)
	return recs, s
}

// deferredCookie returns the cookie of a callchain that ends in
// ContextUserDeferred, cookie.
func deferredCookie(chain []uint64) (uint64, bool) {
	if n := len(chain); n >= 2 && chain[n-2] == decode.ContextUserDeferred {
		return chain[n-1], true
	}
	return 0, false
}

// countDeferred counts the CALLCHAIN_DEFERRED records of recs.
func countDeferred(recs []decode.Record) int {
	n := 0
	for _, r := range recs {
		if _, ok := r.(*decode.CallchainDeferred); ok {
			n++
		}
	}
	return n
}
