package cfi

import (
	"encoding/binary"
	"testing"
)

// TestStep steps single frames: by CFI, by a signal frame's CFI, by the
// frame-chain fallback and over a PLT entry, each with the stack copy
// at 0x7000 and code at 0x400000 read through testMem.
func TestStep(t *testing.T) {
	const code, sp = 0x401000, 0x7000
	pltCode := MemoryFunc(func(addr uint64) (uint64, MemStatus) {
		switch addr {
		case code: // jmp *0x2000(%rip); push $0
			return binary.LittleEndian.Uint64([]byte{0xff, 0x25, 0, 0x20, 0, 0, 0x68, 0}), MemOK
		case code + 8: // ...; jmp
			return binary.LittleEndian.Uint64([]byte{0, 0, 0, 0xe9, 0, 0, 0, 0}), MemOK
		}
		return testMem(addr)
	})
	tests := []struct {
		name     string
		fdeInstr []byte // nil: no FDE covers the code
		signal   bool
		rbp      uint64
		words    map[uint64]uint64 // offset from sp: value
		mem      Memory
		ok       bool
		wantIP   uint64
		wantPC   uint64
		wantSig  bool
	}{{
		name:     "leaf by CFI",
		fdeInstr: []byte{},
		words:    map[uint64]uint64{0: 0x401234},
		ok:       true, wantIP: 0x401234, wantPC: 0x401233,
	}, {
		name:     "frame pointer by CFI",
		fdeInstr: []byte{0x0c, 0x06, 0x10, 0x86, 0x02}, // CFA = rbp+16, rbp at CFA-16
		rbp:      sp + 0x10,
		words:    map[uint64]uint64{0x10: sp + 0x40, 0x18: 0x401300},
		ok:       true, wantIP: 0x401300, wantPC: 0x4012ff,
	}, {
		name:     "signal frame",
		fdeInstr: []byte{0x0e, 0x10}, // CFA = rsp+16
		signal:   true,
		words:    map[uint64]uint64{8: 0x401400},
		ok:       true, wantIP: 0x401400, wantPC: 0x401400, wantSig: true,
	}, {
		// The frame has left the code (its PC is that of a return
		// address) but has no caller.
		name:     "undefined return address ends the walk",
		fdeInstr: []byte{0x07, 0x10},
		words:    map[uint64]uint64{0: 0x401234},
		ok:       false, wantIP: code, wantPC: code - 1,
	}, {
		name:     "malformed CFI ends the walk",
		fdeInstr: []byte{0x0b},
		words:    map[uint64]uint64{0: 0x401234},
		ok:       false, wantIP: code, wantPC: code,
	}, {
		// No CFI: rbp at the CFA plus 8 is a frame; the return address
		// is above the saved rbp.
		name:  "frame-chain fallback",
		rbp:   sp + 8,
		words: map[uint64]uint64{8: sp + 0x40, 0x10: 0x401500},
		ok:    true, wantIP: 0x401500, wantPC: 0x4014ff,
	}, {
		// rbp reads fail below the stack copy: no frame.
		name:  "fallback with rbp below the CFA",
		rbp:   sp - 8,
		words: map[uint64]uint64{0: 0x401500},
		ok:    false, wantIP: code, wantPC: code - 1,
	}, {
		name:  "plt entry",
		rbp:   sp + 0x20,
		words: map[uint64]uint64{0: 0x401600},
		mem:   pltCode,
		ok:    true, wantIP: 0x401600, wantPC: 0x401600,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fd *FDE
			if tt.fdeInstr != nil {
				tab, err := Parse(ehSection(0x9000, code, 0x100, testCIEInstr, tt.fdeInstr), 0x9000, true)
				if err != nil || tab.Len() != 1 {
					t.Fatalf("fde: %v, %d fdes", err, tab.Len())
				}
				fd = tab.Find(code)
				if tt.signal {
					c := *fd.cie
					c.signal = true
					fd.cie = &c
				}
			}
			stack := make([]byte, 256)
			for off, v := range tt.words {
				binary.LittleEndian.PutUint64(stack[off:], v)
			}
			mem := tt.mem
			if mem == nil {
				mem = MemoryFunc(testMem)
			}
			f := NewFrame(code, sp, stack, mem)
			f.SetReg(RegRBP, tt.rbp)
			f.SetReg(RegRSP, sp)
			f.SetReg(RegRIP, code)
			ok, sig := f.Step(fd, code)
			if ok != tt.ok || sig != tt.wantSig || f.IP() != tt.wantIP || f.PC() != tt.wantPC {
				t.Errorf("Step = %v, %v, IP %#x, PC %#x; want %v, %v, IP %#x, PC %#x",
					ok, sig, f.IP(), f.PC(), tt.ok, tt.wantSig, tt.wantIP, tt.wantPC)
			}
		})
	}
}
