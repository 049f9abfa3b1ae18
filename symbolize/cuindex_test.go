package symbolize

import (
	"debug/dwarf"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestCUIndexLikeSeekPC checks that the unit index finds, for pcs at and
// around every unit range's ends and across each file's whole span, the
// unit dwarf.Reader.SeekPC finds from a fresh reader, and leaves the
// reader at the same next entry, in every DSO with DWARF of the corpus.
func TestCUIndexLikeSeekPC(t *testing.T) {
	files := 0
	for _, c := range testfixture.Corpus(t) {
		filepath.WalkDir(c.Symfs, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			in := loadInline(p)
			if in == nil {
				return nil
			}
			files++
			t.Run(c.Name+"/"+filepath.Base(p), func(t *testing.T) { checkCUIndex(t, in) })
			return nil
		})
	}
	if files == 0 {
		t.Skip("no corpus DSO with DWARF")
	}
}

func checkCUIndex(t *testing.T, in *inlineInfo) {
	whole := in.d
	var ix *cuIndex
	if in.split != nil {
		var err error
		if whole, err = newDWARF(in.split.sec, in.split.sec["info"]); err != nil {
			t.Fatalf("the file read whole: %v", err)
		}
		ix = newSplitIndex(in.split)
	} else {
		ix = newCUIndex(in.d)
	}
	if ix.fallback || len(ix.spans) == 0 {
		t.Fatalf("no index (fallback %v, %d spans)", ix.fallback, len(ix.spans))
	}
	var pcs []uint64
	lo, hi := ix.spans[0].lo, ix.maxHi[len(ix.maxHi)-1]
	// SeekPC costs a pass over the units per pc: some 150 pcs per file.
	stride := max(1, len(ix.spans)/20)
	for i := 0; i < len(ix.spans); i += stride {
		s := ix.spans[i]
		pcs = append(pcs, s.lo-1, s.lo, s.lo+1, s.hi-1, s.hi)
	}
	const steps = 50
	for i := uint64(0); i <= steps; i++ {
		pcs = append(pcs, lo+(hi-lo)/steps*i)
	}
	pcs = append(pcs, 0, hi+0x1000)
	for _, pc := range pcs {
		want, wantErr := whole.Reader().SeekPC(pc)
		u, gotErr := in.seekPC(pc)
		got := u.cu
		if (wantErr == nil) != (gotErr == nil) || (want == nil) != (got == nil) ||
			(want != nil && want.Offset != u.base+got.Offset) {
			t.Fatalf("pc %#x: got %v (unit at %#x), %v; SeekPC %v, %v", pc, entryOff(got), u.base, gotErr, entryOff(want), wantErr)
		}
		if want == nil || !want.Children {
			// A unit without children is all a lookup reads (split, its
			// reader ends there; whole, it goes on to the next unit).
			continue
		}
		rw := whole.Reader()
		rw.SeekPC(pc)
		nw, _ := rw.Next()
		ng, _ := u.r.Next()
		if ng != nil {
			ng.Offset += u.base
		}
		if entryOff(nw) != entryOff(ng) {
			t.Fatalf("pc %#x: next entry at %v, after SeekPC at %v", pc, entryOff(ng), entryOff(nw))
		}
	}
}

func entryOff(e *dwarf.Entry) any {
	if e == nil {
		return nil
	}
	return e.Offset
}
