package encode

import (
	"io"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// BenchmarkWriteRecords measures encoding throughput (bytes of records
// written per second) for the records of testdata/fp, plain and
// compressed, in pipe mode to io.Discard.
func BenchmarkWriteRecords(b *testing.B) {
	d := decodeFile(b, testfixture.Testdata(b, "fp", "perf.data"))
	size := 0
	for _, r := range d.recs {
		size += int(r.Common().Size)
	}
	for _, bc := range []struct {
		name string
		comp decode.RecordType
	}{{"plain", 0}, {"zstd", decode.RecordTypeCompressed2}} {
		b.Run(bc.name, func(b *testing.B) {
			w, err := NewWriter(io.Discard, Options{Pipe: true, Attrs: d.f.Attrs, Compress: bc.comp})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, r := range d.recs {
					if err := w.WriteRecord(r); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
