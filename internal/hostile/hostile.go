// Package hostile makes tiny hostile perf.data files, one per failure of
// issue 16 ("never silent, never unbounded"): malformed samples and
// records, and bombs that cost memory or CPU out of proportion to their
// size (a decompression bomb, a file without FINISHED_ROUND records).
// The tests (cmd/hostile_test.go) write them to testdata/hostile-like
// temporary folders, run perfstitch on them and check the warning or
// error text, the samples still delivered and the peak heap.
package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

var le = binary.LittleEndian

// Attr is the one event of every case: cpu-clock with
// IP|TID|TIME|CALLCHAIN|PERIOD, as perf record -g writes it.
func Attr() *decode.EventAttr {
	return &decode.EventAttr{Type: 1, Size: 136, SamplePeriod: 1000,
		SampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SampleCallchain | decode.SamplePeriod,
		Flags:      decode.AttrSampleIDAll | decode.AttrExcludeGuest}
}

// kernelIP and userIP are the addresses of the generated callchains.
const (
	kernelIP = 0xffffffff81000100
	userIP   = 0x401000
)

// Sample returns the bytes of a SAMPLE of Attr at time t whose callchain
// says nr entries and holds min(nr, 3) of them.
func Sample(t, nr uint64) []byte {
	var b encode.Builder
	b.U64(userIP).U32(7).U32(7).U64(t).U64(1000).U64(nr)
	for i := uint64(0); i < nr && i < 3; i++ {
		b.U64(userIP + 16*i)
	}
	return encode.RawRecord(le, decode.RecordTypeSample, 2, b.B)
}

// Round is a FINISHED_ROUND record.
func Round() []byte { return encode.RawRecord(le, decode.RecordTypeFinishedRound, 0, nil) }

// File writes a file-mode perf.data of Attr whose data section is recs.
func File(recs ...[]byte) ([]byte, error) { return fileOf(Attr(), recs...) }

func fileOf(attr *decode.EventAttr, recs ...[]byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := encode.NewWriter(&seekBuf{b: &out}, encode.Options{Attrs: []*decode.EventAttr{attr}})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if err := w.WriteRaw(r); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Case is one hostile input and what perfstitch must make of it.
type Case struct {
	Name string
	Data []byte
	// Samples is how many samples perfstitch script must still print.
	Samples int
	// Stderr must appear in perfstitch's standard error.
	Stderr string
	// Fails says perfstitch must exit 1 (the input is refused or cut).
	Fails bool
	// Args are extra flags for the run.
	Args []string
}

// Malformed returns the cases of malformed samples and records: each is
// reported, and every sample that can be read is delivered.
func Malformed() ([]Case, error) {
	var cases []Case
	add := func(name string, samples int, stderr string, recs ...[]byte) error {
		b, err := File(recs...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		cases = append(cases, Case{Name: name, Data: b, Samples: samples, Stderr: stderr})
		return nil
	}
	for _, nr := range []uint64{1 << 60, 1 << 63, ^uint64(0)} {
		if err := add(fmt.Sprintf("callchain nr %#x", nr), 3, "callchain.nr: nr ", Sample(10, 2), Sample(11, nr), Sample(12, 1), Round()); err != nil {
			return nil, err
		}
	}
	size8 := encode.RawRecord(le, decode.RecordTypeSample, 2, nil)
	if err := add("sample of size 8", 2, "SAMPLE record at 0x", Sample(10, 2), size8, Sample(12, 1), Round()); err != nil {
		return nil, err
	}
	for _, t := range []decode.RecordType{decode.RecordTypeMmap, decode.RecordTypeComm, decode.RecordTypeFork, decode.RecordTypeCallchainDeferred} {
		r := encode.RawRecord(le, t, 0, nil)
		if err := add(fmt.Sprintf("%v of size 8", t), 2, t.String()+" record at 0x", Sample(10, 2), r, Sample(12, 1), Round()); err != nil {
			return nil, err
		}
	}
	many := Attr()
	for i := uint64(1); i <= 1<<20+1000; i++ {
		many.IDs = append(many.IDs, i)
	}
	b, err := fileOf(many, Sample(10, 2), Sample(12, 1), Round())
	if err != nil {
		return nil, err
	}
	cases = append(cases, Case{Name: "1M sample ids", Data: b, Samples: 2, Stderr: "attr.ids: 1049576 sample ids, more than the 1048576"})
	deferred := encode.RawRecord(le, decode.RecordTypeCallchainDeferred, 0, (&encode.Builder{}).U64(1).U64(1<<60).U64(userIP).B)
	if err := add("deferred nr 2^60", 2, "CALLCHAIN_DEFERRED record at 0x", Sample(10, 2), deferred, Sample(12, 1), Round()); err != nil {
		return nil, err
	}
	ord, err := Ordering()
	if err != nil {
		return nil, err
	}
	return append(cases, ord...), nil
}

// OutOfOrder is how many late samples the out-of-order case has.
const OutOfOrder = 99_999

// Ordering returns the cases of timestamps that defeat the time order:
// samples at time 0 or 2^64-1 (perf delivers them as read, unqueued), a
// sample at 2^64-2 that makes the next rounds deliver everything so that
// each later sample is late, and 99,999 samples older than a round
// already delivered (perf's "out of order events"). Each is warned of
// with its place, and every sample is delivered.
func Ordering() ([]Case, error) {
	var cases []Case
	add := func(name string, samples int, stderr string, recs ...[]byte) error {
		b, err := File(recs...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		cases = append(cases, Case{Name: name, Data: b, Samples: samples, Stderr: stderr})
		return nil
	}
	if err := add("round times 0", 4, "SAMPLE record at 0x148: time: 0 is no time: delivered as read",
		Sample(10, 2), Round(), Sample(0, 1), Sample(20, 1), Round(), Round(), Sample(0, 1), Round()); err != nil {
		return nil, err
	}
	const maxTime = ^uint64(0)
	if err := add("round times max", 5, "Warning:\n1 out of order events recorded.\n",
		Sample(10, 2), Sample(maxTime, 1), Round(), Sample(maxTime-1, 1), Round(), Round(), Sample(30, 1), Sample(maxTime, 1), Round(), Round()); err != nil {
		return nil, err
	}
	recs := [][]byte{Sample(1_000_000, 1), Round(), Round()}
	for i := range uint64(OutOfOrder) {
		recs = append(recs, Sample(1+i, 1))
	}
	recs = append(recs, Round(), Round())
	if err := add("99,999 out-of-order events", OutOfOrder+1, "Warning:\n99999 out of order events recorded.\n", recs...); err != nil {
		return nil, err
	}
	return cases, nil
}

// NoRounds returns a file of n samples and no FINISHED_ROUND record, in
// falling time order (every record must wait in the time-order queue),
// zstd-compressed when compress is set. With sameTime every sample has
// the same time, so that the compressed stream is a decompression bomb
// (thousands of times smaller than its records).
func NoRounds(n int, compress, sameTime bool) ([]byte, error) {
	attr := Attr()
	opts := encode.Options{Attrs: []*decode.EventAttr{attr}}
	if compress {
		opts.Compress = decode.RecordTypeCompressed
	}
	var out bytes.Buffer
	w, err := encode.NewWriter(&seekBuf{b: &out}, opts)
	if err != nil {
		return nil, err
	}
	chain := []uint64{userIP, userIP + 16, userIP + 32}
	for i := 0; i < n; i++ {
		t := uint64(2*n - i)
		if sameTime {
			t = 1000
		}
		s := &decode.Sample{RecordCommon: decode.RecordCommon{Attr: attr, Misc: 2, Format: attr.SampleType, PID: 7, TID: 7,
			Time: t}, IP: userIP, Period: 1000, Callchain: chain}
		if err := w.WriteRecord(s); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// seekBuf is an io.WriteSeeker on a bytes.Buffer, so that the Writer
// writes the header in place.
type seekBuf struct {
	b   *bytes.Buffer
	pos int64
}

func (s *seekBuf) Write(p []byte) (int, error) {
	buf := s.b.Bytes()
	if s.pos < int64(len(buf)) {
		n := copy(buf[s.pos:], p)
		if n < len(p) {
			s.b.Write(p[n:])
		}
	} else {
		s.b.Write(p)
	}
	s.pos += int64(len(p))
	return len(p), nil
}

func (s *seekBuf) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		s.pos = off
	case 1:
		s.pos += off
	case 2:
		s.pos = int64(s.b.Len()) + off
	}
	return s.pos, nil
}
