package deferralsim

import (
	"fmt"
	"io"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

// Simulate reads the recording at path (file or pipe mode) and writes its
// deferred version to w: same mode, byte order, compression, feature
// sections and record order, with the attrs' defer bits set, the deferrable
// samples' user callchains replaced by the deferred marker (and cookie),
// and the CALLCHAIN_DEFERRED records inserted. It returns what it did.
//
// The input is read twice: in time order to find the kernel entries, then
// in file order to rewrite it.
func Simulate(path string, w io.Writer, opts Options) (*Truth, error) {
	f1, err := decode.Open(path)
	if err != nil {
		return nil, err
	}
	defer f1.Close()
	p, err := plan(f1, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	f2, err := decode.Open(path)
	if err != nil {
		return nil, err
	}
	defer f2.Close()
	attrs := newAttrs(f1.Attrs, p.emitters, opts)
	meta := f1.Meta
	wr, err := encode.NewWriter(w, encode.Options{
		Pipe:      f1.Header.Pipe,
		ByteOrder: f1.Header.ByteOrder,
		Attrs:     attrs,
		Meta:      &meta,
		Compress:  p.compress,
	})
	if err != nil {
		return nil, err
	}
	newAttr := func(a *decode.EventAttr) *decode.EventAttr {
		if a == nil || a.Index < 0 || a.Index >= len(attrs) {
			return nil
		}
		return attrs[a.Index]
	}
	write := func(r decode.Record) error {
		c := r.Common()
		old := c.Attr
		c.Attr = newAttr(old)
		err := wr.WriteRecord(r)
		c.Attr = old
		return err
	}
	rs := f2.Records(decode.FileOrder)
	for rs.Next() {
		r := rs.Record()
		c := r.Common()
		if s, ok := r.(*decode.Sample); ok {
			if pl := p.plans[keyOf(c)]; pl != nil {
				d := *s
				d.Callchain = deferChain(s.Callchain, pl, opts.ABI)
				r = &d
			}
		}
		if err := write(r); err != nil {
			return nil, fmt.Errorf("write %v record at %#x: %w", r.Type(), c.Offset, err)
		}
		if _, ok := r.(*decode.Sample); !ok {
			continue
		}
		for _, rec := range p.inserts[keyOf(c)] {
			rec.TrailerPID, rec.TrailerTID, rec.TrailerTime = rec.PID, rec.TID, rec.Time
			if err := write(rec); err != nil {
				return nil, fmt.Errorf("write deferred record after %#x: %w", c.Offset, err)
			}
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("%s: read: %w", path, err)
	}
	if err := wr.Close(); err != nil {
		return nil, err
	}
	return &p.truth, nil
}
