// Package report aggregates resolved samples into the histogram perf
// report prints, with its call graphs, and renders it as perf report
// --stdio text, a table or JSON. It follows perf 6.1's
// tools/perf/util/hist.c, sort.c and callchain.c, down to the tie order
// that perf's red-black trees give equally heavy rows and branches.
package report
