package stitch_test

import (
	"fmt"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// records is a Source over a slice, standing in for decode.Records.
type records struct {
	recs []decode.Record
	i    int
}

func (r *records) Next() bool            { r.i++; return r.i <= len(r.recs) }
func (r *records) Record() decode.Record { return r.recs[r.i-1] }
func (r *records) Err() error            { return nil }

// A kernel-mode sample deferred its user callchain (cookie ABI); the
// thread's CALLCHAIN_DEFERRED record arrives after another thread's
// ordinary sample. The Stitcher delivers both samples in time order, the
// first one completed.
func ExampleStitcher() {
	ev := &decode.EventAttr{Name: "cpu-clock", Flags: decode.AttrDeferCallchain | decode.AttrDeferOutput}
	common := func(tid int32, time uint64) decode.RecordCommon {
		return decode.RecordCommon{Attr: ev, Format: decode.SampleTID | decode.SampleTime | decode.SampleCallchain, PID: tid, TID: tid, Time: time}
	}
	src := &records{recs: []decode.Record{
		&decode.Sample{RecordCommon: common(7, 100), Callchain: []uint64{decode.ContextKernel, 0xffffffff81000c82, decode.ContextUserDeferred, 0xb00000006}},
		&decode.Sample{RecordCommon: common(8, 101), Callchain: []uint64{decode.ContextUser, 0x401000}},
		&decode.CallchainDeferred{RecordCommon: common(7, 102), ABI: decode.DeferredCookie, Cookie: 0xb00000006, IPs: []uint64{0x401620, 0x401768}},
	}}
	st := stitch.New(src, stitch.Options{})
	for st.Next() {
		if s := st.Event().Sample; s != nil {
			fmt.Printf("tid %d t=%d %v %x\n", s.TID, s.Time, s.State, s.Callchain)
		}
	}
	fmt.Println(st.Stats().Count(stitch.Stitched), "stitched")
	// Output:
	// tid 7 t=100 stitched [ffffffffffffff80 ffffffff81000c82 fffffffffffffe00 401620 401768]
	// tid 8 t=101 not-deferred [fffffffffffffe00 401000]
	// 1 stitched
}
