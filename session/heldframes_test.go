package session

import (
	"fmt"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/symbolize"
)

// TestFrameStore: held IPs and frames come back as they were, repeated frames and
// frames that share an address but not their symbol included; tables are
// recycled once nothing points into them and a newer one is current.
func TestFrameStore(t *testing.T) {
	frame := func(addr uint64, sym string) symbolize.Frame {
		return symbolize.Frame{Addr: addr, MapAddr: addr - 0x1000, Symbol: sym, Offset: addr & 0xff, DSO: "/bin/x", DSOShort: "x"}
	}
	var fs frameStore
	type heldFrames struct {
		ep     *frameEpoch
		refs   []uint32
		wantIP symbolize.Frame
		want   []symbolize.Frame
	}
	var all []heldFrames
	hold := func(frames []symbolize.Frame) {
		ip := frame(0x1200, "b") // a sample without callchain
		if len(frames) > 0 {
			ip = frames[0]
		}
		ep, refs := fs.compact(&ip, frames, nil)
		all = append(all, heldFrames{ep, refs, ip, slices.Clone(frames)})
	}
	hold([]symbolize.Frame{frame(0x1100, "a"), frame(0x1200, "b"), frame(0x1100, "a")})
	hold([]symbolize.Frame{frame(0x1100, "a"), frame(0x1100, "other process's a"), {Addr: 0x5, Cookie: true, Reason: symbolize.Special}})
	hold(nil)
	if n := len(fs.cur.frames); n != 4 {
		t.Errorf("table holds %d frames, want the 4 distinct ones", n)
	}
	// Enough distinct frames to fill several tables.
	for i := range 3 * epochFrames / 100 {
		var frames []symbolize.Frame
		for j := range 100 {
			frames = append(frames, frame(uint64(0x10000+100*i+j), fmt.Sprint("f", i, j)))
		}
		hold(frames)
	}
	epochs := map[*frameEpoch]bool{}
	for i, h := range all {
		epochs[h.ep] = true
		if ip, got := fs.expand(h.ep, h.refs, nil); ip != h.wantIP || !slices.Equal(got, h.want) {
			t.Fatalf("held %d: IP %v, frames %v; want %v, %v", i, ip, got, h.wantIP, h.want)
		}
		// Into a batch's free space: there, in place while it fits.
		dst := make([]symbolize.Frame, 0, 64)
		ip, got := fs.expand(h.ep, h.refs, dst)
		if ip != h.wantIP || !slices.Equal(got, h.want) {
			t.Fatalf("held %d into dst: IP %v, frames %v; want %v, %v", i, ip, got, h.wantIP, h.want)
		}
		if len(got) > 0 && len(got) <= cap(dst) && &got[0] != &dst[:1][0] {
			t.Fatalf("held %d: %d frames not in dst's storage", i, len(got))
		}
	}
	if len(epochs) < 3 {
		t.Errorf("%d tables for %d frames, want at least 3", len(epochs), 3*epochFrames)
	}
	for _, h := range all {
		fs.release(h.ep)
	}
	if want := len(epochs) - 1; len(fs.free) != want {
		t.Errorf("%d tables recycled, want %d (all but the current one)", len(fs.free), want)
	}
	for _, ep := range fs.free {
		if len(ep.frames) != 0 || ep.refs != 0 {
			t.Errorf("recycled table holds %d frames, %d users", len(ep.frames), ep.refs)
		}
	}
}
