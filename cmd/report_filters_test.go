package cmd

import (
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// reportFilterRuns are perf report's filters (--comms, --pid, --tid,
// --dsos, --symbols) on the corpus case c-pthreads (four threads with
// their own commands), as in testdata/report-filters/gen.sh.
var reportFilterRuns = []struct{ name, args string }{
	{"comm-one", "--no-children --sort comm,dso,sym --comms wk-rec-a"},
	{"comm-two-children", "--children --comms wk-rec-a,wk-rec-b"},
	{"tid-dso", "--no-children --sort dso --tid 2621"},
	{"tid-children", "--children --tid 2620 -g none"},
	{"comm-pid-sym", "--no-children --sort pid,sym --comms wk-reader"},
	{"dso-one", "--no-children --dsos prog_f"},
	{"dsos-children", "--children --dsos libc.so.6,prog_f"},
	{"symbol-dso", "--no-children --sort dso -S leaf_compute,thr_descend"},
	{"all-elided", "--no-children --comms wk-rec-a --dsos prog_f -S leaf_compute"},
}

// TestReportFilters checks report's filters against perf 6.1: the hidden
// samples still count in the header and the percentages, weigh in the
// rows they match (--sort dso), a filter naming a single command, DSO or
// symbol is printed in the header instead of its column (unless every
// column would go), and the output order is perf's (an elided key takes
// no part in it).
func TestReportFilters(t *testing.T) {
	c := testfixture.CorpusCaseNamed(t, "c-pthreads")
	checkFlagRuns(t, "report", c, reportFilterRuns, "report-filters")
}
