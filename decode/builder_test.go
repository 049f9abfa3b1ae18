package decode_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/perfstitch/perfstitch/decode"
)

// This file is a small perf.data writer for the tests: it lays out
// records byte by byte in either byte order, independent of the decoder
// (and of the encode package, so decode's tests stand alone).

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// wr appends integers in one byte order.
type wr struct {
	bo byteOrder
	b  []byte
}

func (w *wr) u8(v uint8) *wr   { w.b = append(w.b, v); return w }
func (w *wr) u16(v uint16) *wr { w.b = w.bo.AppendUint16(w.b, v); return w }
func (w *wr) u32(v uint32) *wr { w.b = w.bo.AppendUint32(w.b, v); return w }
func (w *wr) u64(v uint64) *wr { w.b = w.bo.AppendUint64(w.b, v); return w }
func (w *wr) i32(v int32) *wr  { return w.u32(uint32(v)) }
func (w *wr) raw(b []byte) *wr { w.b = append(w.b, b...); return w }

// str appends s NUL-terminated and zero-padded to a multiple of align.
func (w *wr) str(s string, align int) *wr {
	n := (len(s) + 1 + align - 1) / align * align
	w.b = append(w.b, s...)
	w.b = append(w.b, make([]byte, n-len(s))...)
	return w
}

// fixed appends s in a field of n bytes.
func (w *wr) fixed(s string, n int) *wr {
	b := make([]byte, n)
	copy(b, s)
	w.b = append(w.b, b...)
	return w
}

// pstr appends a feature-section string (u32 len, padded to 64).
func (w *wr) pstr(s string) *wr {
	n := (len(s) + 1 + 63) / 64 * 64
	w.u32(uint32(n))
	return w.fixed(s, n)
}

// tAttr describes an event for the writer.
type tAttr struct {
	typ              uint32
	size             uint32 // 0: 128
	config           uint64
	period           uint64
	sampleType       decode.SampleFormat
	readFormat       decode.ReadFormat
	flags            decode.AttrFlags
	branchSampleType decode.BranchSampleFormat
	regsUser         uint64
	stackUser        uint32
	regsIntr         uint64
	ids              []uint64
}

// attrFlagWidths mirrors the perf_event_attr bitfields (see attrparse.go).
var attrFlagWidths = []uint8{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 24}

var branchFlagWidths = []uint8{1, 1, 1, 1, 16, 4, 2, 4, 3, 31}

// toBEBitfields lays LE-numbered bitfields out the way a big-endian
// compiler does (first field in the most significant bits).
func toBEBitfields(v uint64, widths []uint8) uint64 {
	var out uint64
	pos := 0
	for _, w := range widths {
		mask := uint64(1)<<w - 1
		out |= (v >> pos & mask) << (64 - pos - int(w))
		pos += int(w)
	}
	return out
}

func encAttr(bo byteOrder, a tAttr) []byte {
	size := a.size
	if size == 0 {
		size = 128
	}
	flags := uint64(a.flags)
	if bo == binary.BigEndian {
		flags = toBEBitfields(flags, attrFlagWidths)
	}
	w := &wr{bo: bo}
	w.u32(a.typ).u32(size).u64(a.config).u64(a.period).u64(uint64(a.sampleType)).
		u64(uint64(a.readFormat)).u64(flags).u32(0).u32(0).u64(0).u64(0).
		u64(uint64(a.branchSampleType)).u64(a.regsUser).u32(a.stackUser).u32(0).u64(a.regsIntr)
	for len(w.b) < int(size) {
		w.u8(0)
	}
	return w.b[:size]
}

// rec frames a record body.
func rec(bo byteOrder, typ decode.RecordType, misc uint16, body []byte) []byte {
	w := &wr{bo: bo}
	w.u32(uint32(typ)).u16(misc).u16(uint16(8 + len(body)))
	return append(w.b, body...)
}

type tFeature struct {
	id      decode.Feature
	payload []byte
}

// perfFile is a recording to lay out in file or pipe format.
type perfFile struct {
	bo       byteOrder
	attrs    []tAttr
	recs     [][]byte // complete records (with any payload that follows)
	features []tFeature
}

func (p *perfFile) magic() []byte {
	if p.bo == binary.BigEndian {
		return []byte("2ELIFREP")
	}
	return []byte("PERFILE2")
}

// file lays the recording out in file format.
func (p *perfFile) file() []byte {
	w := &wr{bo: p.bo}
	const hdr = 104
	// ids arrays, then attrs, then data, then the feature table.
	var ids []byte
	idOff := make([]uint64, len(p.attrs))
	for i, a := range p.attrs {
		idOff[i] = hdr + uint64(len(ids))
		iw := &wr{bo: p.bo}
		for _, id := range a.ids {
			iw.u64(id)
		}
		ids = append(ids, iw.b...)
	}
	attrOff := hdr + uint64(len(ids))
	var attrs []byte
	attrSize := uint64(0)
	for i, a := range p.attrs {
		ab := encAttr(p.bo, a)
		attrSize = uint64(len(ab)) + 16
		aw := &wr{bo: p.bo, b: ab}
		aw.u64(idOff[i]).u64(uint64(8 * len(a.ids)))
		attrs = append(attrs, aw.b...)
	}
	dataOff := attrOff + uint64(len(attrs))
	data := bytes.Join(p.recs, nil)
	var bitmap [4]uint64
	for _, f := range p.features {
		bitmap[f.id/64] |= 1 << (f.id % 64)
	}
	w.raw(p.magic()).u64(hdr).u64(attrSize).u64(attrOff).u64(uint64(len(attrs))).
		u64(dataOff).u64(uint64(len(data))).u64(0).u64(0)
	for _, b := range bitmap {
		w.u64(b)
	}
	w.raw(ids).raw(attrs).raw(data)
	// Features in ascending bit order.
	feats := append([]tFeature(nil), p.features...)
	for i := 1; i < len(feats); i++ {
		for j := i; j > 0 && feats[j].id < feats[j-1].id; j-- {
			feats[j], feats[j-1] = feats[j-1], feats[j]
		}
	}
	secOff := uint64(len(w.b)) + uint64(16*len(feats))
	for _, f := range feats {
		w.u64(secOff).u64(uint64(len(f.payload)))
		secOff += uint64(len(f.payload))
	}
	for _, f := range feats {
		w.raw(f.payload)
	}
	return w.b
}

// pipe lays the recording out in pipe format: HEADER_ATTR and
// HEADER_FEATURE records, then the data records.
func (p *perfFile) pipe() []byte {
	w := &wr{bo: p.bo}
	w.raw(p.magic()).u64(16)
	for _, a := range p.attrs {
		body := &wr{bo: p.bo, b: encAttr(p.bo, a)}
		for _, id := range a.ids {
			body.u64(id)
		}
		w.raw(rec(p.bo, decode.RecordTypeHeaderAttr, 0, body.b))
	}
	for _, f := range p.features {
		body := &wr{bo: p.bo}
		body.u64(uint64(f.id)).raw(f.payload)
		w.raw(rec(p.bo, decode.RecordTypeHeaderFeature, 0, body.b))
	}
	for _, r := range p.recs {
		w.raw(r)
	}
	return w.b
}

// compress packs every kernel record (type < 64) into COMPRESSED (v2
// false) or COMPRESSED2 containers of at most per records each, from one
// zstd stream flushed per container as perf does; perf-tool records stay
// outside, between the containers.
func compress(t testing.TB, bo byteOrder, recs [][]byte, v2 bool, per int) [][]byte {
	t.Helper()
	var zbuf bytes.Buffer
	enc, err := zstd.NewWriter(&zbuf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(512<<10))
	if err != nil {
		t.Fatal(err)
	}
	var out, pending [][]byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		for _, r := range pending {
			enc.Write(r)
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		payload := append([]byte(nil), zbuf.Bytes()...)
		zbuf.Reset()
		pending = nil
		if v2 {
			w := &wr{bo: bo}
			w.u64(uint64(len(payload))).raw(payload)
			for len(w.b)%8 != 0 {
				w.u8(0)
			}
			out = append(out, rec(bo, decode.RecordTypeCompressed2, 0, w.b))
		} else {
			out = append(out, rec(bo, decode.RecordTypeCompressed, 0, payload))
		}
	}
	for _, r := range recs {
		if bo.Uint32(r) >= 64 {
			flush()
			out = append(out, r)
			continue
		}
		pending = append(pending, r)
		if len(pending) == per {
			flush()
		}
	}
	flush()
	return out
}
