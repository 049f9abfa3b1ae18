package inject

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
	"github.com/perfstitch/perfstitch/stitch"
)

// Options configure [Rewrite].
type Options struct {
	// Pipe writes a pipe-mode stream (build ids as HEADER_BUILD_ID
	// records, which is how perf reads them from a pipe); otherwise a
	// file-mode perf.data.
	Pipe bool

	// Compress writes the kernel records into zstd-compressed COMPRESSED2
	// containers, as perf record -z does. Without it the output is
	// uncompressed, whatever the input was.
	Compress bool

	// DropUnstitched leaves out the deferred samples whose user callchain
	// could not be joined (states NoRecord and CookieMismatch) instead of
	// writing them as they were recorded.
	DropUnstitched bool

	// Stitch configures the stitcher (MaxPending bounds the samples held
	// back, as in perfstitch script). NoMerge must not be set.
	Stitch stitch.Options
}

// Result is what [Rewrite] did.
type Result struct {
	// Stitch counts the samples read, by state, and the records.
	Stitch stitch.Stats
	// Decode counts the records read.
	Decode *decode.Stats
	// Dropped is the number of unstitched samples left out
	// (Options.DropUnstitched); they are counted in Stitch all the same.
	Dropped uint64
	// Records is the number of records written, FINISHED_ROUND records
	// (Rounds of them) included.
	Records, Rounds uint64
}

// Unstitched returns the number of deferred samples that kept their
// deferred callchain (or were dropped): CookieMismatch and NoRecord.
func (r *Result) Unstitched() uint64 {
	return r.Stitch.Count(stitch.CookieMismatch) + r.Stitch.Count(stitch.NoRecord)
}

// ErrNoMerge is returned by [Rewrite] for Options.Stitch.NoMerge: an
// unmerged recording is the input itself.
var ErrNoMerge = errors.New("inject: stitch.Options.NoMerge cannot be used")

// Rewrite reads f in time order, stitches its deferred callchains and
// writes the stitched recording to w, in f's byte order (see the package
// documentation). f's records must not have been read yet. w is not
// closed.
//
// A damaged input is written up to the damage (every record decode
// delivered before it, the waiting samples as NoRecord) and the decode
// error is returned after the output was completed. A cancelled ctx stops
// the rewrite with ctx's error and leaves the output incomplete.
func Rewrite(ctx context.Context, f *decode.File, w io.Writer, opts Options) (*Result, error) {
	if opts.Stitch.NoMerge {
		return nil, ErrNoMerge
	}
	attrs := clearDefer(f.Attrs)
	meta := outputMeta(&f.Meta, opts.Compress)
	eo := encode.Options{
		Pipe:           opts.Pipe,
		ByteOrder:      f.Header.ByteOrder,
		Attrs:          attrs,
		Meta:           meta,
		BuildIDRecords: opts.Pipe && len(meta.BuildIDs) > 0,
	}
	if opts.Compress {
		eo.Compress = decode.RecordTypeCompressed2
	}
	wr, err := encode.NewWriter(w, eo)
	if err != nil {
		return nil, fmt.Errorf("inject: %w", err)
	}
	rs := f.Records(decode.TimeOrder)
	rw := &rewriter{
		opts:  opts,
		wr:    wr,
		order: f.Header.ByteOrder,
		attrs: attrs,
		file:  f,
		src:   &tracker{src: rs},
	}
	rw.src.rounds = &rw.rounds
	rw.src.rounds.maxFree = 4
	st := stitch.New(rw.src, opts.Stitch)
	n := 0
	for st.Next() {
		if n++; n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				wr.Close()
				return nil, err
			}
		}
		if err := rw.add(st.Event()); err != nil {
			wr.Close()
			return nil, err
		}
	}
	readErr := st.Err()
	rw.src.eof = true
	if err := rw.emitReady(); err != nil {
		wr.Close()
		return nil, err
	}
	if err := wr.Close(); err != nil {
		return nil, fmt.Errorf("inject: %w", err)
	}
	res := &Result{Stitch: *st.Stats(), Decode: rs.Stats(), Dropped: rw.dropped, Records: rw.written, Rounds: rw.nrounds}
	return res, readErr
}

// clearDefer returns copies of attrs without defer_callchain and
// defer_output, each cut to the oldest perf_event_attr layout that still
// holds all its non-zero fields: a perf refuses an attr larger than its
// own ("file uses a more recent and unsupported ABI"), and the fields of
// the newest layouts (config3, config4) are zero in most recordings, so
// perf 6.1 reads a recording by perf 6.19 or later once they are gone.
// Trailing zero fields mean the same as absent ones (the kernel's rule).
func clearDefer(attrs []*decode.EventAttr) []*decode.EventAttr {
	out := make([]*decode.EventAttr, len(attrs))
	for i, a := range attrs {
		c := *a
		c.Flags &^= decode.AttrDeferCallchain | decode.AttrDeferOutput
		c.Size = trimmedAttrSize(&c)
		out[i] = &c
	}
	return out
}

// Sizes of the perf_event_attr layouts with config3 (VER8) and config4
// (VER9), and of the one before them (VER7).
const (
	attrSizeVer7 = 128
	attrSizeVer8 = 136
	attrSizeVer9 = 144
)

// trimmedAttrSize is a.Size without the trailing VER9/VER8 fields that
// are zero; other sizes (older layouts, or larger ones with fields this
// package does not know) are kept.
func trimmedAttrSize(a *decode.EventAttr) uint32 {
	size := a.Size
	if size == attrSizeVer9 && a.Config4 == 0 {
		size = attrSizeVer8
	}
	if size == attrSizeVer8 && a.Config3 == 0 {
		size = attrSizeVer7
	}
	return size
}

// outputMeta returns the feature sections to write: m, without the
// COMPRESSED feature when the output is not compressed (the writer adds
// one when it is).
func outputMeta(m *decode.Meta, compress bool) *decode.Meta {
	c := *m
	if compress {
		return &c
	}
	c.Compressed = nil
	if _, ok := m.Raw[decode.FeatureCompressed]; ok {
		c.Raw = make(map[decode.Feature][]byte, len(m.Raw))
		for f, b := range m.Raw {
			if f != decode.FeatureCompressed {
				c.Raw[f] = b
			}
		}
	}
	c.Features = nil
	for _, f := range m.Features {
		if f != decode.FeatureCompressed {
			c.Features = append(c.Features, f)
		}
	}
	return &c
}

// rewriter collects what the stitcher delivers into rounds and writes
// each round once it is complete.
type rewriter struct {
	opts    Options
	wr      *encode.Writer
	order   binary.ByteOrder
	attrs   []*decode.EventAttr
	file    *decode.File // the input, for its sample-id index
	src     *tracker
	rounds  rounds
	dropped uint64
	written uint64
	nrounds uint64
}

// attrFor returns the output event whose layout encodes a record of c.
func (rw *rewriter) attrFor(c *decode.RecordCommon) *decode.EventAttr {
	if a := c.Attr; a != nil && a.Index >= 0 && a.Index < len(rw.attrs) {
		return rw.attrs[a.Index]
	}
	if a := rw.file.EventByID(c.ID); a != nil && a.Index >= 0 && a.Index < len(rw.attrs) {
		return rw.attrs[a.Index]
	}
	if len(rw.attrs) > 0 {
		return rw.attrs[0]
	}
	return nil
}

// add takes one event of the stitcher and writes the rounds it
// completes.
func (rw *rewriter) add(ev stitch.Event) error {
	var r decode.Record
	if ev.Sample != nil {
		r = ev.Sample.Sample
	} else {
		r = ev.Record
	}
	c := r.Common()
	rd := rw.rounds.of(keyOf(c))
	rd.out++
	if s := ev.Sample; s != nil && (s.State == stitch.NoRecord || s.State == stitch.CookieMismatch) {
		if rw.opts.DropUnstitched {
			rw.dropped++
			return rw.emitReady()
		}
		// Written with its kernel part alone: the deferred marker would
		// make older readers drop the whole callchain (perf 6.1 resets
		// it at an unknown context).
		full := s.Callchain
		s.Callchain = kernelPart(s)
		defer func() { s.Callchain = full }()
	}
	switch r := r.(type) {
	case *decode.FinishedRound:
		rd.hasFR = true
	case *decode.HeaderAttr:
		if r.Attr == nil || r.Attr.Index < 0 || r.Attr.Index >= len(rw.attrs) {
			return fmt.Errorf("inject: HEADER_ATTR record at %#x adds an event after the stream's header: not supported", c.Offset)
		}
	case *decode.HeaderFeature, *decode.Compressed:
		// The Writer writes the header from its options and compresses
		// by itself.
	default:
		var attr *decode.EventAttr
		if r.Type() < 64 {
			attr = rw.attrFor(c)
		}
		t, timed := timeKey(r)
		pos := len(rd.buf)
		b, err := encode.AppendRecord(rd.buf, rw.order, r, attr)
		if err != nil {
			return fmt.Errorf("inject: %v record at %#x: %w", r.Type(), c.Offset, err)
		}
		rd.buf = b
		rd.items = append(rd.items, item{time: t, timed: timed, k: keyOf(c), pos: pos, end: len(b)})
	}
	return rw.emitReady()
}

// emitReady writes the oldest rounds while they are complete: decode has
// delivered all their records (see [tracker]) and the stitcher has
// delivered every one of them it did not consume.
func (rw *rewriter) emitReady() error {
	q := &rw.rounds
	for len(q.q) > 0 {
		rd := q.q[0]
		if !rw.src.eof && q.base > rw.src.maxRound-2 || rd.out < rd.entered {
			return nil
		}
		if err := rw.emit(rd); err != nil {
			return err
		}
		q.pop()
	}
	return nil
}

// emit writes one round: its untimed records in file order, its timed
// ones in time order (equal times in file order), then its
// FINISHED_ROUND.
func (rw *rewriter) emit(rd *round) error {
	rd.sort()
	for _, it := range rd.items {
		if err := rw.wr.WriteEncoded(rd.buf[it.pos:it.end]); err != nil {
			return fmt.Errorf("inject: %w", err)
		}
		rw.written++
	}
	if rd.hasFR {
		if err := rw.wr.WriteRecord(&decode.FinishedRound{}); err != nil {
			return fmt.Errorf("inject: %w", err)
		}
		rw.written++
		rw.nrounds++
	}
	return nil
}

// kernelPart returns the callchain of an unstitched deferred sample
// without its PERF_CONTEXT_USER_DEFERRED marker (and cookie).
func kernelPart(s *stitch.Sample) []uint64 {
	ch := s.Callchain
	n := len(ch)
	switch {
	case s.ABI == decode.DeferredCookie && n >= 2 && ch[n-2] == decode.ContextUserDeferred:
		return ch[:n-2]
	case s.ABI == decode.DeferredSeed && n >= 1 && ch[n-1] == decode.ContextUserDeferred:
		return ch[:n-1]
	}
	return ch
}
