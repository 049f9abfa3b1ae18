package symbolize

import (
	"debug/dwarf"
	"sort"
)

// cuIndex finds the compilation unit holding a pc the way
// [dwarf.Reader.SeekPC] does (the first unit, in section order, one of
// whose ranges holds pc) without reading every unit's DIE again for each
// pc: the unit DIEs and their ranges are read once, and a lookup is a
// binary search. SeekPC costs a pass over all units per distinct pc,
// which made inline lookups the largest stage of script on recordings of
// programs with debug info.
type cuIndex struct {
	spans []cuSpan // by lo
	// maxHi[i] is the largest hi of spans[:i+1], so that a lookup stops
	// going back once no earlier span can reach pc.
	maxHi []uint64
	// fallback: the units did not read as expected (a unit whose first
	// entry is no unit DIE); every lookup is left to SeekPC.
	fallback bool
}

// cuSpan is one range of a unit: [lo, hi) of the unit numbered unit (in
// section order), whose DIE is at off.
type cuSpan struct {
	lo, hi uint64
	unit   int
	off    dwarf.Offset
}

// newCUIndex reads the unit DIEs of d. A unit that does not read (an
// error or a panic of the dwarf package) ends the index there, as it ends
// SeekPC's search: later units are never found.
func newCUIndex(d *dwarf.Data) (ix *cuIndex) {
	ix = &cuIndex{}
	defer func() {
		if recover() != nil {
			ix.finish()
		}
	}()
	r := d.Reader()
	for unit := 0; ; {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		switch e.Tag {
		case 0:
			continue // padding between units
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit, dwarf.TagTypeUnit, dwarf.TagSkeletonUnit:
		default:
			return &cuIndex{fallback: true}
		}
		rs, err := d.Ranges(e)
		if err != nil {
			break
		}
		for _, rg := range rs {
			if rg[0] < rg[1] {
				ix.spans = append(ix.spans, cuSpan{lo: rg[0], hi: rg[1], unit: unit, off: e.Offset})
			}
		}
		unit++
		// On a unit DIE, SkipChildren moves to the next unit without
		// reading the children (but the last unit's).
		r.SkipChildren()
	}
	ix.finish()
	return ix
}

func (ix *cuIndex) finish() {
	sort.SliceStable(ix.spans, func(i, j int) bool { return ix.spans[i].lo < ix.spans[j].lo })
	ix.maxHi = make([]uint64, len(ix.spans))
	var m uint64
	for i, s := range ix.spans {
		m = max(m, s.hi)
		ix.maxHi[i] = m
	}
}

// seekPC positions r at the children of the unit holding pc and returns
// the unit's DIE, as r.SeekPC(pc) would from a fresh reader.
func (in *inlineInfo) seekPC(r *dwarf.Reader, pc uint64) (*dwarf.Entry, error) {
	if in.cus == nil {
		in.cus = newCUIndex(in.d)
	}
	ix := in.cus
	if ix.fallback {
		return r.SeekPC(pc)
	}
	// The spans starting at or before pc, latest first, while one of
	// them can still reach pc; the earliest unit wins.
	i := sort.Search(len(ix.spans), func(i int) bool { return ix.spans[i].lo > pc }) - 1
	best := -1
	for ; i >= 0 && ix.maxHi[i] > pc; i-- {
		if s := &ix.spans[i]; pc < s.hi && (best < 0 || s.unit < ix.spans[best].unit) {
			best = i
		}
	}
	if best < 0 {
		return nil, dwarf.ErrUnknownPC
	}
	r.Seek(ix.spans[best].off)
	return r.Next()
}
