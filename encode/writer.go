package encode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/perfstitch/perfstitch/decode"
)

// Sizes of the file-mode structures (tools/perf/util/header.h).
const (
	fileHeaderSize = 104 // struct perf_file_header
	pipeHeaderSize = 16  // struct perf_pipe_file_header
	magic          = 0x32454c4946524550
)

// DefaultFeatureEnd is the feat_id of the pipe-mode end-of-features marker
// perf 6.1 writes (its HEADER_LAST_FEATURE).
const DefaultFeatureEnd decode.Feature = 32

// defaultMmapLen is the COMPRESSED feature's mmap_len perf 6.1 writes with
// default settings (129 pages); readers size their decompression buffer
// from it.
const defaultMmapLen = 528384

// maxPipeFeature is the largest feature payload a HEADER_FEATURE record
// can carry (header and feat_id take 16 of the 65535 bytes).
const maxPipeFeature = 0xffff - 16

// compressChunk is how many bytes of records are collected before they are
// compressed and flushed into containers.
const compressChunk = 32 << 10

// Options configure a [Writer].
type Options struct {
	// Pipe selects pipe mode (16-byte header, HEADER_ATTR and
	// HEADER_FEATURE records, no data size, no feature table).
	Pipe bool

	// ByteOrder of the file; nil means little-endian.
	ByteOrder binary.ByteOrder

	// Attrs are the events, in file order. Each is written with its own
	// Size (0 writes a 0 size field and the 64-byte VER0 layout) and its
	// IDs. The attrs section stride is the largest size plus 16.
	Attrs []*decode.EventAttr

	// Meta are the feature sections (nil: none). See [Writer] for which
	// are written. EVENT_DESC, when written, is built from Attrs (names and
	// ids), so that it matches the attrs of the file.
	Meta *decode.Meta

	// BuildIDRecords, in pipe mode, writes Meta.BuildIDs as
	// HEADER_BUILD_ID records after the features (as perf inject -b puts
	// build ids into a stream) instead of a BUILD_ID feature record, which
	// perf does not read from a pipe. A decoder then delivers them as
	// HeaderBuildID records, not as Meta.BuildIDs.
	BuildIDRecords bool

	// RawOrder is the byte order of the payloads in Meta.Raw (features
	// kept as bytes because their layout is not parsed): when set and
	// different from ByteOrder, those features are left out, since they
	// cannot be converted. nil means they are in ByteOrder already (true
	// when a file is written again in its own byte order).
	RawOrder binary.ByteOrder

	// Compress is 0 (records written as they are),
	// decode.RecordTypeCompressed or decode.RecordTypeCompressed2: kernel
	// records (types below 64) are then zstd-compressed into containers of
	// that type, one never-ending zstd frame for the whole file, flushed
	// per container, as perf record -z does. A COMPRESSED feature is added
	// when Meta has none.
	Compress decode.RecordType

	// CompressAfterInit compresses only the kernel records written after
	// the first FINISHED_INIT record, as perf record -z does (the
	// synthesized start-up MMAP/COMM records stay uncompressed).
	CompressAfterInit bool

	// CompressLevel is the zstd level (perf's --compression-level); 0 means
	// 1, perf's default.
	CompressLevel int

	// FeatureEnd is the feat_id of the empty HEADER_FEATURE that ends the
	// features in pipe mode; 0 means [DefaultFeatureEnd].
	FeatureEnd decode.Feature
}

// Writer writes a perf.data file or pipe-mode stream.
//
// File mode: the header, the attrs' id arrays and the attrs section are
// followed by the data section; [Writer.Close] writes the feature sections
// after the data and then the final header. If the destination is an
// io.WriteSeeker the header is written in place (at the position the
// destination had when the Writer was made); otherwise the data section is
// staged in a temporary file. Memory use does not grow with the file.
// (A file without any record has data.size 0, which perf and package
// decode take for a recording that was killed before it finished.)
//
// Pipe mode: the 16-byte header, one HEADER_ATTR per attr, one
// HEADER_FEATURE per feature section and the end marker are written by
// [NewWriter]; records follow. A feature section larger than a record can
// hold (64 KiB) is left out.
//
// Feature sections come from Options.Meta: the features listed in
// Meta.Features (or, when that list is empty, every feature Meta has a
// value for), each from Meta.Raw when it has the feature's bytes, else
// encoded from the parsed fields.
//
// Each kernel record is laid out with the event of its RecordCommon.Attr
// (as a decoder sets it), else the attr whose IDs hold its ID, else the
// first attr; keep Attr (or ID) when records are made or changed by hand.
//
// [Writer.WriteRecord] does not write HeaderAttr and HeaderFeature records
// (the Writer makes those from Options) nor Compressed containers (a
// decoder delivers their contents as records of their own, and the Writer
// compresses by itself when Options.Compress is set), so that the records
// of a decoded file can be passed through as they come.
type Writer struct {
	opts  Options
	order binary.ByteOrder
	attrs []*decode.EventAttr
	byID  map[uint64]*decode.EventAttr

	dst    io.Writer
	ws     io.WriteSeeker // file mode with a seekable destination
	tmp    *os.File       // file mode staging file otherwise
	out    *bufio.Writer  // where records go: dst, or tmp
	base   int64          // position of the file start in ws
	nData  uint64         // bytes of records written
	rec    []byte         // scratch for one record
	comp   *compressor
	init   bool  // a FINISHED_INIT was written
	err    error // first write error; the Writer is unusable after it
	closed bool
}

// NewWriter starts a perf.data file or stream on w; see [Writer].
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	wr := &Writer{opts: opts, order: opts.ByteOrder, dst: w, byID: map[uint64]*decode.EventAttr{}}
	if wr.order == nil {
		wr.order = binary.LittleEndian
	}
	if wr.order != binary.LittleEndian && wr.order != binary.BigEndian {
		return nil, fmt.Errorf("byte order %v: must be binary.LittleEndian or binary.BigEndian", wr.order)
	}
	for i, a := range opts.Attrs {
		if a == nil {
			return nil, fmt.Errorf("attr %d is nil", i)
		}
		if n := attrBytes(a); n < 8 || n > 0xffff-8 {
			return nil, fmt.Errorf("attr %d: size %d: %w", i, a.Size, ErrUnencodable)
		}
		wr.attrs = append(wr.attrs, a)
		for _, id := range a.IDs {
			if _, dup := wr.byID[id]; !dup {
				wr.byID[id] = a
			}
		}
	}
	switch opts.Compress {
	case 0:
	case decode.RecordTypeCompressed, decode.RecordTypeCompressed2:
		c, err := newCompressor(opts.Compress == decode.RecordTypeCompressed2, opts.CompressLevel)
		if err != nil {
			return nil, err
		}
		wr.comp = c
	default:
		return nil, fmt.Errorf("compress record type %d: must be 0, 81 or 83", opts.Compress)
	}
	if opts.Pipe {
		wr.out = bufio.NewWriterSize(w, 64<<10)
		if err := wr.writePipeHeader(); err != nil {
			return nil, err
		}
		return wr, nil
	}
	pre := wr.fileHeader(0, false)
	if ws, ok := w.(io.WriteSeeker); ok {
		base, err := ws.Seek(0, io.SeekCurrent)
		if err == nil {
			wr.ws, wr.base = ws, base
			wr.out = bufio.NewWriterSize(w, 64<<10)
			if _, err := wr.out.Write(pre); err != nil {
				return nil, fmt.Errorf("write header: %w", err)
			}
			return wr, nil
		}
	}
	tmp, err := os.CreateTemp("", "perfstitch-encode-*")
	if err != nil {
		return nil, fmt.Errorf("stage data section: %w", err)
	}
	os.Remove(tmp.Name()) // unlinked: nothing left behind if the process dies
	wr.tmp = tmp
	wr.out = bufio.NewWriterSize(tmp, 64<<10)
	return wr, nil
}

// featureEnd returns the pipe-mode end-of-features feat_id.
func (w *Writer) featureEnd() decode.Feature {
	if w.opts.FeatureEnd != 0 {
		return w.opts.FeatureEnd
	}
	return DefaultFeatureEnd
}

// meta returns the Meta to write: without raw features of the wrong byte
// order, with a COMPRESSED feature added when compressing and Meta has
// none.
func (w *Writer) meta() *decode.Meta {
	m := w.opts.Meta
	if m == nil {
		m = &decode.Meta{}
	}
	if ro := w.opts.RawOrder; ro != nil && (ro == binary.BigEndian) != (w.order == binary.BigEndian) && len(m.Raw) > 0 {
		c := *m
		c.Raw = nil
		c.Features = nil
		for _, f := range m.Features {
			if _, raw := m.Raw[f]; !raw {
				c.Features = append(c.Features, f)
			}
		}
		m = &c
	}
	if w.comp == nil || m.Compressed != nil {
		return m
	}
	if _, raw := m.Raw[decode.FeatureCompressed]; raw {
		return m
	}
	c := *m
	level := w.opts.CompressLevel
	if level == 0 {
		level = 1
	}
	c.Compressed = &decode.CompressedInfo{Version: 0, Type: 1, Level: uint32(level), Ratio: 1, MmapLen: defaultMmapLen}
	if len(c.Features) > 0 {
		c.Features = append(append([]decode.Feature(nil), c.Features...), decode.FeatureCompressed)
	}
	return &c
}

func (w *Writer) writePipeHeader() error {
	b := Builder{Order: w.order}
	b.U64(magic).U64(pipeHeaderSize)
	for _, a := range w.attrs {
		var err error
		b.B, err = AppendRecord(b.B, w.order, &decode.HeaderAttr{Attr: a}, nil)
		if err != nil {
			return err
		}
	}
	end := w.featureEnd()
	m := w.meta()
	for _, f := range features(w.order, m, w.attrs, end) {
		if len(f.data) > maxPipeFeature {
			continue // does not fit a record's u16 size
		}
		if f.feat == decode.FeatureBuildID && w.opts.BuildIDRecords {
			continue
		}
		var err error
		b.B, err = AppendRecord(b.B, w.order, &decode.HeaderFeature{Feature: f.feat, Data: f.data}, nil)
		if err != nil {
			return err
		}
	}
	b.B, _ = AppendRecord(b.B, w.order, &decode.HeaderFeature{Feature: end}, nil)
	if w.opts.BuildIDRecords {
		for _, id := range m.BuildIDs {
			r := &decode.HeaderBuildID{RecordCommon: decode.RecordCommon{Misc: uint16(id.CPUMode) | decode.MiscBuildIDSize},
				BuildPID: id.PID, BuildID: id.ID, Filename: id.Filename}
			var err error
			if b.B, err = AppendRecord(b.B, w.order, r, nil); err != nil {
				return err
			}
		}
	}
	if _, err := w.out.Write(b.B); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	if err := w.out.Flush(); err != nil { // a reader at the other end of a pipe can start
		return fmt.Errorf("write header: %w", err)
	}
	return nil
}

// fileHeader returns the file header followed by the id arrays and the
// attrs section. The feature bitmap is filled in only when final.
func (w *Writer) fileHeader(dataSize uint64, final bool) []byte {
	stride := 0
	nIDs := 0
	for _, a := range w.attrs {
		stride = max(stride, attrBytes(a))
		nIDs += len(a.IDs)
	}
	if stride == 0 {
		stride = 128 // no attrs: perf 6.1's sizeof(struct perf_event_attr)
	}
	stride += 16
	idsOff := uint64(fileHeaderSize)
	attrsOff := idsOff + 8*uint64(nIDs)
	dataOff := attrsOff + uint64(stride*len(w.attrs))

	var bitmap [4]uint64
	if final {
		for _, f := range features(w.order, w.meta(), w.attrs, w.featureEnd()) {
			bitmap[f.feat/64] |= 1 << (f.feat % 64)
		}
	}
	b := Builder{Order: w.order, B: make([]byte, 0, dataOff)}
	b.U64(magic).U64(fileHeaderSize).U64(uint64(stride))
	b.U64(attrsOff).U64(uint64(stride * len(w.attrs)))
	b.U64(dataOff).U64(dataSize)
	b.U64(0).U64(0) // event_types
	for _, v := range bitmap {
		b.U64(v)
	}
	for _, a := range w.attrs {
		for _, id := range a.IDs {
			b.U64(id)
		}
	}
	off := idsOff
	for _, a := range w.attrs {
		start := len(b.B)
		b.B = AppendAttr(b.B, w.order, a)
		b.Zeros(stride - 16 - (len(b.B) - start))
		b.U64(off).U64(8 * uint64(len(a.IDs)))
		off += 8 * uint64(len(a.IDs))
	}
	return b.B
}

// attrFor returns the event whose layout encodes a record: its Attr, else
// the attr owning its id, else the first attr.
func (w *Writer) attrFor(c *decode.RecordCommon) *decode.EventAttr {
	if c.Attr != nil {
		return c.Attr
	}
	if a, ok := w.byID[c.ID]; ok {
		return a
	}
	if len(w.attrs) > 0 {
		return w.attrs[0]
	}
	return nil
}

// WriteRecord encodes r (see [AppendRecord]) with the layout of its event
// and writes it, into a compressed container when compressing and r is a
// kernel record. HeaderAttr, HeaderFeature and Compressed records are
// skipped (see [Writer]).
func (w *Writer) WriteRecord(r decode.Record) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("write to closed encode.Writer")
	}
	switch r.(type) {
	case *decode.HeaderAttr, *decode.HeaderFeature, *decode.Compressed:
		return nil
	}
	var attr *decode.EventAttr
	if r.Type() < 64 {
		attr = w.attrFor(r.Common())
	}
	rec, err := AppendRecord(w.rec[:0], w.order, r, attr)
	if err != nil {
		return err
	}
	w.rec = rec
	if r.Type() == decode.RecordTypeFinishedInit {
		w.init = true
	}
	if w.comp != nil && r.Type() < 64 && (w.init || !w.opts.CompressAfterInit) {
		w.comp.pending = append(w.comp.pending, rec...)
		if len(w.comp.pending) >= compressChunk {
			return w.flushCompressed()
		}
		return nil
	}
	return w.write(rec)
}

// WriteRaw writes b, one or more complete records (or deliberately broken
// bytes), to the stream as they are, after any pending compressed records.
func (w *Writer) WriteRaw(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("write to closed encode.Writer")
	}
	return w.write(b)
}

// write flushes pending compressed records, then writes b.
func (w *Writer) write(b []byte) error {
	if err := w.flushCompressed(); err != nil {
		return err
	}
	return w.emit(b)
}

// emit writes b to the output.
func (w *Writer) emit(b []byte) error {
	if _, err := w.out.Write(b); err != nil {
		w.err = fmt.Errorf("write records: %w", err)
		return w.err
	}
	w.nData += uint64(len(b))
	return nil
}

// flushCompressed compresses the pending records and writes the
// containers.
func (w *Writer) flushCompressed() error {
	if w.comp == nil || len(w.comp.pending) == 0 {
		return nil
	}
	payload, err := w.comp.flush()
	if err != nil {
		w.err = err
		return err
	}
	max := 0xffff - 8 // COMPRESSED: header + payload
	if w.comp.v2 {
		max = 0xfff8 - 16 // COMPRESSED2: header + data_size + payload + pad, size <= 65528
	}
	for len(payload) > 0 {
		n := min(len(payload), max)
		rec, err := AppendRecord(w.comp.rec[:0], w.order, &decode.Compressed{V2: w.comp.v2, Data: payload[:n]}, nil)
		if err != nil {
			w.err = err
			return err
		}
		w.comp.rec = rec
		if err := w.emit(rec); err != nil {
			return err
		}
		payload = payload[n:]
	}
	return nil
}

// Close flushes the records, and in file mode writes the feature sections
// and the final header. It does not close the destination.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err == nil {
		w.err = w.finish()
	}
	w.closed = true
	if w.comp != nil {
		w.comp.close()
	}
	if w.tmp != nil {
		w.tmp.Close()
	}
	return w.err
}

func (w *Writer) finish() error {
	if err := w.flushCompressed(); err != nil {
		return err
	}
	if w.opts.Pipe {
		return w.out.Flush()
	}
	// Feature table and sections follow the data.
	hdr := w.fileHeader(w.nData, true)
	feats := features(w.order, w.meta(), w.attrs, w.featureEnd())
	tableOff := uint64(len(hdr)) + w.nData
	b := Builder{Order: w.order}
	off := tableOff + 16*uint64(len(feats))
	for _, f := range feats {
		b.U64(off).U64(uint64(len(f.data)))
		off += uint64(len(f.data))
	}
	for _, f := range feats {
		b.Bytes(f.data)
	}
	if w.tmp == nil {
		if _, err := w.out.Write(b.B); err != nil {
			return fmt.Errorf("write features: %w", err)
		}
		if err := w.out.Flush(); err != nil {
			return fmt.Errorf("write features: %w", err)
		}
		if _, err := w.ws.Seek(w.base, io.SeekStart); err != nil {
			return fmt.Errorf("rewrite header: %w", err)
		}
		if _, err := w.ws.Write(hdr[:fileHeaderSize]); err != nil {
			return fmt.Errorf("rewrite header: %w", err)
		}
		if _, err := w.ws.Seek(w.base+int64(off), io.SeekStart); err != nil {
			return fmt.Errorf("seek to end: %w", err)
		}
		return nil
	}
	if err := w.out.Flush(); err != nil {
		return fmt.Errorf("stage data: %w", err)
	}
	if _, err := w.tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("stage data: %w", err)
	}
	out := bufio.NewWriterSize(w.dst, 64<<10)
	if _, err := out.Write(hdr); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	if _, err := io.Copy(out, w.tmp); err != nil {
		return fmt.Errorf("copy data: %w", err)
	}
	if _, err := out.Write(b.B); err != nil {
		return fmt.Errorf("write features: %w", err)
	}
	return out.Flush()
}

// compressor holds the one zstd stream of a file.
type compressor struct {
	v2      bool
	enc     *zstd.Encoder
	out     bytes.Buffer
	pending []byte // records to compress
	rec     []byte // scratch for one container (not Writer.rec: that may hold the record being written)
}

func newCompressor(v2 bool, level int) (*compressor, error) {
	if level == 0 {
		level = 1
	}
	c := &compressor{v2: v2}
	enc, err := zstd.NewWriter(&c.out,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20),
		zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	c.enc = enc
	return c, nil
}

// flush compresses the pending records and returns the compressed bytes
// (valid until the next flush). The zstd frame stays open.
func (c *compressor) flush() ([]byte, error) {
	c.out.Reset()
	if _, err := c.enc.Write(c.pending); err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if err := c.enc.Flush(); err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	c.pending = c.pending[:0]
	return c.out.Bytes(), nil
}

// close releases the encoder without ending the frame (perf never ends
// it): the bytes Close would produce are discarded.
func (c *compressor) close() {
	c.out.Reset()
	c.enc.Reset(io.Discard)
	c.enc.Close()
}
