// Command gen writes testdata/textpoke/perf.data: testdata/fp/perf.data (a
// real recording by perf 6.1) with PERF_RECORD_TEXT_POKE records added,
// which no recording of ours has (perf records them only for
// instruction-trace sessions, --kcore with Intel PT). After the first
// sample it adds a KSYMBOL record registering a BPF program, then four
// pokes with that sample's sample_id: 5 bytes inside the BPF program, 5
// bytes inside a kernel function of testdata/kallsyms (pvm_irq_enable),
// 20 new bytes where no old ones were (a trampoline written whole) at
// another kernel address, and 3 bytes at an address outside the kernel's
// map; after the 100th sample a KSYMBOL unregistering the program and a
// poke into its former place. The first attr gets the text_poke bit, as
// perf record sets it.
//
//	go run ./testdata/textpoke/gen   (from the repository root)
package main

import (
	"fmt"
	"os"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

func main() {
	if err := run("testdata/fp/perf.data", "testdata/textpoke/perf.data"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

const (
	bpfAddr = 0xffffffffc0001000
	bpfName = "bpf_prog_59f4a931744dcdc6_pstitch_filter"
)

func run(in, out string) error {
	f, err := decode.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	attrs := f.Attrs
	attrs[0].Flags |= decode.AttrTextPoke
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	defer o.Close()
	w, err := encode.NewWriter(o, encode.Options{Attrs: attrs, Meta: &f.Meta})
	if err != nil {
		return err
	}
	nop5 := []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}
	samples := 0
	rs := f.Records(decode.FileOrder)
	for rs.Next() {
		r := rs.Record()
		if err := w.WriteRecord(r); err != nil {
			return err
		}
		s, ok := r.(*decode.Sample)
		if !ok {
			continue
		}
		samples++
		c := s.RecordCommon
		c.Misc = uint16(decode.CPUModeKernel)
		c.TrailerPID, c.TrailerTID, c.TrailerTime = s.PID, s.TID, s.Time
		var add []decode.Record
		switch samples {
		case 1:
			add = []decode.Record{
				&decode.Ksymbol{RecordCommon: c, Addr: bpfAddr, Len: 0x40, KsymType: 1, Name: bpfName},
				&decode.TextPoke{RecordCommon: c, Addr: bpfAddr + 0x10, OldBytes: nop5, NewBytes: []byte{0xe8, 0x3b, 0x2a, 0x19, 0x08}},
				&decode.TextPoke{RecordCommon: c, Addr: 0xffffffff8225fd10, OldBytes: nop5, NewBytes: []byte{0xe9, 0x10, 0x20, 0x30, 0x40}},
				&decode.TextPoke{RecordCommon: c, Addr: 0xffffffff81002010, NewBytes: []byte{0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x53, 0x48, 0x83, 0xec, 0x28, 0xc9, 0xc3, 0xcc}},
				&decode.TextPoke{RecordCommon: c, Addr: 0xffffffff70000000, OldBytes: []byte{0x90, 0x90, 0x90}, NewBytes: []byte{0xcc, 0xcc, 0xcc}},
			}
		case 100:
			add = []decode.Record{
				&decode.Ksymbol{RecordCommon: c, Addr: bpfAddr, Len: 0x40, KsymType: 1, KsymFlags: 1, Name: bpfName},
				&decode.TextPoke{RecordCommon: c, Addr: bpfAddr + 0x10, OldBytes: []byte{0xe8, 0x3b, 0x2a, 0x19, 0x08}, NewBytes: nop5},
			}
		}
		for _, a := range add {
			a.Common().Time = c.Time
			if err := w.WriteRecord(a); err != nil {
				return err
			}
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	return w.Close()
}
