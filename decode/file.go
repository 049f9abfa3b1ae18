package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
)

// Order selects the order in which [File.Records] delivers records.
type Order int

const (
	// TimeOrder delivers timestamped kernel records sorted by time the way
	// perf's ordered-events queue does: records are buffered until the
	// FINISHED_ROUND after next, so memory is bounded by about two rounds
	// of data (a file without FINISHED_ROUND is buffered whole). Records
	// without a timestamp and perf-tool records are delivered as they are
	// read.
	TimeOrder Order = iota
	// FileOrder delivers records in file order. It buffers nothing.
	FileOrder
)

// Header is the file header (struct perf_file_header), or what of it a
// pipe-mode stream has.
type Header struct {
	Pipe       bool             // pipe-mode stream (16-byte header)
	ByteOrder  binary.ByteOrder // byte order of the writer
	Size       uint64           // header size: 104, 72 or 16
	AttrSize   uint64           // stride of the attrs section (file mode)
	Attrs      Section
	Data       Section
	EventTypes Section
	Features   [4]uint64 // feature bitmap (file mode)
}

// Section is struct perf_file_section.
type Section struct{ Offset, Size uint64 }

// File is an open perf.data file or pipe-mode stream.
//
// Record offsets ([RecordCommon.Offset]) are file offsets in file mode. In
// pipe mode (also for a pipe-format stream stored in a regular file) they
// count from the byte after the 16-byte pipe header, as perf script -D
// prints them ("0x98@pipe").
type File struct {
	Header Header
	// Attrs are the events of the recording. In pipe mode the list grows
	// as HEADER_ATTR records are read ([NewPipe] reads the leading
	// HEADER_ATTR and HEADER_FEATURE records before it returns; see
	// [File.BeforeApply] for reading it on another goroutine).
	Attrs []*EventAttr
	// Meta holds the parsed feature sections. In pipe mode it is filled
	// as HEADER_FEATURE records are read.
	Meta Meta
	// Limits bound the memory and work of reading the records; set them
	// before calling Records.
	Limits Limits

	closer io.Closer
	dec    decoder
	data   io.Reader // the record stream
	base   int64     // offset of the first byte of data
	// dataEnd is where the data section must end (-1: at EOF).
	dataEnd int64
	// prelude holds records NewPipe read ahead (cloned), delivered first.
	prelude    []Record
	preludeRaw [][]byte // the prelude records' bytes (Records.Raw)
	// fr is the frame reader NewPipe started; Records continues with it.
	fr      *frameReader
	started bool
	// beforeApply is the function BeforeApply set.
	beforeApply func(Record)
	// wholeSort makes TimeOrder ignore FINISHED_ROUND and sort the
	// whole recording (the directory format, whose files each have
	// their own rounds: OpenDir).
	wholeSort bool
}

// BeforeApply makes the records' iteration call fn just before a record
// changes the recording's state, with that record (valid during the call).
// Once the File is open, such changes are what HEADER_ATTR (a new event in
// Attrs), ID_INDEX (ids added to events), EVENT_UPDATE of type NAME (an
// event renamed) and HEADER_FEATURE (a section added to Meta, which can
// rename events) make, in pipe mode mostly, and they happen only right
// after fn returns, on the goroutine that iterates. A caller that reads
// Attrs, Meta or the events' Name and IDs on another goroutine while this
// one decodes (a producer goroutine that hands records to a consumer) has
// fn wait until the other goroutine has finished with everything handed
// to it so far: then no read races with a change, and every record is
// seen with the state it would have been seen with on one goroutine. Call
// BeforeApply before Records; nil removes fn.
func (f *File) BeforeApply(fn func(r Record)) { f.beforeApply = fn }

// Magic values of the first 8 bytes.
const (
	magicLE = 0x32454c4946524550 // "PERFILE2" read as little-endian
	magicBE = 0x50455246494c4532 // "PERFILE2" read as big-endian
)

const (
	fileHeaderSize    = 104
	oldFileHeaderSize = 72
	pipeHeaderSize    = 16
)

// Open opens the named file, in file or pipe format.
func Open(name string) (*File, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		// A FIFO or character device (/dev/stdin): only a pipe-mode
		// stream can be read without seeking.
		f, err := NewPipe(fh)
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		f.closer = fh
		return f, nil
	}
	f, err := newFile(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.closer = fh
	return f, nil
}

// sizer is implemented by readers that know their size (*bytes.Reader,
// *io.SectionReader, *strings.Reader).
type sizer interface{ Size() int64 }

// NewFile reads a perf.data file (file or pipe format) from r. Close is a
// no-op for a File made by NewFile.
func NewFile(r io.ReaderAt) (*File, error) {
	size := int64(-1)
	switch s := r.(type) {
	case sizer:
		size = s.Size()
	case interface{ Stat() (fs.FileInfo, error) }: // *os.File
		if st, err := s.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	return newFile(r, size)
}

func detectMagic(b []byte) (endian, error) {
	switch binary.LittleEndian.Uint64(b) {
	case magicLE:
		return endian{big: false}, nil
	case magicBE:
		return endian{big: true}, nil
	}
	return endian{}, ErrBadMagic
}

func newFile(r io.ReaderAt, size int64) (*File, error) {
	var hb [fileHeaderSize]byte
	n, err := r.ReadAt(hb[:16], 0)
	if n < 16 {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if n >= 8 {
			if _, merr := detectMagic(hb[:8]); merr != nil {
				return nil, merr
			}
		}
		return nil, &FormatError{Offset: 0, Field: "header", Err: err}
	}
	e, err := detectMagic(hb[:8])
	if err != nil {
		return nil, err
	}
	hsize := e.u64(hb[8:])
	if hsize == pipeHeaderSize {
		end := int64(math.MaxInt64)
		if size >= 0 {
			end = size
		}
		bufSize := pipeBufSize
		if size >= 0 {
			bufSize = int(min(int64(pipeBufSize), max(size, 4096)))
		}
		return newPipe(io.NewSectionReader(r, pipeHeaderSize, end-pipeHeaderSize), e, bufSize)
	}
	if hsize != fileHeaderSize && hsize != oldFileHeaderSize {
		return nil, &FormatError{Offset: 8, Field: "header.size",
			Err: fmt.Errorf("header size %d: %w", hsize, ErrUnsupported)}
	}
	if n, err := r.ReadAt(hb[16:hsize], 16); n < int(hsize)-16 {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, &FormatError{Offset: 16, Field: "header", Err: err}
	}
	f := &File{}
	f.dec = decoder{e: e, f: f, byID: make(map[uint64]int), stats: &Stats{}}
	h := &f.Header
	h.ByteOrder = e.order()
	h.Size = hsize
	h.AttrSize = e.u64(hb[16:])
	h.Attrs = Section{e.u64(hb[24:]), e.u64(hb[32:])}
	h.Data = Section{e.u64(hb[40:]), e.u64(hb[48:])}
	h.EventTypes = Section{e.u64(hb[56:]), e.u64(hb[64:])}
	if hsize == fileHeaderSize {
		for i := range h.Features {
			h.Features[i] = e.u64(hb[72+8*i:])
		}
		if e.big && h.Features[0]&(1<<FeatureHostname) == 0 {
			// Old 32-bit big-endian writers stored the bitmap as u32
			// words (perf_file_header__read): retry that way.
			var alt [4]uint64
			for i := 0; i < 4; i++ {
				lo := uint64(e.u32(hb[72+8*i:]))
				hi := uint64(e.u32(hb[72+8*i+4:]))
				alt[i] = lo | hi<<32
			}
			if alt[0]&(1<<FeatureHostname) != 0 {
				h.Features = alt
			}
		}
	}
	if err := f.readAttrs(r, size); err != nil {
		return nil, err
	}
	if h.Data.Size > 0 {
		f.readFeatures(r, size)
	} else {
		f.dec.warn(&FormatError{Offset: 48, Field: "data.size",
			Err: errors.New("data size is 0 (perf record not terminated properly?): reading to the end of the file")})
	}
	for _, a := range f.Attrs {
		if a.Name == "" {
			a.Name = defaultName(a, f.Meta.PMUMappings)
		}
	}
	end := int64(h.Data.Size)
	if h.Data.Size == 0 || h.Data.Size > math.MaxInt64-h.Data.Offset {
		end = math.MaxInt64 - int64(min(h.Data.Offset, math.MaxInt64))
		if size >= 0 {
			end = max(0, size-int64(min(h.Data.Offset, math.MaxInt64)))
		}
	}
	if h.Data.Offset > math.MaxInt64 {
		return nil, &FormatError{Offset: 40, Field: "data.offset", Err: errBadRecord}
	}
	f.data = io.NewSectionReader(r, int64(h.Data.Offset), end)
	f.base = int64(h.Data.Offset)
	f.dataEnd = -1
	if h.Data.Size > 0 {
		f.dataEnd = f.base + end
	}
	return f, nil
}

// readAttrs reads the attrs section and the id arrays.
func (f *File) readAttrs(r io.ReaderAt, size int64) error {
	h := &f.Header
	e := f.dec.e
	if h.AttrSize < attrSizeVer0+16 || h.AttrSize > maxAttrSize+16 {
		return &FormatError{Offset: 16, Field: "attr_size",
			Err: fmt.Errorf("attr_size %d: %w", h.AttrSize, ErrUnsupported)}
	}
	nattr := h.Attrs.Size / h.AttrSize
	if nattr == 0 {
		return &FormatError{Offset: 24, Field: "attrs", Err: errors.New("no event attrs")}
	}
	b, err := readAtBounded(r, h.Attrs.Offset, nattr*h.AttrSize, size)
	if err != nil {
		return &FormatError{Offset: int64(min(h.Attrs.Offset, math.MaxInt64)), Field: "attrs", Err: err}
	}
	for i := uint64(0); i < nattr; i++ {
		ent := b[i*h.AttrSize : (i+1)*h.AttrSize]
		off := int64(h.Attrs.Offset + i*h.AttrSize)
		a, err := parseAttr(ent[:h.AttrSize-16], e)
		if err != nil {
			return &FormatError{Offset: off, Field: "attr", Err: err}
		}
		ids := Section{e.u64(ent[h.AttrSize-16:]), e.u64(ent[h.AttrSize-8:])}
		if ids.Size > 0 {
			n := min(ids.Size/8, f.dec.idsLeft())
			if n < ids.Size/8 {
				f.dec.warnIDs(off+int64(h.AttrSize)-16, ids.Size/8, n)
			}
			ib, err := readAtBounded(r, ids.Offset, n*8, size)
			if err != nil {
				return &FormatError{Offset: off + int64(h.AttrSize) - 16, Field: "attr.ids", Err: err}
			}
			a.IDs = make([]uint64, 0, len(ib)/8)
			for j := 0; j+8 <= len(ib); j += 8 {
				a.IDs = append(a.IDs, e.u64(ib[j:]))
			}
		}
		ap := new(EventAttr)
		*ap = a
		f.dec.addAttr(ap)
	}
	return nil
}

// readFeatures reads the feature table at data.offset+data.size and every
// section it names. Problems are recorded in Meta.Errors.
func (f *File) readFeatures(r io.ReaderAt, size int64) {
	h := &f.Header
	e := f.dec.e
	var feats []Feature
	for w, word := range h.Features {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			feats = append(feats, Feature(w*64+b))
		}
	}
	if len(feats) == 0 {
		return
	}
	tab := h.Data.Offset + h.Data.Size
	if tab < h.Data.Offset {
		f.Meta.Errors = append(f.Meta.Errors, &FormatError{Offset: 40, Field: "feature table", Err: errBadRecord})
		return
	}
	tb, err := readAtBounded(r, tab, uint64(len(feats))*16, size)
	if err != nil {
		f.Meta.Errors = append(f.Meta.Errors, &FormatError{Offset: int64(min(tab, math.MaxInt64)), Field: "feature table", Err: err})
		return
	}
	for i, ft := range feats {
		sec := Section{e.u64(tb[16*i:]), e.u64(tb[16*i+8:])}
		off := int64(min(tab, math.MaxInt64-4096)) + int64(16*i)
		if ft == 0 {
			continue
		}
		if size >= 0 && (sec.Offset > uint64(size) || sec.Size > uint64(size)-sec.Offset) {
			f.Meta.Errors = append(f.Meta.Errors, &FormatError{Offset: off, Field: fmt.Sprintf("feature %d section", ft),
				Err: fmt.Errorf("section [%#x, +%#x) outside the file: %w", sec.Offset, sec.Size, io.ErrUnexpectedEOF)})
			continue
		}
		b, err := readAtBounded(r, sec.Offset, sec.Size, size)
		if err != nil {
			f.Meta.Errors = append(f.Meta.Errors, &FormatError{Offset: off, Field: fmt.Sprintf("feature %d section", ft), Err: err})
			continue
		}
		f.Meta.add(ft, b, e, int64(sec.Offset))
	}
	f.dec.applyMeta()
}

// maxSectionSize bounds any one header structure read into memory.
const maxSectionSize = 1 << 30

// readAtBounded reads n bytes at off. It refuses sizes beyond the file (when
// its size is known) or maxSectionSize, and otherwise reads in chunks so a
// lying size cannot allocate more than the input holds (saferio.ReadDataAt).
func readAtBounded(r io.ReaderAt, off, n uint64, size int64) ([]byte, error) {
	if off > math.MaxInt64 || n > maxSectionSize || off+n < off {
		return nil, fmt.Errorf("section [%#x, +%#x): %w", off, n, io.ErrUnexpectedEOF)
	}
	if size >= 0 && off+n > uint64(size) {
		return nil, fmt.Errorf("section [%#x, +%#x) past the end of the file (%d bytes): %w", off, n, size, io.ErrUnexpectedEOF)
	}
	const chunk = 1 << 20
	var out []byte
	for uint64(len(out)) < n {
		m := min(n-uint64(len(out)), chunk)
		start := len(out)
		out = append(out, make([]byte, m)...)
		k, err := r.ReadAt(out[start:], int64(off)+int64(start))
		if uint64(k) < m {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return out, nil
}

// NewPipe reads a pipe-mode stream from r (e.g. standard input). It reads
// the leading HEADER_ATTR/HEADER_FEATURE records (and the other pipe header
// records) so that Attrs and Meta are filled in; Records delivers them
// first.
func NewPipe(r io.Reader) (*File, error) {
	var hb [pipeHeaderSize]byte
	if n, err := io.ReadFull(r, hb[:]); err != nil {
		if n >= 8 {
			if _, merr := detectMagic(hb[:8]); merr != nil {
				return nil, merr
			}
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, &FormatError{Offset: 0, Field: "header", Err: err}
	}
	e, err := detectMagic(hb[:8])
	if err != nil {
		return nil, err
	}
	if hs := e.u64(hb[8:]); hs != pipeHeaderSize {
		return nil, &FormatError{Offset: 8, Field: "header.size",
			Err: fmt.Errorf("pipe header size %d: %w", hs, ErrUnsupported)}
	}
	return newPipe(r, e, pipeBufSize)
}

// maxPrelude bounds the header records NewPipe reads ahead.
const maxPrelude = 4096

func newPipe(r io.Reader, e endian, bufSize int) (*File, error) {
	f := &File{}
	f.dec = decoder{e: e, f: f, byID: make(map[uint64]int), stats: &Stats{}}
	f.Header = Header{Pipe: true, ByteOrder: e.order(), Size: pipeHeaderSize}
	f.data = r
	f.fr = newFrameReader(r, e, 0, bufSize)
	// Read ahead the header records that replace the file header.
	var s store
	for len(f.prelude) < maxPrelude {
		t, ok := f.fr.peekType()
		if !ok {
			break
		}
		switch t {
		case RecordTypeHeaderAttr, RecordTypeHeaderFeature, RecordTypeHeaderEventType,
			RecordTypeHeaderTracingData, RecordTypeHeaderBuildID:
		default:
			return f, nil
		}
		rec, off, err := f.fr.next()
		if err != nil {
			// Leave the damage to Records, which reports it in order.
			f.prelude = append(f.prelude, &prelErr{err: err})
			return f, nil
		}
		f.dec.stats.count(t)
		r, err := f.dec.parse(&s, rec, off, -1)
		if err == nil && t == RecordTypeHeaderTracingData {
			r, err = f.dec.tracingPayload(f.fr, r.(*TracingData), rec, off)
		}
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) && fe.Err == io.ErrUnexpectedEOF && f.fr.atEOF() {
				f.prelude = append(f.prelude, &prelErr{err: err})
				return f, nil
			}
			f.dec.stats.skip(t)
			f.dec.warn(err)
			continue
		}
		f.prelude = append(f.prelude, r.Clone())
		f.preludeRaw = append(f.preludeRaw, append([]byte(nil), rec...))
	}
	return f, nil
}

// prelErr carries an error met while NewPipe read ahead, delivered by the
// iterator at its place in the stream.
type prelErr struct {
	RecordCommon
	err error
}

// Type returns 0: a prelErr is never delivered.
func (*prelErr) Type() RecordType { return 0 }

// Clone returns p.
func (p *prelErr) Clone() Record { return p }

// Close closes the file if it was opened with [Open].
func (f *File) Close() error {
	if f.closer != nil {
		err := f.closer.Close()
		f.closer = nil
		return err
	}
	return nil
}

// EventByID returns the event that owns sample id id, or nil.
func (f *File) EventByID(id uint64) *EventAttr {
	if i, ok := f.dec.byID[id]; ok {
		return f.Attrs[i]
	}
	return nil
}
