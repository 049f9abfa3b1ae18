package decode_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// synthetic returns recordings made here (both byte orders, plain,
// compressed, and one zstd stream cut across containers) in file or pipe
// format. They are a few KB each: too large to seed a fuzzing run (the
// fuzzer spends it minimising what it finds), so TestWalkRecordings walks
// them; the seeds are under testdata/fuzz.
func synthetic(tb testing.TB, pipe bool) [][]byte {
	var out [][]byte
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		a := wantAttr(attrA, 0, "")
		b := wantAttr(attrB, 1, "")
		var recs [][]byte
		for _, it := range items(bo, a, b) {
			recs = append(recs, it.b)
		}
		feats, _ := features(bo)
		pf := &perfFile{bo: bo, attrs: []tAttr{attrA, attrB}, features: feats, recs: recs}
		pz := &perfFile{bo: bo, attrs: []tAttr{attrA, attrB}, recs: compress(tb, bo, recs, true, 4)}
		// One zstd stream cut into 50-byte containers: blocks straddle.
		var raw, z bytes.Buffer
		for _, r := range recs {
			if bo.Uint32(r) < 64 {
				raw.Write(r)
			}
		}
		enc, _ := zstd.NewWriter(&z, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(512<<10))
		enc.Write(raw.Bytes())
		enc.Flush()
		var split [][]byte
		for off := 0; off < z.Len(); off += 50 {
			split = append(split, rec(bo, decode.RecordTypeCompressed, 0, z.Bytes()[off:min(off+50, z.Len())]))
		}
		ps := &perfFile{bo: bo, attrs: []tAttr{attrA, attrB}, recs: split}
		if pipe {
			out = append(out, pf.pipe(), pz.pipe(), ps.pipe())
		} else {
			out = append(out, pf.file(), pz.file(), ps.file())
		}
	}
	return out
}

// walk reads every record in both orders and touches every accessor.
func walk(t *testing.T, open func() (*decode.File, error)) {
	// Both orders deliver the same records: (type, offset, inner offset)
	// counted per order.
	type where struct {
		t          decode.RecordType
		off, inner int64
	}
	seen := [2]map[where]int{{}, {}}
	for oi, order := range []decode.Order{decode.FileOrder, decode.TimeOrder} {
		f, err := open()
		if err != nil {
			if f != nil {
				t.Fatal("NewFile returned a File and an error")
			}
			var fe *decode.FormatError
			if !errors.As(err, &fe) && !errors.Is(err, decode.ErrBadMagic) && !errors.Is(err, decode.ErrUnsupported) {
				t.Fatalf("open error of unexpected kind: %v", err)
			}
			return
		}
		for _, a := range f.Attrs {
			_ = a.Name
		}
		rs := f.Records(order)
		n := 0
		for rs.Next() {
			r := rs.Record()
			c := r.Clone()
			if c.Type() != r.Type() || c.Common().Offset != r.Common().Offset {
				t.Fatal("clone differs")
			}
			_ = r.Common().HasTime()
			seen[oi][where{r.Type(), r.Common().Offset, r.Common().InnerOffset}]++
			n++
		}
		err = rs.Err()
		if err != nil {
			var fe *decode.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("iteration error is not a *FormatError: %v", err)
			}
		}
		st := rs.Stats()
		var total uint64
		for _, c := range st.Counts {
			total += c
		}
		var skipped uint64
		for _, c := range st.Skipped {
			skipped += c
		}
		if uint64(n)+skipped > total {
			t.Fatalf("delivered %d + skipped %d > read %d", n, skipped, total)
		}
	}
	if !maps.Equal(seen[0], seen[1]) {
		t.Fatalf("file order and time order deliver different records:\n%v\n%v", seen[0], seen[1])
	}
}

// TestWalkRecordings walks, as the fuzz targets walk their inputs, the
// recordings that once seeded them: the synthetic ones, those of
// testdata/ and the small ones of the shared corpus and external files.
func TestWalkRecordings(t *testing.T) {
	for _, pipe := range []bool{false, true} {
		for i, b := range synthetic(t, pipe) {
			t.Run(fmt.Sprintf("synthetic/pipe=%v/%d", pipe, i), func(t *testing.T) {
				walk(t, func() (*decode.File, error) {
					if pipe {
						return decode.NewPipe(bytes.NewReader(b))
					}
					return decode.NewFile(bytes.NewReader(b))
				})
			})
		}
	}
	paths, _ := filepath.Glob(testfixture.Testdata(t, "*", "perf.data"))
	root := filepath.Join(testfixture.ModuleRoot(t), "..", "shared")
	for _, pat := range []string{"corpus/*/perf.data", "external/*/*/perf.data"} {
		p, _ := filepath.Glob(filepath.Join(root, pat))
		paths = append(paths, p...)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 64<<10 {
			continue
		}
		t.Run(p, func(t *testing.T) {
			if len(b) >= 16 && binary.LittleEndian.Uint64(b[8:]) == 16 {
				walk(t, func() (*decode.File, error) { return decode.NewPipe(bytes.NewReader(b)) })
				return
			}
			walk(t, func() (*decode.File, error) { return decode.NewFile(bytes.NewReader(b)) })
		})
	}
}

// FuzzFile feeds arbitrary bytes to NewFile (file or pipe format) and
// walks every record; it must never panic, and errors must be typed.
// Its seeds are testdata/fuzz/FuzzFile.
func FuzzFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		walk(t, func() (*decode.File, error) { return decode.NewFile(bytes.NewReader(b)) })
	})
}

// FuzzPipe feeds arbitrary bytes to NewPipe as a stream.
// Its seeds are testdata/fuzz/FuzzPipe.
func FuzzPipe(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		walk(t, func() (*decode.File, error) { return decode.NewPipe(bytes.NewReader(b)) })
	})
}
