package decode

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdBlockMax is the largest decompressed size of one zstd block. The
// decoder is always given at least this much room, so that one Read call
// drains a whole block and the decoder never holds output back: then "all
// compressed input consumed" means "all output for it produced".
const zstdBlockMax = 128 << 10

// zstdMaxWindow bounds the decoder's window, which it allocates up front:
// the zstd format allows up to 3.75 TB, which a hostile file must not get.
// 128 MiB (a window log of 27) is what perf accepts: libzstd's streaming
// decoder refuses larger windows by default, and it is the window of the
// "ultra" levels 20-22 (perf -z --compression-level=22). Levels up to 19
// use at most 8 MiB. A frame that declares a larger window is refused with
// a warning, as perf refuses it.
const zstdMaxWindow = 128 << 20

// zstream decompresses the payloads of the COMPRESSED/COMPRESSED2 records
// of one file with one streaming decoder (perf writes one never-ending
// zstd frame per output, flushed after every record: perf-format.md §6).
// It is the decoder's io.Reader: it hands out the current payload, and when
// a zstd block straddles two containers it pulls the next container from
// the outer stream.
type zstream struct {
	rs   *Records
	dec  *zstd.Decoder
	in   []byte // unread compressed bytes of the current container
	out  []byte // decompressed bytes
	pos  int    // consumed prefix of out
	base int64  // offset of out[0] in the decompressed stream

	containerOff int64
	needReset    bool
	broken       error
	pendingOuter []Record // containers pulled mid-block, to deliver next
	inTotal      int64    // compressed bytes fed so far
	outTotal     int64    // decompressed bytes produced so far
	capErr       error    // the decompression limit was passed
	pullStore    store
}

func newZstream(rs *Records) *zstream {
	return &zstream{rs: rs}
}

func (z *zstream) close() {
	if z.dec != nil {
		z.dec.Close()
		z.dec = nil
	}
}

// feed starts on the payload of a container at file offset off.
func (z *zstream) feed(payload []byte, off int64) {
	z.containerOff = off
	z.in = payload
	z.inTotal += int64(len(payload))
	if z.broken != nil {
		z.in = nil
		return
	}
	if z.dec == nil {
		dec, err := zstd.NewReader(z, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			z.fail(err)
			return
		}
		z.dec = dec
	} else if z.needReset {
		z.needReset = false
		if err := z.dec.Reset(z); err != nil {
			z.fail(err)
		}
	}
}

func (z *zstream) fail(err error) {
	z.broken = err
	z.in = nil
	z.rs.d.warn(&FormatError{Offset: z.containerOff, Record: RecordTypeCompressed, Field: "data",
		Err: fmt.Errorf("zstd: %w (later compressed records are skipped)", err)})
}

// Read implements io.Reader for the zstd decoder.
func (z *zstream) Read(p []byte) (int, error) {
	if len(z.in) == 0 && !z.pull() {
		return 0, io.EOF
	}
	n := copy(p, z.in)
	z.in = z.in[n:]
	return n, nil
}

// pull takes the next record of the outer stream if it is a compressed
// container (a block straddling two containers); the container record is
// kept for delivery.
func (z *zstream) pull() bool {
	rs := z.rs
	t, ok := rs.fr.peekType()
	if !ok || (t != RecordTypeCompressed && t != RecordTypeCompressed2) {
		return false
	}
	rec, off, err := rs.fr.next()
	if err != nil {
		return false
	}
	rs.d.stats.count(t)
	r, err := rs.d.parse(&z.pullStore, rec, off, -1)
	if err != nil {
		rs.d.stats.skip(t)
		rs.d.warn(err)
		return false
	}
	c := r.(*Compressed)
	z.containerOff = off
	z.in = c.Data
	z.inTotal += int64(len(c.Data))
	z.pendingOuter = append(z.pendingOuter, c.Clone())
	return true
}

// leftover is the number of decompressed bytes not yet framed.
func (z *zstream) leftover() int { return len(z.out) - z.pos }

// nextInner returns the next complete decompressed record, decompressing
// more of the current container as needed. ok is false when the container
// is used up (a partial record is kept for the next one).
func (z *zstream) nextInner(d *decoder) (rec []byte, off, inner int64, ok bool) {
	for {
		avail := z.out[z.pos:]
		if len(avail) >= 8 {
			size := int(d.e.u16(avail[6:]))
			if size < 8 {
				z.fail(fmt.Errorf("record of size %d at %#x of the decompressed stream: %w",
					size, z.base+int64(z.pos), errBadRecord))
				z.out, z.pos = z.out[:0], 0
				return nil, 0, 0, false
			}
			if len(avail) >= size {
				inner = z.base + int64(z.pos)
				z.pos += size
				return avail[:size:size], z.containerOff, inner, true
			}
		}
		if len(z.in) == 0 || z.broken != nil || z.dec == nil {
			return nil, 0, 0, false
		}
		if z.pos > 0 {
			n := copy(z.out, z.out[z.pos:])
			z.base += int64(z.pos)
			z.out, z.pos = z.out[:n], 0
		}
		if cap(z.out)-len(z.out) < zstdBlockMax {
			nb := make([]byte, len(z.out), len(z.out)+zstdBlockMax+maxRecordSize)
			copy(nb, z.out)
			z.out = nb
		}
		before := len(z.in)
		n, err := z.dec.Read(z.out[len(z.out):cap(z.out)])
		z.out = z.out[:len(z.out)+n]
		z.outTotal += int64(n)
		if limit := z.decompressLimit(); limit >= 0 && z.outTotal > limit {
			z.capErr = &FormatError{Offset: z.containerOff, Record: RecordTypeCompressed, Field: "data",
				Err: fmt.Errorf("decompressed stream passed %d bytes from %d compressed (limits: %d times the input, %d bytes; --max-decompress-ratio, --max-decompress)",
					z.outTotal, z.inTotal, z.rs.f.Limits.decompressRatio(), z.rs.f.Limits.decompressBytes())}
			z.broken = z.capErr
			z.in = nil
			z.out, z.pos = z.out[:0], 0
			return nil, 0, 0, false
		}
		if n == 0 && err == nil && len(z.in) == before {
			err = io.ErrNoProgress
		}
		if err == io.EOF {
			// The frame ended with the input: a new frame may follow
			// in the next container.
			z.needReset = true
		} else if err != nil {
			z.fail(err)
		}
	}
}
