package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
	"github.com/perfstitch/perfstitch/stitch"
)

// renamingPipe writes a pipe-mode recording of n samples of one event
// that EVENT_UPDATE renames after every `every` samples (at a round's
// end), and returns its path.
func renamingPipe(t *testing.T, n, every int) string {
	t.Helper()
	bo := binary.LittleEndian
	const id = 7
	attr := &decode.EventAttr{
		Type: decode.AttrTypeSoftware, Size: 128, SamplePeriod: 1000,
		SampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SamplePeriod | decode.SampleCallchain,
	}
	b := binary.LittleEndian.AppendUint64(nil, 0x32454c4946524550) // PERFILE2
	b = bo.AppendUint64(b, 16)
	body := encode.AppendAttr(nil, bo, attr)
	body = bo.AppendUint64(body, id)
	b = append(b, encode.RawRecord(bo, decode.RecordTypeHeaderAttr, 0, body)...)
	round := encode.RawRecord(bo, decode.RecordTypeFinishedRound, 0, nil)
	for i := range n {
		s := &decode.Sample{IP: 0x1000 + uint64(i), Period: 1000, Callchain: []uint64{0x1000 + uint64(i), 0x2000}}
		s.PID, s.TID, s.Time = 1, 1, uint64(i+1)*1000
		var err error
		if b, err = encode.AppendRecord(b, bo, s, attr); err != nil {
			t.Fatal(err)
		}
		if (i+1)%500 == 0 {
			b = append(b, round...)
		}
		if (i+1)%every == 0 {
			u := bo.AppendUint64(nil, 2) // NAME
			u = bo.AppendUint64(u, id)
			u = append(u, fmt.Sprintf("name%d\x00\x00\x00", i+1)[:8]...)
			b = append(b, encode.RawRecord(bo, decode.RecordTypeEventUpdate, 0, u)...)
		}
	}
	b = append(b, round...)
	path := filepath.Join(t.TempDir(), "pipe.data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProducerPipeState checks that in pipe mode, where the decoder
// renames the event while the producer runs ahead, every sample the
// session yields meets the event's name (and callchain) it meets when
// decode and stitch run on the caller's goroutine; under -race, that no
// read of the name races with the rename.
func TestProducerPipeState(t *testing.T) {
	// Renames inside the first batch, after several batches, and at
	// a batch's end.
	for _, every := range []int{300, 5000, batchSize} {
		path := renamingPipe(t, 3*batchSize+100, every)

		f, err := decode.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		st := stitch.New(f.Records(decode.TimeOrder), stitch.Options{})
		for st.Next() {
			if e := st.Event(); e.Sample != nil {
				want = append(want, fmt.Sprint(e.Sample.Attr.Name, e.Sample.Callchain))
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()

		s, err := Open(context.Background(), Options{Input: path})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for s.Next() {
			if ev := s.Event(); ev != nil {
				got = append(got, fmt.Sprint(ev.Attr.Name, ev.Sample.Sample.Callchain))
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if len(want) != 3*batchSize+100 || want[0] == want[len(want)-1] {
			t.Fatalf("every %d: the recording is not what the test needs: %d samples", every, len(want))
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("every %d: sample %d is %s, want %s", every, i, got[i], want[i])
				}
			}
			t.Fatalf("every %d: %d samples, want %d", every, len(got), len(want))
		}
	}
}

// TestProducerPipeStop checks that a pipe-mode session whose decoder
// waits for the consumer ends when its context is cancelled, and when it
// is closed halfway.
func TestProducerPipeStop(t *testing.T) {
	path := renamingPipe(t, 3*batchSize+100, 300)
	for _, cancelAt := range []int{1, 10, batchSize, 2*batchSize + 5} {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := Open(ctx, Options{Input: path})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for s.Next() {
			if n++; n == cancelAt {
				cancel()
			}
		}
		if err := s.Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at %d: after %d items, error %v, want %v", cancelAt, n, err, context.Canceled)
		}
		s.Close()
		cancel()

		s, err = Open(context.Background(), Options{Input: path})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < cancelAt && s.Next(); n++ {
		}
		if err := s.Close(); err != nil {
			t.Errorf("closed at %d: %v", cancelAt, err)
		}
	}
}
