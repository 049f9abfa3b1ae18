package decode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestRecordsRaw: Raw is each record's bytes as in the file (a pipe's
// stream, a COMPRESSED container's decompressed stream), in both orders:
// its header's size, type and misc, and for records outside a container
// the file's bytes at its offset.
func TestRecordsRaw(t *testing.T) {
	for _, c := range []string{"fp", "pipe", "zstd"} {
		for _, order := range []decode.Order{decode.FileOrder, decode.TimeOrder} {
			t.Run(c, func(t *testing.T) {
				path := filepath.Join(testfixture.Testdata(t, c), "perf.data")
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				f, err := decode.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				base := int64(0)
				if f.Header.Pipe {
					base = 16 // offsets count from the end of the pipe header
				}
				rs := f.Records(order)
				n, inner := 0, 0
				for rs.Next() {
					r, raw := rs.Record(), rs.Raw()
					c := r.Common()
					if r.Type() == decode.RecordTypeCompressed {
						continue // delivered with its data, not its bytes
					}
					if len(raw) != int(c.Size) || len(raw) < 8 {
						t.Fatalf("%v at %#x: %d raw bytes, header size %d", r.Type(), c.Offset, len(raw), c.Size)
					}
					e := f.Header.ByteOrder
					if decode.RecordType(e.Uint32(raw)) != r.Type() || e.Uint16(raw[4:]) != c.Misc {
						t.Fatalf("%v at %#x: raw header % x", r.Type(), c.Offset, raw[:8])
					}
					if c.InnerOffset >= 0 {
						inner++
					} else if off := base + c.Offset; !bytes.Equal(raw, data[off:off+int64(len(raw))]) {
						t.Fatalf("%v at %#x: raw bytes are not the file's", r.Type(), c.Offset)
					}
					n++
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
				if n < 90 || (c == "zstd") != (inner > 0) {
					t.Errorf("%d records, %d from containers", n, inner)
				}
			})
		}
	}
}
