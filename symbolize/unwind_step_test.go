package symbolize

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize/cfi"
)

// Synthetic process for the step tests: code file mapped at stepCode
// (file offset = address - stepCode), its stack [stepStack, stepStack+64K)
// mapped as [stack], the stack copy starting at stepSP; everything else
// unmapped.
const (
	stepCode  = 0x400000
	stepStack = 0x7ff0000
	stepSP    = stepStack + 0x8000
	stepPID   = 7
)

// Functions of the code file (offsets from stepCode).
const (
	stepLeafRBP = 0x1000 // CFA = rsp+8; rbp still described as saved at CFA-16
	stepLeaf    = 0x1100 // CFA = rsp+8
	stepCaller  = 0x2000 // CFA = rbp+16, rbp at CFA-16
	stepNoCFI   = 0x3000 // no FDE
	stepPLT     = 0x5000 // no FDE, a lazy-binding PLT entry
	stepSig     = 0x6000 // a signal trampoline: CFA = rsp+16, its FDE from stepSig-1
)

// stepTable is the CFI of the code file, an .eh_frame at 0x9000.
func stepTable(t *testing.T) *dsoCFI {
	t.Helper()
	fdes := []stepFDE{
		{stepLeafRBP, []byte{0x86, 0x02}, false},
		{stepLeaf, nil, false},
		{stepCaller, []byte{0x0c, 0x06, 0x10, 0x86, 0x02}, false},
		{stepSig - 1, []byte{0x0e, 0x10}, true},
	}
	tab, err := cfi.Parse(stepEhFrame(0x9000, fdes), 0x9000, true)
	if err != nil || tab.Len() != len(fdes) {
		t.Fatalf("step CFI: %v, %d fdes", err, tab.Len())
	}
	return &dsoCFI{tab: tab, eh: true}
}

// stepFDE is a function of the code file: its FDE covers [start,
// start+0x100); signal: its CIE has the S augmentation.
type stepFDE struct {
	start  uint64
	instr  []byte
	signal bool
}

// stepEhFrame builds an .eh_frame section at address addr with two CIEs
// (augmentation zR and zRS; pcrel|sdata4 FDE pointers, code align 1,
// data align -8, RA column 16, CFA = rsp+8 and rip at CFA-8) and an FDE
// for each of fdes.
func stepEhFrame(addr uint64, fdes []stepFDE) []byte {
	var b []byte
	entry := func(body []byte) {
		for len(body)%8 != 4 {
			body = append(body, 0)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
		b = append(b, body...)
	}
	cieAt := map[bool]int{}
	for _, signal := range []bool{false, true} {
		cieAt[signal] = len(b)
		aug := "zR"
		if signal {
			aug = "zRS"
		}
		body := append([]byte{0, 0, 0, 0, 1}, aug...)
		body = append(body, 0, 1, 0x78, 16, 1, 0x1b)
		entry(append(body, 0x0c, 0x07, 0x08, 0x90, 0x01))
	}
	for _, fd := range fdes {
		at := len(b)
		body := binary.LittleEndian.AppendUint32(nil, uint32(at+4-cieAt[fd.signal]))
		pcField := addr + uint64(at) + 8
		body = binary.LittleEndian.AppendUint32(body, uint32(int32(int64(fd.start)-int64(pcField))))
		body = binary.LittleEndian.AppendUint32(body, 0x100)
		body = append(body, 0) // augmentation data length
		entry(append(body, fd.instr...))
	}
	return binary.LittleEndian.AppendUint32(b, 0)
}

// stepSymbolizer returns a Symbolizer with the synthetic process mapped
// and the code file's CFI in place; stale, if not 0, is where the code
// file was mapped before (by the program before an exec).
func stepSymbolizer(t *testing.T, stale uint64) *Symbolizer {
	t.Helper()
	code := make([]byte, 0x10000)
	// jmp *0x2000(%rip); push $0; jmp ...
	copy(code[stepPLT:], []byte{0xff, 0x25, 0, 0x20, 0, 0, 0x68, 0, 0, 0, 0, 0xe9, 0, 0, 0, 0})
	p := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(p, code, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if stale != 0 {
		s.Observe(userMmap(stepPID, stale, 0x10000, 0, p))
	}
	s.Observe(userMmap(stepPID, stepCode, 0x10000, 0, p))
	s.Observe(userMmap(stepPID, stepStack, 0x10000, 0, "[stack]"))
	m := s.userMap(stepPID, stepCode)
	if m == nil || m.dso == nil {
		t.Fatal("code not mapped")
	}
	s.unw.cfi = map[*dso]*dsoCFI{m.dso: stepTable(t)}
	return s
}

// stepSample is a dwarf sample at ip with rsp stepSP, rbp as given and a
// 256-byte stack copy holding words (offset from stepSP: value).
func stepSample(ip, rbp uint64, words map[uint64]uint64) *decode.Sample {
	stack := make([]byte, 256)
	for off, v := range words {
		binary.LittleEndian.PutUint64(stack[off:], v)
	}
	regs := make([]uint64, 24)
	regs[6], regs[7], regs[8] = rbp, stepSP, ip
	s := &decode.Sample{
		RegsUserABI:  2,
		RegsUser:     regs,
		StackUser:    stack,
		StackUserDyn: uint64(len(stack)),
	}
	s.PID, s.TID = stepPID, stepPID
	s.Format = decode.SampleRegsUser | decode.SampleStackUser
	s.Attr = &decode.EventAttr{SampleRegsUser: 1<<24 - 1}
	return s
}

// TestUnwindStep unwinds synthetic samples and compares the addresses with
// what perf 6.1 over libunwind 1.6 gives for the same registers, stack
// copy and maps.
func TestUnwindStep(t *testing.T) {
	const (
		leafRBP, leaf, caller = stepCode + stepLeafRBP, stepCode + stepLeaf, stepCode + stepCaller
		noCFI, plt, sig       = stepCode + stepNoCFI, stepCode + stepPLT, stepCode + stepSig
	)
	tests := []struct {
		name  string
		ip    uint64
		rbp   uint64
		words map[uint64]uint64
		stale uint64
		want  []uint64
	}{{
		// rbp's slot lies below the copy, in the stack mapping: it reads
		// as 0, so the caller's CFA is 16 and its return address at 8 is
		// unmapped: the walk ends without a frame.
		name:  "return address unmapped",
		ip:    leafRBP + 0x10,
		rbp:   stepSP + 0x40,
		words: map[uint64]uint64{0: caller + 0x50},
		want:  []uint64{leafRBP + 0x10, caller + 0x4f},
	}, {
		// The caller's return address lies in the stack mapping above the
		// copy: it reads as 0, a frame printed as ffffffffffffffff.
		name:  "return address mapped but not copied",
		ip:    leaf + 0x10,
		rbp:   stepSP + 0x200,
		words: map[uint64]uint64{0: caller + 0x50},
		want:  []uint64{leaf + 0x10, caller + 0x4f, ^uint64(0)},
	}, {
		// Code without CFI, its rbp equal to the CFA: a frame-pointer
		// frame; the CFA moves up by 16.
		name: "frame pointer at the CFA",
		ip:   leaf + 0x10,
		rbp:  stepSP + 8,
		words: map[uint64]uint64{
			0:    noCFI + 0x20,
			8:    stepSP + 0x40, // saved rbp
			0x10: caller + 0x50,
			0x48: 0,
		},
		want: []uint64{leaf + 0x10, noCFI + 0x1f, caller + 0x4f, ^uint64(0)},
	}, {
		name:  "frame pointer below the CFA",
		ip:    leaf + 0x10,
		rbp:   stepSP,
		words: map[uint64]uint64{0: noCFI + 0x20, 8: caller + 0x50},
		want:  []uint64{leaf + 0x10, noCFI + 0x1f},
	}, {
		name:  "frame pointer too far above the CFA",
		ip:    leaf + 0x10,
		rbp:   stepSP + 8 + 0x4001,
		words: map[uint64]uint64{0: noCFI + 0x20},
		want:  []uint64{leaf + 0x10, noCFI + 0x1f},
	}, {
		name:  "frame pointer zero",
		ip:    leaf + 0x10,
		rbp:   0,
		words: map[uint64]uint64{0: noCFI + 0x20},
		want:  []uint64{leaf + 0x10, noCFI + 0x1f},
	}, {
		// A PLT entry pops the return address at the CFA; rbp is kept.
		name:  "plt entry",
		ip:    plt,
		rbp:   stepSP + 0x20,
		words: map[uint64]uint64{0: caller + 0x50, 0x28: 0},
		want:  []uint64{plt, caller + 0x4f, ^uint64(0)},
	}, {
		// The code file is also mapped lower, from before an exec: perf
		// places the CFI there, finds none for the code and takes rbp
		// as a frame pointer.
		name:  "stale mapping below",
		ip:    leaf + 0x10,
		rbp:   stepSP + 8,
		words: map[uint64]uint64{0: caller + 0x50, 8: 0, 0x10: noCFI + 0x20},
		stale: 0x100000,
		want:  []uint64{leaf + 0x10, noCFI + 0x1f},
	}, {
		name:  "stale mapping above",
		ip:    leaf + 0x10,
		rbp:   stepSP + 0x200,
		words: map[uint64]uint64{0: caller + 0x50},
		stale: 0x800000,
		want:  []uint64{leaf + 0x10, caller + 0x4f, ^uint64(0)},
	}, {
		// The caller of a signal frame is the interrupted address itself,
		// and its CFI is looked up there.
		name:  "signal frame",
		ip:    leaf + 0x10,
		rbp:   stepSP + 0x200,
		words: map[uint64]uint64{0: sig, 0x10: caller + 0x50},
		want:  []uint64{leaf + 0x10, sig - 1, caller + 0x50, ^uint64(0)},
	}, {
		name:  "unmapped ip",
		ip:    0x1234,
		want:  []uint64{0x1234},
		words: map[uint64]uint64{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stepSymbolizer(t, tt.stale)
			var ev Event
			s.unwindUser(stepSample(tt.ip, tt.rbp, tt.words), &ev, 0)
			if diff := cmp.Diff(tt.want, s.unw.ips); diff != "" {
				t.Errorf("unwound addresses (-want +got):\n%s", diff)
			}
		})
	}
}
