package inject

import (
	"bytes"
	"context"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

// synthetic builds a deferred recording (cookie ABI, three threads) from
// ops, one byte each: the low two bits choose a kernel-mode deferred
// sample, the thread's CALLCHAIN_DEFERRED record (ending its kernel
// entry), a FINISHED_ROUND, or an ordinary sample; the next two bits the
// thread; the top bit moves the clock back a little (records of several
// CPU buffers overlap in time). It returns the file and its number of
// samples.
func synthetic(ops []byte) ([]byte, int, error) {
	attr := &decode.EventAttr{
		Type: decode.AttrTypeSoftware, Size: 136, SamplePeriod: 1000,
		SampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SampleCallchain | decode.SampleID,
		Flags:      decode.AttrSampleIDAll | decode.AttrComm | decode.AttrDeferCallchain | decode.AttrDeferOutput,
		IDs:        []uint64{7}, Name: "cpu-clock",
	}
	var buf bytes.Buffer
	w, err := encode.NewWriter(&buf, encode.Options{Attrs: []*decode.EventAttr{attr}})
	if err != nil {
		return nil, 0, err
	}
	common := func(tid int32, t uint64) decode.RecordCommon {
		return decode.RecordCommon{Attr: attr, Format: attr.SampleType, PID: 100, TID: tid, Time: t, TrailerTime: t, ID: 7,
			Misc: uint16(decode.CPUModeKernel)}
	}
	now := uint64(1000)
	entry := map[int32]uint64{}
	n := 0
	for i, op := range ops {
		tid := int32(101 + (op>>2)&3%3)
		if op&0x80 != 0 && now > 50 {
			now -= 50
		} else {
			now += 10
		}
		cookie := uint64(tid)<<32 | (entry[tid]*2 + 1)
		var r decode.Record
		switch op & 3 {
		case 0:
			r = &decode.Sample{RecordCommon: common(tid, now), IP: 0xffffffff81000000 + uint64(i),
				Callchain: []uint64{decode.ContextKernel, 0xffffffff81000000 + uint64(i), decode.ContextUserDeferred, cookie}}
			n++
		case 1:
			c := common(tid, now)
			c.Misc = uint16(decode.CPUModeUser)
			r = &decode.CallchainDeferred{RecordCommon: c, ABI: decode.DeferredCookie, Cookie: cookie, IPs: []uint64{0x400000 + uint64(i), 0x401000}}
			entry[tid]++
		case 2:
			r = &decode.FinishedRound{}
		case 3:
			c := common(tid, now)
			c.Misc = uint16(decode.CPUModeUser)
			r = &decode.Sample{RecordCommon: c, IP: 0x400000 + uint64(i), Callchain: []uint64{decode.ContextUser, 0x400000 + uint64(i)}}
			n++
		}
		if err := w.WriteRecord(r); err != nil {
			return nil, 0, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), n, nil
}

// FuzzInject: every synthetic deferred recording injects into a clean one
// with as many samples as it had (and, with DropUnstitched, as many as
// were not unstitched).
func FuzzInject(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{0, 4, 8, 0, 1, 2, 5, 9, 2, 3})
	f.Add([]byte{0, 0x84, 2, 0x88, 1, 2, 9, 5, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 4096 {
			return
		}
		in, n, err := synthetic(ops)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		for _, drop := range []bool{false, true} {
			f, err := decode.NewFile(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			res, err := Rewrite(context.Background(), f, &out, Options{DropUnstitched: drop})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stitch.Total() != uint64(n) {
				t.Fatalf("%d samples read, %d written", res.Stitch.Total(), n)
			}
			want := n
			if drop {
				want -= int(res.Unstitched())
			}
			if res.Records == 0 {
				// An empty data section: decode (as perf) warns that the
				// recording was not terminated.
				continue
			}
			if got := readOutput(t, out.Bytes()); got.samples != want {
				t.Fatalf("drop %v: %d samples out, want %d (%d in, %d unstitched)", drop, got.samples, want, n, res.Unstitched())
			}
		}
	})
}
