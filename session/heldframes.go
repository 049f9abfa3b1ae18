package session

import "github.com/perfstitch/perfstitch/symbolize"

// The reorder stage (reorder.go) may hold tens of thousands of resolved
// samples behind one that still waits for its record. Their frames are
// mostly the same few thousand (a hot kernel path, a loop's user stack),
// so a held sample keeps each of its frames (and its resolved IP) as an
// index into a table of distinct frames, 4 bytes where a Frame is over
// 100, and gets them back when it is yielded.

// Sizes of a frame table.
const (
	epochFrames = 1 << 15 // distinct frames per table, about 3.5 MiB
	epochBits   = 13
	epochSlots  = 1 << epochBits // lookup slots (by address) per table
)

// frameEpoch is a table of distinct frames. Held samples point into it;
// it is recycled when the last of them is gone and a newer table has
// taken its place.
type frameEpoch struct {
	frames []symbolize.Frame
	// slot holds, by a hash of the address, 1 + the index of the frame
	// interned last with it (0: none).
	slot [epochSlots]uint32
	refs int // held samples using the table
}

// frameStore interns the frames of held samples.
type frameStore struct {
	cur  *frameEpoch
	free []*frameEpoch
	out  []symbolize.Frame // the frames of the item yielded last
}

// compact appends to refs the index of ip and then of each of frames in
// the current table (adding the frames it does not hold yet) and returns
// the table, which counts one more user, and refs.
func (fs *frameStore) compact(ip *symbolize.Frame, frames []symbolize.Frame, refs []uint32) (*frameEpoch, []uint32) {
	ep := fs.cur
	if ep == nil || len(ep.frames)+1+len(frames) > epochFrames {
		ep = fs.rotate()
	}
	ep.refs++
	refs = append(refs, ep.intern(ip))
	for i := range frames {
		refs = append(refs, ep.intern(&frames[i]))
	}
	return ep, refs
}

// intern returns the index of f in ep, adding it unless the frame last
// interned with its address hash is the same.
func (ep *frameEpoch) intern(f *symbolize.Frame) uint32 {
	k := uint32((f.Addr * 0x9e3779b97f4a7c15) >> (64 - epochBits))
	if j := ep.slot[k]; j != 0 && ep.frames[j-1] == *f {
		return j - 1
	}
	ep.frames = append(ep.frames, *f)
	n := uint32(len(ep.frames))
	ep.slot[k] = n
	return n - 1
}

// rotate starts a new current table, recycling the old one if nothing
// points into it.
func (fs *frameStore) rotate() *frameEpoch {
	if old := fs.cur; old != nil && old.refs == 0 {
		fs.recycle(old)
	}
	var ep *frameEpoch
	if n := len(fs.free); n > 0 {
		ep = fs.free[n-1]
		fs.free = fs.free[:n-1]
	} else {
		ep = &frameEpoch{frames: make([]symbolize.Frame, 0, 1024)}
	}
	fs.cur = ep
	return ep
}

// release drops one user of ep.
func (fs *frameStore) release(ep *frameEpoch) {
	ep.refs--
	if ep.refs == 0 && ep != fs.cur {
		fs.recycle(ep)
	}
}

func (fs *frameStore) recycle(ep *frameEpoch) {
	clear(ep.frames)
	ep.frames = ep.frames[:0]
	ep.slot = [epochSlots]uint32{}
	fs.free = append(fs.free, ep)
}

// expand returns the frame refs[0] indexes in ep, and the frames the
// other refs index, in storage valid until the next call.
func (fs *frameStore) expand(ep *frameEpoch, refs []uint32) (ip symbolize.Frame, frames []symbolize.Frame) {
	if fs.out == nil {
		fs.out = make([]symbolize.Frame, 0, 64)
	}
	out := fs.out[:0]
	for _, j := range refs[1:] {
		out = append(out, ep.frames[j])
	}
	fs.out = out
	return ep.frames[refs[0]], out
}
