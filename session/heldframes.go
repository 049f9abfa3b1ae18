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

// compact appends to refs the index of ip in the current table, then
// frames as runs (start, length) of the table's entries, adding the
// frames it does not hold yet; it returns the table, which counts one
// more user, and refs. A run goes on as long as the table's next entry is
// the next frame, so a sequence of frames seen before (a kernel path, a
// user stack) is mostly one run, which expand copies in one piece or not
// at all.
func (fs *frameStore) compact(ip *symbolize.Frame, frames []symbolize.Frame, refs []uint32) (*frameEpoch, []uint32) {
	ep := fs.cur
	if ep == nil || len(ep.frames)+1+len(frames) > epochFrames {
		ep = fs.rotate()
	}
	ep.refs++
	refs = append(refs, ep.intern(ip))
	runs := len(refs)
	for i := 0; i < len(frames); {
		j := ep.intern(&frames[i])
		n := 1
		for i+n < len(frames) && int(j)+n < len(ep.frames) && ep.frames[int(j)+n] == frames[i+n] {
			n++
		}
		if k := len(refs); k > runs && refs[k-2]+refs[k-1] == j {
			refs[k-1] += uint32(n) // the run before goes on here
		} else {
			refs = append(refs, j, uint32(n))
		}
		i += n
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

// expand returns the frame refs[0] indexes in ep, and the frames of the
// runs the other refs give. With dst nil they are valid until the next
// call (a single run is the table's own storage, which does not change
// while a sample in it is held); else they are appended to dst[:0] (a
// batch's free frame space, where the batch then keeps them without
// another copy).
func (fs *frameStore) expand(ep *frameEpoch, refs []uint32, dst []symbolize.Frame) (ip symbolize.Frame, frames []symbolize.Frame) {
	ip = ep.frames[refs[0]]
	runs := refs[1:]
	if dst == nil && len(runs) == 2 {
		start, end := runs[0], runs[0]+runs[1]
		return ip, ep.frames[start:end:end]
	}
	out := dst[:0]
	if dst == nil {
		if fs.out == nil {
			fs.out = make([]symbolize.Frame, 0, 64)
		}
		out = fs.out[:0]
	}
	for i := 0; i+1 < len(runs); i += 2 {
		out = append(out, ep.frames[runs[i]:runs[i]+runs[i+1]]...)
	}
	if dst == nil {
		fs.out = out
	}
	return ip, out
}
