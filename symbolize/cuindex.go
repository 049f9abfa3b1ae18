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
func newCUIndex(d *dwarf.Data) *cuIndex {
	r := d.Reader()
	return indexUnits(func(unit int) (*dwarf.Data, *dwarf.Reader) {
		if unit > 0 {
			// On a unit DIE, SkipChildren moves to the next unit
			// without reading the children (but the last unit's).
			r.SkipChildren()
		}
		return d, r
	})
}

// newSplitIndex is newCUIndex over a file read unit by unit: each unit's
// dwarf.Data is made for its DIE and dropped (a lookup makes it again),
// so the abbreviation tables of the units never looked up are not kept.
func newSplitIndex(du *dwarfUnits) *cuIndex {
	return indexUnits(func(unit int) (*dwarf.Data, *dwarf.Reader) {
		if unit >= len(du.units) {
			return nil, nil
		}
		d, err := du.make(unit)
		if err != nil {
			return nil, nil
		}
		return d, d.Reader()
	})
}

// indexUnits indexes the units that next gives, in section order: the
// data of unit i and a reader at its DIE, nil past the last.
func indexUnits(next func(unit int) (*dwarf.Data, *dwarf.Reader)) (ix *cuIndex) {
	ix = &cuIndex{}
	defer func() {
		if recover() != nil {
			ix.finish()
		}
	}()
	for unit := 0; ; unit++ {
		d, r := next(unit)
		if d == nil || !ix.addUnit(d, r, unit) {
			break
		}
	}
	if ix.fallback {
		return &cuIndex{fallback: true}
	}
	ix.finish()
	return ix
}

// addUnit reads the next unit DIE with r (padding entries skipped) and
// adds its ranges as those of unit; false at the end, on an error, or on
// an entry that is no unit DIE (then ix.fallback is set).
func (ix *cuIndex) addUnit(d *dwarf.Data, r *dwarf.Reader, unit int) bool {
	for pad := 0; pad < maxPadding; pad++ {
		e, err := r.Next()
		if err != nil || e == nil {
			return false
		}
		switch e.Tag {
		case 0:
			continue // padding between units
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit, dwarf.TagTypeUnit, dwarf.TagSkeletonUnit:
		default:
			ix.fallback = true
			return false
		}
		rs, err := d.Ranges(e)
		if err != nil {
			return false
		}
		for _, rg := range rs {
			if rg[0] < rg[1] {
				ix.spans = append(ix.spans, cuSpan{lo: rg[0], hi: rg[1], unit: unit, off: e.Offset})
			}
		}
		return true
	}
	return false // a reader that yields null entries without end (a malformed unit)
}

// maxPadding bounds the null entries read before a unit DIE: on some
// malformed units debug/dwarf's reader yields them without moving on.
const maxPadding = 4096

func (ix *cuIndex) finish() {
	sort.SliceStable(ix.spans, func(i, j int) bool { return ix.spans[i].lo < ix.spans[j].lo })
	ix.maxHi = make([]uint64, len(ix.spans))
	var m uint64
	for i, s := range ix.spans {
		m = max(m, s.hi)
		ix.maxHi[i] = m
	}
}

// unitView is the compilation unit a lookup reads: its DIE, a reader
// positioned at its children, and the data both belong to, whose offsets
// start at base in the file's .debug_info.
type unitView struct {
	d    *dwarf.Data
	r    *dwarf.Reader
	cu   *dwarf.Entry
	base dwarf.Offset
}

// seekPC returns the unit holding pc, its reader positioned at the
// unit's children, as r.SeekPC(pc) would from a fresh reader of the
// whole file's data.
func (in *inlineInfo) seekPC(pc uint64) (unitView, error) {
	if in.cus == nil {
		if in.split != nil {
			in.cus = newSplitIndex(in.split)
		} else {
			in.cus = newCUIndex(in.d)
		}
	}
	ix := in.cus
	if ix.fallback {
		d := in.d
		if d == nil {
			// A split file whose units did not read as expected: read
			// whole, as before the split.
			var err error
			if d, err = newDWARF(in.split.sec, in.split.sec["info"]); err != nil {
				return unitView{}, err
			}
			in.d, in.split = d, nil
		}
		r := d.Reader()
		cu, err := r.SeekPC(pc)
		return unitView{d: d, r: r, cu: cu}, err
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
		return unitView{}, dwarf.ErrUnknownPC
	}
	sp := &ix.spans[best]
	u := unitView{d: in.d}
	if in.split != nil {
		d, err := in.split.unit(sp.unit)
		if err != nil {
			return unitView{}, err
		}
		u.d, u.base = d, in.split.base(sp.unit)
	}
	u.r = u.d.Reader()
	u.r.Seek(sp.off)
	cu, err := u.r.Next()
	u.cu = cu
	return u, err
}
