//go:build ignore

// gen.go writes the fixtures of testdata/fields from testdata/fp/perf.data
// with package encode: the same recording, cut to its first samples, with
// sample_type bits no software event sets (memory events cannot be
// recorded on this machine) and a CLOCK_DATA feature, so that perf script
// -F weight, ins_lat, retire_lat, data_src, phys_addr, data_page_size,
// code_page_size, cgroup and tod have something to print.
//
//	go run gen.go    (in testdata/fields)
//
// perf.data: PERF_SAMPLE_WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR,
// DATA_PAGE_SIZE, CODE_PAGE_SIZE and CGROUP, two CGROUP records, and
// CLOCK_DATA (CLOCK_MONOTONIC, wall clock 2026-12-01 12:00:00 UTC at perf
// time 600 s). weight.data: PERF_SAMPLE_WEIGHT (the u64 form), no
// CLOCK_DATA.
package main

import (
	"fmt"
	"os"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

// samples is how many samples of fp are kept.
const samples = 24

// dataSrc are perf_mem_data_src values, one per sample in turn: loads and
// stores hitting and missing each level, with the lvl_num, remote, snoopx,
// blk and hops fields of newer kernels.
var dataSrc = []uint64{
	0,
	memSrc(2, 0x2|0x8, 0x2, 0, 0x2|0x8|0x10, 0, 0, 0, 0, 0),        // load L1 hit
	memSrc(2, 0x2|0x10, 0x2, 0, 0x2|0x8|0x10, 0, 0, 0, 0, 0),       // load LFB hit
	memSrc(2, 0x2|0x40, 0x10, 0x2, 0x2|0x8|0x10, 3, 0, 0, 0, 0),    // load L3 hit HITM locked
	memSrc(2, 0x4|0x80, 0x8, 0x1, 0x4|0x20, 0xd, 0, 0, 0x2, 0),     // load local RAM, TLB miss walk
	memSrc(2, 0x2|0x400, 0x4, 0, 0x2, 0xb, 1, 0x1, 0, 1),           // load remote cache 1 hop, fwd
	memSrc(4, 0x2|0x8, 0x1, 0x1, 0x2|0x8, 1, 0, 0, 0x4, 0),         // store L1 hit
	memSrc(4, 0x4|0x8, 0x1, 0x1, 0x4, 0, 0, 0, 0, 0),               // store L1 miss
	memSrc(1, 0x1, 0x1, 0x1, 0x1, 0xf, 0, 0, 0x1, 0),               // all N/A
	memSrc(8, 0x2|0x20, 0x2, 0, 0x2|0x40, 2, 0, 0x2, 0, 2),         // prefetch L2 hit, peer
	memSrc(16, 0x4|0x100, 0x8, 0, 0x4|0x10, 0xe, 1, 0, 0x2|0x4, 3), // exec remote RAM, pmem
	memSrc(2, 0x2|0x1000, 0, 0, 0, 0xc, 0, 0, 0, 0),                // load I/O, lvl_num LFB
	memSrc(2, 0x2|0x2000, 0x2, 0, 0x2, 4, 0, 0, 0, 0),              // load uncached, L4
	memSrc(2, 0x2|0x40, 0x4, 0, 0x2|0x8|0x10, 3, 0, 0, 0, 0),       // load L3 hit, snoop hit
	memSrc(2, 0x2|0x800, 0x10, 0, 0x2, 5, 1, 0, 0, 1),              // remote cache 2, lvl_num 5
	memSrc(2, 0, 0, 0, 0, 6, 0, 0, 0, 0),                           // lvl_num 6 only (CXL in 7.x)
	memSrc(0, 0, 0, 0, 0, 0, 0, 0, 0, 0) | 1<<46,                   // a reserved bit
}

// memSrc packs the fields of union perf_mem_data_src (uapi perf_event.h).
func memSrc(op, lvl, snoop, lock, dtlb, lvlNum, remote, snoopx, blk, hops uint64) uint64 {
	return op | lvl<<5 | snoop<<19 | lock<<24 | dtlb<<26 | lvlNum<<33 | remote<<37 | snoopx<<38 | blk<<40 | hops<<43
}

func main() {
	if err := write("perf.data", decode.SampleWeightStruct|decode.SampleDataSrc|decode.SamplePhysAddr|
		decode.SampleDataPageSize|decode.SampleCodePageSize|decode.SampleCgroup, true); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := write("weight.data", decode.SampleWeight, false); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(name string, add decode.SampleFormat, clock bool) error {
	f, err := decode.Open("../fp/perf.data")
	if err != nil {
		return err
	}
	defer f.Close()
	attr := *f.Attrs[0]
	attr.SampleType |= add
	meta := f.Meta
	meta.Raw = map[decode.Feature][]byte{}
	for k, v := range f.Meta.Raw {
		meta.Raw[k] = v
	}
	if clock {
		// CLOCK_MONOTONIC (1); perf time 600 s is 2026-12-01 12:00:00 UTC.
		meta.ClockData = &decode.ClockData{Version: 1, ClockID: 1,
			WallClockNS: 1796126400_000000000 + 123456789, ClockIDTimeNS: 600_000000000}
		meta.Features = append(append([]decode.Feature(nil), meta.Features...), decode.FeatureClockData)
		sortFeatures(meta.Features)
	}
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	defer out.Close()
	w, err := encode.NewWriter(out, encode.Options{Attrs: []*decode.EventAttr{&attr}, Meta: &meta})
	if err != nil {
		return err
	}
	rs := f.Records(decode.FileOrder)
	n := 0
	cgroups := false
	for rs.Next() {
		r := rs.Record()
		c := r.Common()
		c.Attr = &attr
		s, ok := r.(*decode.Sample)
		if ok {
			if n == samples {
				continue
			}
			if add&decode.SampleCgroup != 0 && !cgroups {
				// The cgroups the samples name, before the first sample.
				for i, p := range []string{"/", "/user.slice/perfstitch.scope"} {
					cg := &decode.Cgroup{RecordCommon: *c, CgroupID: uint64(i + 1), Path: p}
					cg.RecordCommon.Misc = 0
					if err := w.WriteRecord(cg); err != nil {
						return err
					}
				}
				cgroups = true
			}
			fill(s, n)
			n++
		}
		if err := w.WriteRecord(r); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	return w.Close()
}

// fill sets the added fields of the n-th sample.
func fill(s *decode.Sample, n int) {
	u := uint64(n)
	// WEIGHT_STRUCT: var1_dw (weight), var2_w (ins_lat), var3_w
	// (retire_lat); WEIGHT: the whole u64.
	s.Weight = (37*u+5)%1000 | (3*u%17)<<32 | (5*u%23)<<48
	if n%5 == 4 {
		s.Weight |= 1 << 31 // a weight over 2^31
	}
	s.DataSrc = dataSrc[n%len(dataSrc)]
	s.PhysAddr = 0x1_2345_6000 + u*0x1040
	if n%7 == 3 {
		s.PhysAddr = 0
	}
	sizes := []uint64{4096, 2 << 20, 0, 1 << 30, 8192, 64 << 10}
	s.DataPageSize = sizes[n%len(sizes)]
	s.CodePageSize = sizes[(n+1)%len(sizes)]
	s.Cgroup = uint64(n%3 + 1) // 3 has no CGROUP record
}

func sortFeatures(fs []decode.Feature) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j] < fs[j-1]; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}
