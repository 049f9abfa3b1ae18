package decode_test

import (
	"fmt"
	"log"

	"github.com/perfstitch/perfstitch/decode"
)

// Example reads a small recording (testdata/fp: perf record -e cpu-clock
// -F 400 -g --sample-cpu) in time order and summarises it.
func Example() {
	f, err := decode.Open("../testdata/fp/perf.data")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println("event:", f.Attrs[0].Name, "perf", f.Meta.Version)

	rs := f.Records(decode.TimeOrder)
	var samples, kernel int
	var first *decode.Sample
	for rs.Next() {
		switch r := rs.Record().(type) {
		case *decode.Sample:
			samples++
			if r.CPUMode() == decode.CPUModeKernel {
				kernel++
			}
			if first == nil {
				// The record is reused by Next: keep a copy.
				first = r.Clone().(*decode.Sample)
			}
		case *decode.Comm:
			fmt.Printf("comm %q pid %d exec %v\n", r.Comm, r.PID, r.Exec())
		}
	}
	if err := rs.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d samples, %d in the kernel\n", samples, kernel)
	fmt.Printf("first: pid %d cpu %d time %d ip %#x, %d callchain entries\n",
		first.PID, first.CPU, first.Time, first.IP, len(first.Callchain))
	st := rs.Stats()
	fmt.Println("MMAP2 records:", st.Counts[decode.RecordTypeMmap2], "FINISHED_ROUND records:", st.Counts[decode.RecordTypeFinishedRound])
	// Output:
	// event: cpu-clock perf 6.1.187
	// comm "perf-exec" pid 15809 exec false
	// comm "spin" pid 15809 exec true
	// 120 samples, 55 in the kernel
	// first: pid 15809 cpu 1 time 603732642297 ip 0xffffffff8225fd19, 18 callchain entries
	// MMAP2 records: 2 FINISHED_ROUND records: 1
}
