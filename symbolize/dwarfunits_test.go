package symbolize

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestAbbrevsLocal checks which abbreviation tables allow a unit to be
// read on its own.
func TestAbbrevsLocal(t *testing.T) {
	// One entry: code 1, DW_TAG_compile_unit, children, then its
	// attribute specs and the (0, 0) that ends them; 0 ends the table.
	entry := func(specs ...byte) []byte {
		b := append([]byte{1, 0x11, 1}, specs...)
		return append(b, 0, 0, 0)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"ref4 name strp", entry(0x31, 0x13, 0x03, 0x0e), true},
		{"implicit_const", entry(0x3a, 0x21, 0x7f, 0x03, 0x08), true},
		{"implicit_const with a long value", entry(0x3a, 0x21, 0x80, 0x80, 0x01, 0x03, 0x08), true},
		{"ref_addr", entry(0x31, 0x10), false},
		{"GNU_ref_alt", entry(0x31, 0xa0, 0x3e), false},
		{"ref_sup4", entry(0x49, 0x1c), false},
		{"indirect", entry(0x03, 0x16), false},
		{"empty table", []byte{0}, true},
		{"cut in a spec", []byte{1, 0x11, 1, 0x03}, false},
		{"cut in a LEB", []byte{1, 0x91}, false},
		{"no end", []byte{}, false},
	} {
		if got := abbrevsLocal(c.b); got != c.want {
			t.Errorf("%s: abbrevsLocal(% x) = %v, want %v", c.name, c.b, got, c.want)
		}
	}
}

// TestSplitUnitsHeaders checks the unit headers splitUnits walks: both
// DWARF formats, versions 2 to 5, padding, and what it refuses.
func TestSplitUnitsHeaders(t *testing.T) {
	le := binary.LittleEndian
	abbrev := []byte{1, 0x11, 0, 0, 0, 0}
	unit32 := func(version uint16) []byte {
		b := le.AppendUint32(nil, 0)
		b = le.AppendUint16(b, version)
		if version == 5 {
			b = append(b, 1, 8) // DW_UT_compile, address size
			b = le.AppendUint32(b, 0)
		} else {
			b = le.AppendUint32(b, 0)
			b = append(b, 8)
		}
		b = append(b, 1) // the unit DIE, abbreviation 1
		le.PutUint32(b, uint32(len(b)-4))
		return b
	}
	unit64 := func() []byte {
		b := le.AppendUint32(nil, 0xffffffff)
		b = le.AppendUint64(b, 0)
		b = le.AppendUint16(b, 4)
		b = le.AppendUint64(b, 0)
		b = append(b, 8, 1)
		le.PutUint64(b[4:], uint64(len(b)-12))
		return b
	}
	cat := func(bs ...[]byte) (out []byte) {
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		info  []byte
		units int // 0: refused
	}{
		{"v4", unit32(4), 1},
		{"v2 v3 v5", cat(unit32(2), unit32(3), unit32(5)), 3},
		{"dwarf64", cat(unit64(), unit32(4)), 2},
		{"padding between units", cat(unit32(4), make([]byte, 4), unit32(4)), 2},
		{"version 6", unit32(6), 0},
		{"past the section", unit32(4)[:8], 0},
		{"reserved length", le.AppendUint32(nil, 0xfffffff5), 0},
		{"empty", nil, 0},
	} {
		du, ok := splitUnits(map[string][]byte{"info": c.info, "abbrev": abbrev}, le)
		got := 0
		if ok {
			got = len(du.units)
		}
		if got != c.units {
			t.Errorf("%s: %d units, want %d", c.name, got, c.units)
		}
	}
}

// TestSplitUsed checks that the corpus libraries' DWARF (GCC's, without
// references between units) is read unit by unit, and Go's (whose
// abstract origins refer into other units) whole.
func TestSplitUsed(t *testing.T) {
	split, whole := 0, 0
	for _, c := range testfixture.Corpus(t) {
		filepath.WalkDir(c.Symfs, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			if in := loadInline(p); in != nil {
				if in.split != nil {
					split++
				} else {
					whole++
				}
			}
			return nil
		})
	}
	if split == 0 {
		t.Errorf("no corpus file read unit by unit (%d whole)", whole)
	}
	t.Logf("%d files read unit by unit, %d whole", split, whole)
}
