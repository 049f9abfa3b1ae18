package stitch_test

import (
	"syscall"
	"time"
	"unsafe"
)

// cpuTime returns the process's CPU time (CLOCK_PROCESS_CPUTIME_ID,
// nanosecond accounting; getrusage is only as fine as the scheduler tick,
// too coarse for one pass of the stitching benchmark). The benchmarks
// report it per operation next to the wall time, which on a shared,
// throttled machine varies far more than the work done.
func cpuTime() time.Duration {
	const clockProcessCPUTimeID = 2
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
