package symbolize

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// ehSection builds an .eh_frame section at address addr with one CIE (zR,
// pcrel|sdata4 FDE pointers, code align 1, data align -8, RA column 16)
// and one FDE for [start, start+size) with the given instructions.
func ehSection(addr, start, size uint64, cieInstr, fdeInstr []byte) []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	cie := append([]byte{0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b}, cieInstr...)
	for len(cie)%8 != 4 {
		cie = append(cie, 0)
	}
	u32(uint32(len(cie)))
	b = append(b, cie...)
	fdeAt := len(b)
	body := make([]byte, 0, 32)
	body = binary.LittleEndian.AppendUint32(body, uint32(fdeAt+4)) // CIE pointer: back to offset 0
	pcField := addr + uint64(fdeAt) + 8
	body = binary.LittleEndian.AppendUint32(body, uint32(int32(int64(start)-int64(pcField))))
	body = binary.LittleEndian.AppendUint32(body, uint32(size))
	body = append(body, 0) // augmentation data length
	body = append(body, fdeInstr...)
	for len(body)%8 != 4 {
		body = append(body, 0)
	}
	u32(uint32(len(body)))
	b = append(b, body...)
	u32(0)
	return b
}

// testCIEInstr is the usual x86-64 CIE program: CFA = rsp+8, rip at CFA-8.
var testCIEInstr = []byte{0x0c, 0x07, 0x08, 0x90, 0x01}

// testFDEInstr is a frame-pointer prologue and an epilogue with
// remember/restore_state.
var testFDEInstr = []byte{
	0x41,       // advance_loc 1
	0x0e, 0x10, // def_cfa_offset 16
	0x86, 0x02, // rbp at CFA-16
	0x43,       // advance_loc 3
	0x0d, 0x06, // def_cfa_register rbp
	0x02, 0x10, // advance_loc1 16
	0x0a,             // remember_state
	0x0c, 0x07, 0x08, // def_cfa rsp+8
	0x41, // advance_loc 1
	0x0b, // restore_state
}

func TestCFIRows(t *testing.T) {
	const addr, start = 0x2000, 0x1000
	tab, err := parseCFI(ehSection(addr, start, 0x40, testCIEInstr, testFDEInstr), addr, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.fdes) != 1 || tab.fdes[0].start != start || tab.fdes[0].end != start+0x40 {
		t.Fatalf("fdes = %+v", tab.fdes)
	}
	tests := []struct {
		pc      uint64
		cfaReg  uint16
		cfaOff  int64
		rbpKind uint8
		rbpOff  int64
	}{
		{start, dwarfRSP, 8, ruleSame, 0},
		{start + 1, dwarfRSP, 16, ruleOffset, -16},
		{start + 3, dwarfRSP, 16, ruleOffset, -16},
		{start + 4, dwarfRBP, 16, ruleOffset, -16},
		{start + 0x13, dwarfRBP, 16, ruleOffset, -16},
		{start + 0x14, dwarfRSP, 8, ruleOffset, -16},
		{start + 0x15, dwarfRBP, 16, ruleOffset, -16},
		{start + 0x3f, dwarfRBP, 16, ruleOffset, -16},
	}
	for _, tt := range tests {
		f := tab.find(tt.pc)
		if f == nil {
			t.Fatalf("pc %#x: no FDE", tt.pc)
		}
		row, err := f.row(tt.pc)
		if err != nil {
			t.Fatalf("pc %#x: %v", tt.pc, err)
		}
		if row.cfaReg != tt.cfaReg || row.cfaOff != tt.cfaOff || row.cfaExpr != nil {
			t.Errorf("pc %#x: CFA = r%d%+d, want r%d%+d", tt.pc, row.cfaReg, row.cfaOff, tt.cfaReg, tt.cfaOff)
		}
		if r := row.regs[dwarfRBP]; r.kind != tt.rbpKind || r.off != tt.rbpOff {
			t.Errorf("pc %#x: rbp rule %+v, want kind %d off %d", tt.pc, r, tt.rbpKind, tt.rbpOff)
		}
		if r := row.regs[dwarfRIP]; r.kind != ruleOffset || r.off != -8 {
			t.Errorf("pc %#x: rip rule %+v, want CFA-8", tt.pc, r)
		}
	}
	for _, pc := range []uint64{start - 1, start + 0x40} {
		if f := tab.find(pc); f != nil {
			t.Errorf("pc %#x: found FDE %#x-%#x", pc, f.start, f.end)
		}
	}
}

func TestCFIMalformed(t *testing.T) {
	good := ehSection(0, 0x1000, 0x10, testCIEInstr, testFDEInstr)
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"short length", []byte{1, 2}},
		{"length past end", []byte{0xff, 0, 0, 0, 0, 0, 0, 0}},
		{"truncated", good[:len(good)/2]},
		{"restore_state without remember", ehSection(0, 0x1000, 0x10, testCIEInstr, []byte{0x0b})},
		{"unknown opcode", ehSection(0, 0x1000, 0x10, testCIEInstr, []byte{0x3f})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, _ := parseCFI(tt.data, 0, true)
			for i := range tab.fdes {
				if _, err := tab.fdes[i].row(tab.fdes[i].end - 1); err == nil && tt.name != "truncated" {
					t.Errorf("row of %+v: no error", tab.fdes[i])
				}
			}
		})
	}
}

func TestEvalExpr(t *testing.T) {
	f := &unwindFrame{cfa: 0x7000, ip: 0x1234, stack: make([]byte, 64), sp0: 0x7000, mem: testMem}
	f.locs[dwarfRBP] = regLoc{kind: locVal, v: 0x7010}
	f.locs[3] = regLoc{kind: locNull} // rbx
	binary.LittleEndian.PutUint64(f.stack[16:], 0xabcdef)
	tests := []struct {
		name    string
		expr    []byte
		initial []uint64
		want    uint64
		ok      bool
	}{
		// The PLT CFA expression: rsp+8 + ((rip&15) >= 11) << 3.
		{"plt", []byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}, nil, 0x7008, true},
		{"breg6 deref", []byte{0x76, 0x00, 0x06}, nil, 0xabcdef, true},
		{"initial cfa plus", []byte{0x23, 0x10}, []uint64{0x7000}, 0x7010, true},
		{"unreadable mapping reads 0", []byte{0x0c, 0, 0, 1, 0, 0x06}, nil, 0, true},
		{"mapped file", []byte{0x0c, 0, 0, 0x40, 0, 0x06}, nil, 0x400000 ^ testFileWord, true},
		{"unmapped read fails", []byte{0x0c, 0, 0, 0, 1, 0x06}, nil, 0, false},
		{"null register fails", []byte{0x73, 0x00}, nil, 0, false},
		{"bra loop bounded", []byte{0x31, 0x28, 0xfd, 0xff}, nil, 0, false},
		{"empty stack", []byte{0x22}, nil, 0, false},
		{"division by zero", []byte{0x31, 0x30, 0x1b}, nil, 0, false},
		{"unknown op", []byte{0xff}, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := evalExpr(tt.expr, f, tt.initial...)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("evalExpr = %#x, %v; want %#x, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// testFileWord is what testMem reads from its "file" mapping, xor the
// address.
const testFileWord = 0x5a5a5a5a

// testMem is a memory map for unwinder tests: [0x10000, 0x20000) is mapped
// without a readable file, [0x400000, 0x500000) reads testFileWord^addr,
// the rest is not mapped.
func testMem(addr uint64) (uint64, memStatus) {
	switch {
	case addr >= 0x10000 && addr < 0x20000:
		return 0, memZero
	case addr >= 0x400000 && addr < 0x500000:
		return testFileWord ^ addr, memOK
	}
	return 0, memFail
}

func TestStackRead(t *testing.T) {
	f := &unwindFrame{stack: make([]byte, 32), sp0: 0x1000, mem: testMem}
	for i := range f.stack {
		f.stack[i] = byte(i + 1)
	}
	tests := []struct {
		addr, want uint64
		st         memStatus
	}{
		{0x1000, 0x0807060504030201, memOK},
		{0x1010, 0x1817161514131211, memOK},
		{0x1018, 0, memFail}, // the last word counts as outside (perf's access_mem)
		{0xfff, 0, memFail},
		{^uint64(3), 0, memFail},
		{0x10008, 0, memZero},
		{0x400010, 0x400010 ^ testFileWord, memOK},
	}
	for _, tt := range tests {
		if got, st := f.read(tt.addr); got != tt.want || st != tt.st {
			t.Errorf("read(%#x) = %#x, %d; want %#x, %d", tt.addr, got, st, tt.want, tt.st)
		}
	}
}

// TestUnwindCorpus unwinds every sample of the dwarf corpus case and
// checks each frame against perf 6.1's perf script output, with inline
// frames (script.txt) and without (--no-inline, script-noinline.txt).
func TestUnwindCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		if c.Name != "dwarf" {
			continue
		}
		for _, tt := range []struct {
			golden   string
			noInline bool
		}{{"script.txt", false}, {"script-noinline.txt", true}} {
			t.Run(tt.golden, func(t *testing.T) {
				samples, frames, match, diff := unwindGolden(t, c, c.Golden(tt.golden), tt.noInline)
				t.Logf("%d samples, %d/%d frames identical", samples, match, frames)
				if diff != "" {
					t.Errorf("first difference: %s", diff)
				}
				if frames == 0 {
					t.Error("no frames compared")
				}
			})
		}
	}
}

// unwindGolden resolves every sample of c and compares the frames with
// the callchain lines of the perf script golden.
func unwindGolden(t *testing.T, c testfixture.CorpusCase, golden string, noInline bool) (samples, frames, match int, diff string) {
	f, err := decode.Open(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sym, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: &f.Meta, Compat: compat.Perf61})
	if err != nil {
		t.Fatal(err)
	}
	sym.SetNoInline(noInline)
	want := goldenFrames(t, golden)
	var ev Event
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		s, ok := rs.Record().(*decode.Sample)
		if !ok {
			sym.Observe(rs.Record())
			continue
		}
		sym.Resolve(&stitch.Sample{Sample: s}, &ev)
		samples++
		if samples > len(want) {
			continue
		}
		w := want[samples-1]
		frames += len(w)
		for i, line := range w {
			have := "<none>"
			if i < len(ev.Frames) {
				have = frameLine(&ev.Frames[i])
			}
			if have == line {
				match++
			} else if diff == "" {
				diff = fmt.Sprintf("sample %d frame %d:\n\thave %s\n\twant %s", samples, i, have, line)
			}
		}
		if len(ev.Frames) > len(w) && diff == "" {
			diff = fmt.Sprintf("sample %d: %d frames, want %d", samples, len(ev.Frames), len(w))
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if samples != len(want) && diff == "" {
		diff = fmt.Sprintf("%d samples, golden has %d", samples, len(want))
	}
	return samples, frames, match, diff
}

func FuzzCFI(f *testing.F) {
	f.Add(ehSection(0x2000, 0x1000, 0x40, testCIEInstr, testFDEInstr), true)
	f.Add(ehSection(0, 0x1000, 0x10, testCIEInstr, []byte{0x0f, 0x03, 0x77, 0x08, 0x06}), true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, eh bool) {
		tab, _ := parseCFI(data, 0x1000, eh)
		fr := &unwindFrame{stack: data, sp0: 0x1000, cfa: 0x1000, mem: testMem}
		for i := range tab.fdes {
			if i >= 16 {
				break
			}
			fd := &tab.fdes[i]
			for _, pc := range []uint64{fd.start, fd.start + (fd.end-fd.start)/2, fd.end - 1} {
				row, err := fd.row(pc)
				if err != nil {
					continue
				}
				if row.cfaExpr != nil {
					evalExpr(row.cfaExpr, fr)
				}
				for _, r := range row.regs {
					if r.expr != nil {
						evalExpr(r.expr, fr, 0x1000)
					}
				}
			}
		}
		evalExpr(data, fr, 1)
	})
}

// TestUnwindCorrupt unwinds the dwarf corpus samples with their registers
// and stack copies overwritten by pseudo-random bytes: no panic, and at
// most max-stack unwound addresses per sample.
func TestUnwindCorrupt(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		if c.Name != "dwarf" {
			continue
		}
		f, err := decode.Open(c.Data)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sym, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: &f.Meta, MaxStack: 20, Compat: compat.Perf61})
		if err != nil {
			t.Fatal(err)
		}
		x := uint64(0x9e3779b97f4a7c15)
		next := func() uint64 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return x
		}
		var ev Event
		rs := f.Records(decode.TimeOrder)
		for n := 0; rs.Next(); n++ {
			s, ok := rs.Record().(*decode.Sample)
			if !ok {
				sym.Observe(rs.Record())
				continue
			}
			regs, stack := append([]uint64(nil), s.RegsUser...), append([]byte(nil), s.StackUser...)
			for i := range stack {
				if n%3 == 0 || next()%16 == 0 {
					stack[i] = byte(next())
				}
			}
			for i := range regs {
				if n%4 == 0 && i != 7 && i != 8 {
					regs[i] = next()
				}
			}
			cs := *s
			cs.RegsUser, cs.StackUser = regs, stack
			sym.Resolve(&stitch.Sample{Sample: &cs}, &ev)
			if ev.Unwound > 0 {
				addrs := 0
				for _, fr := range ev.Frames[len(ev.Frames)-ev.Unwound:] {
					if !fr.Inlined {
						addrs++
					}
				}
				if addrs > 20 { // inline frames come on top of the limit
					t.Fatalf("sample %d: %d unwound addresses, max-stack 20", n, addrs)
				}
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
