package symbolize

import (
	"debug/dwarf"
	"encoding/binary"
)

// dwarfUnits is a file's DWARF read one compilation unit at a time.
// debug/dwarf's New parses the abbreviation table of every unit before it
// returns, and keeps them: 16 MiB for the 4,126 units of glibc's debug
// file, held for the whole run, where a profile's lookups need the few
// units holding sampled pcs. Here each unit gets a dwarf.Data of its own
// over its bytes of .debug_info (the other sections shared), made when a
// lookup first needs it. That is only sound for a file whose units never
// refer into another unit; [splitUnits] checks it.
type dwarfUnits struct {
	sec   map[string][]byte // the DWARF sections by the name after ".debug_"
	units []unitSpan        // in section order
	data  map[int]*dwarf.Data
}

// unitSpan is one unit's bytes of .debug_info, [start, end).
type unitSpan struct{ start, end uint64 }

// Forms that refer outside their unit (or whose form is only known per
// entry): a file using any of them is read whole.
const (
	formRefAddr   = 0x10
	formIndirect  = 0x16
	formRefSup4   = 0x1c
	formRefSup8   = 0x24
	formImplicit  = 0x21 // DW_FORM_implicit_const: a value follows the form
	formGNURefAlt = 0x1f20
)

// splitUnits returns sec read unit by unit, or false when it must be read
// whole: a unit header that does not parse, an abbreviation table that
// does not, or a form referring outside its unit.
func splitUnits(sec map[string][]byte, order binary.ByteOrder) (*dwarfUnits, bool) {
	info, abbrev := sec["info"], sec["abbrev"]
	if len(info) == 0 {
		return nil, false
	}
	du := &dwarfUnits{sec: sec, data: map[int]*dwarf.Data{}}
	checked := map[uint64]bool{}
	for off := uint64(0); off < uint64(len(info)); {
		if uint64(len(info))-off < 4 {
			return nil, false
		}
		n := uint64(order.Uint32(info[off:]))
		hdr := uint64(4)
		dwarf64 := false
		switch {
		case n == 0xffffffff:
			if uint64(len(info))-off < 12 {
				return nil, false
			}
			n, hdr, dwarf64 = order.Uint64(info[off+4:]), 12, true
		case n >= 0xfffffff0:
			return nil, false // reserved lengths
		case n == 0:
			off += 4 // padding
			continue
		}
		if n < 2 || n > uint64(len(info))-off-hdr {
			return nil, false // past the section (hdr fits: checked above)
		}
		end := off + hdr + n
		p := info[off+hdr : end]
		version := order.Uint16(p)
		var at int
		switch {
		case version >= 2 && version <= 4:
			at = 2
		case version == 5:
			at = 4 // unit_type, address_size
		default:
			return nil, false
		}
		var aoff uint64
		if dwarf64 {
			if len(p) < at+8 {
				return nil, false
			}
			aoff = order.Uint64(p[at:])
		} else {
			if len(p) < at+4 {
				return nil, false
			}
			aoff = uint64(order.Uint32(p[at:]))
		}
		if !checked[aoff] {
			if aoff >= uint64(len(abbrev)) || !abbrevsLocal(abbrev[aoff:]) {
				return nil, false
			}
			checked[aoff] = true
		}
		du.units = append(du.units, unitSpan{off, end})
		off = end
	}
	return du, len(du.units) > 0
}

// abbrevsLocal reports whether the abbreviation table at the start of b
// parses and uses no form of the ones a split read cannot follow.
func abbrevsLocal(b []byte) bool {
	for {
		code, ok := uleb(&b)
		if !ok {
			return false
		}
		if code == 0 {
			return true // the table's end
		}
		if _, ok := uleb(&b); !ok { // tag
			return false
		}
		if len(b) == 0 {
			return false
		}
		b = b[1:] // has children
		for {
			attr, ok1 := uleb(&b)
			form, ok2 := uleb(&b)
			if !ok1 || !ok2 {
				return false
			}
			if attr == 0 && form == 0 {
				break
			}
			switch form {
			case formRefAddr, formIndirect, formRefSup4, formRefSup8, formGNURefAlt:
				return false
			case formImplicit:
				if _, ok := uleb(&b); !ok { // an SLEB128 ends as a ULEB128 does
					return false
				}
			}
		}
	}
}

// uleb reads an unsigned LEB128 number from the front of *b.
func uleb(b *[]byte) (uint64, bool) {
	var v uint64
	for i, c := range *b {
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			*b = (*b)[i+1:]
			return v, true
		}
	}
	return 0, false
}

// unit returns the dwarf.Data of unit i, made on the first call and kept.
func (du *dwarfUnits) unit(i int) (*dwarf.Data, error) {
	if d, ok := du.data[i]; ok {
		return d, nil
	}
	d, err := du.make(i)
	if err != nil {
		return nil, err
	}
	du.data[i] = d
	return d, nil
}

// make returns a new dwarf.Data of unit i alone.
func (du *dwarfUnits) make(i int) (*dwarf.Data, error) {
	u := du.units[i]
	return newDWARF(du.sec, du.sec["info"][u.start:u.end])
}

// base returns where unit i starts in .debug_info: the offsets of its
// dwarf.Data are relative to it.
func (du *dwarfUnits) base(i int) dwarf.Offset { return dwarf.Offset(du.units[i].start) }

// newDWARF returns the dwarf.Data of the sections sec with info as its
// .debug_info.
func newDWARF(sec map[string][]byte, info []byte) (*dwarf.Data, error) {
	d, err := dwarf.New(sec["abbrev"], nil, nil, info, sec["line"], nil, sec["ranges"], sec["str"])
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists"} {
		if b, ok := sec[name]; ok {
			if err := d.AddSection(".debug_"+name, b); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}
