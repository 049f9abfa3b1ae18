package inject

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// summary is what a test checks of a decoded output.
type summary struct {
	samples, rounds int
	chains          [][]uint64 // callchains in time order
	pipe            bool
	bigEndian       bool
}

// readOutput decodes an injected recording and checks what must hold of
// every one: it decodes without error or warning, has no
// CALLCHAIN_DEFERRED record, no event with a defer bit, no sample ending
// in the deferred marker, and its timed records are in time order within
// each round.
func readOutput(t *testing.T, b []byte) summary {
	t.Helper()
	var f *decode.File
	var err error
	if bytes.HasPrefix(b[8:], []byte{16, 0, 0, 0, 0, 0, 0, 0}) || bytes.HasPrefix(b[8:], []byte{0, 0, 0, 0, 0, 0, 0, 16}) {
		f, err = decode.NewPipe(bytes.NewReader(b))
	} else {
		f, err = decode.NewFile(bytes.NewReader(b))
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := summary{pipe: f.Header.Pipe, bigEndian: f.Header.ByteOrder == binary.BigEndian}
	for _, a := range f.Attrs {
		if a.DeferCallchain() || a.DeferOutput() {
			t.Errorf("event %d keeps a defer bit: flags %#x", a.Index, uint64(a.Flags))
		}
	}
	rs := f.Records(decode.FileOrder)
	var last uint64
	for rs.Next() {
		r := rs.Record()
		switch r := r.(type) {
		case *decode.CallchainDeferred:
			t.Errorf("CALLCHAIN_DEFERRED record at %#x", r.Offset)
		case *decode.FinishedRound:
			sum.rounds++
			last = 0
		case *decode.Sample:
			sum.samples++
			if n := len(r.Callchain); n > 0 && (r.Callchain[n-1] == decode.ContextUserDeferred || n > 1 && r.Callchain[n-2] == decode.ContextUserDeferred) {
				t.Errorf("sample at %#x keeps the deferred marker", r.Offset)
			}
		}
		if tm, ok := timeKey(r); ok {
			if tm < last {
				t.Errorf("%v record at %#x: time %d before %d in its round", r.Type(), r.Common().Offset, tm, last)
			}
			last = tm
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("decode of the output: %v", err)
	}
	if st := rs.Stats(); st.WarningCount != 0 {
		t.Errorf("decode of the output: %d warnings: %v", st.WarningCount, st.Warnings)
	}
	f2, _ := decode.NewFile(bytes.NewReader(b))
	if f.Header.Pipe {
		f2, _ = decode.NewPipe(bytes.NewReader(b))
	}
	rs = f2.Records(decode.TimeOrder)
	for rs.Next() {
		if s, ok := rs.Record().(*decode.Sample); ok {
			sum.chains = append(sum.chains, slices.Clone(s.Callchain))
		}
	}
	return sum
}

// rewrite injects the recording b (file or pipe mode).
func rewrite(t *testing.T, b []byte, opts Options) ([]byte, *Result) {
	t.Helper()
	in, err := Open("-", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	res, err := Rewrite(context.Background(), in.File, &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

// reencode writes the recording at path again with other options (byte
// order, pipe mode).
func reencode(t *testing.T, path string, opts encode.Options) []byte {
	t.Helper()
	f, err := decode.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts.Attrs, opts.Meta = f.Attrs, &f.Meta
	var buf bytes.Buffer
	w, err := encode.NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Records(decode.FileOrder)
	for rs.Next() {
		if err := w.WriteRecord(rs.Record()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRewriteVariants: every simulator output of the testdata recordings
// in both byte orders, read from a file or a pipe and written in file or
// pipe mode, compressed or not, injects into a clean recording (see
// readOutput) with all its samples, in the input's byte order, whose
// callchains are those of the original recording (dropped records: the
// kernel part); with DropUnstitched the unstitched samples are gone.
func TestRewriteVariants(t *testing.T) {
	for _, name := range testdataCases {
		orig := filepath.Join(testfixture.Testdata(t, name), "perf.data")
		want := readOutput(t, mustRead(t, orig)).chains
		for _, v := range simVariants {
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				t.Run(name+"/"+v.name+"/"+order.String(), func(t *testing.T) {
					src := filepath.Join(t.TempDir(), "in.data")
					if err := os.WriteFile(src, reencode(t, orig, encode.Options{ByteOrder: order}), 0o644); err != nil {
						t.Fatal(err)
					}
					deferred, truth := simulate(t, src, v.opts)
					fileIn := mustRead(t, deferred)
					pipeIn := reencode(t, deferred, encode.Options{ByteOrder: order, Pipe: true})
					for _, o := range []struct {
						name string
						in   []byte
						opts Options
					}{
						{"file", fileIn, Options{}},
						{"pipe-to-pipe", pipeIn, Options{Pipe: true}},
						{"pipe-to-file-compressed", pipeIn, Options{Compress: true}},
						{"drop-unstitched", fileIn, Options{DropUnstitched: true}},
					} {
						out, res := rewrite(t, o.in, o.opts)
						got := readOutput(t, out)
						if got.bigEndian != (order == binary.BigEndian) || got.pipe != o.opts.Pipe {
							t.Errorf("%s: output big-endian %v, pipe %v", o.name, got.bigEndian, got.pipe)
						}
						if int(res.Stitch.Total()) != len(want) || res.Stitch.Total()-res.Dropped != uint64(got.samples) {
							t.Errorf("%s: %d samples read, %d dropped, %d written; the original has %d",
								o.name, res.Stitch.Total(), res.Dropped, got.samples, len(want))
						}
						if res.Unstitched() != uint64(countDropped(truth)) {
							t.Errorf("%s: %d unstitched, the simulator dropped the records of %d", o.name, res.Unstitched(), countDropped(truth))
						}
						if o.opts.DropUnstitched {
							continue
						}
						for i, ch := range got.chains {
							w := want[i]
							if truth.Samples[i].Dropped {
								w = w[:max(0, slices.Index(w, decode.ContextUser))]
							}
							if !slices.Equal(ch, w) {
								t.Errorf("%s: sample %d: callchain %x, want %x", o.name, i, ch, w)
								break
							}
						}
					}
				})
			}
		}
	}
}

func countDropped(tr *deferralsim.Truth) int {
	n := 0
	for _, s := range tr.Samples {
		if s.Dropped {
			n++
		}
	}
	return n
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRewritePassThrough: a recording without deferred samples is written
// with the same records, in each round in time order: decoded in time
// order, the output has the records of the input.
func TestRewritePassThrough(t *testing.T) {
	for _, name := range testdataCases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testfixture.Testdata(t, name), "perf.data")
			in := mustRead(t, path)
			out, res := rewrite(t, in, Options{})
			if res.Stitch.Deferred() != 0 {
				t.Fatalf("%d deferred samples", res.Stitch.Deferred())
			}
			if a, b := typesInTimeOrder(t, in), typesInTimeOrder(t, out); !slices.Equal(a, b) {
				t.Errorf("records in time order differ: %d in, %d out", len(a), len(b))
			}
		})
	}
}

// typesInTimeOrder lists the kernel records of b in time order as
// (type, time, tid) triples.
func typesInTimeOrder(t *testing.T, b []byte) [][3]uint64 {
	t.Helper()
	in, err := Open("-", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rs := in.File.Records(decode.TimeOrder)
	var out [][3]uint64
	for rs.Next() {
		r := rs.Record()
		if r.Type() >= 64 {
			continue
		}
		c := r.Common()
		out = append(out, [3]uint64{uint64(r.Type()), c.TrailerTime, uint64(c.TID)})
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRewriteMaxPending: a pending cap releases waiting samples as
// NoRecord and the output still has every sample.
func TestRewriteMaxPending(t *testing.T) {
	// Two events sample each kernel entry: two samples wait for a record.
	deferred, _ := simulate(t, filepath.Join(testfixture.Testdata(t, "two-events"), "perf.data"), simVariants[0].opts)
	out, res := rewrite(t, mustRead(t, deferred), Options{Stitch: stitch.Options{MaxPending: 1}})
	if res.Stitch.NoRecordCap == 0 {
		t.Error("MaxPending 1 released no sample")
	}
	if got := readOutput(t, out); uint64(got.samples) != res.Stitch.Total() {
		t.Errorf("%d samples written of %d", got.samples, res.Stitch.Total())
	}
}

func TestRewriteNoMerge(t *testing.T) {
	in := mustRead(t, filepath.Join(testfixture.Testdata(t, "demo"), "perf.data"))
	f, err := decode.NewFile(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Rewrite(context.Background(), f, &bytes.Buffer{}, Options{Stitch: stitch.Options{NoMerge: true}}); !errors.Is(err, ErrNoMerge) {
		t.Errorf("error %v, want ErrNoMerge", err)
	}
}

// TestRewriteDamaged: a truncated recording is written up to the damage
// and the decode error is returned.
func TestRewriteDamaged(t *testing.T) {
	in := mustRead(t, filepath.Join(testfixture.Testdata(t, "pipe"), "perf.data"))
	in = in[:len(in)*2/3]
	f, err := decode.NewPipe(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Rewrite(context.Background(), f, &out, Options{Pipe: true})
	if err == nil || res == nil {
		t.Fatalf("result %v, error %v; want both", res, err)
	}
	if got := readOutput(t, out.Bytes()); got.samples == 0 || uint64(got.samples) != res.Stitch.Total() {
		t.Errorf("%d samples written, %d read", got.samples, res.Stitch.Total())
	}
}
