package cmd

import (
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// reportFilterRuns are perf report's thread filters on the corpus case
// c-pthreads (four threads with their own commands), as in
// testdata/report-filters/gen.sh.
var reportFilterRuns = []struct{ name, args string }{
	{"comm-one", "--no-children --sort comm,dso,sym --comms wk-rec-a"},
	{"comm-two-children", "--children --comms wk-rec-a,wk-rec-b"},
	{"tid-dso", "--no-children --sort dso --tid 2621"},
	{"tid-children", "--children --tid 2620 -g none"},
	{"comm-pid-sym", "--no-children --sort pid,sym --comms wk-reader"},
}

// TestReportFilters checks --comms, --pid and --tid in report against
// perf 6.1: the hidden samples still count in the header and the
// percentages, weigh in the rows they match (--sort dso), a single
// --comms value is printed in the header instead of a comm column, and
// the output order is perf's (the elided key takes no part in it).
func TestReportFilters(t *testing.T) {
	c := testfixture.CorpusCaseNamed(t, "c-pthreads")
	checkFlagRuns(t, "report", c, reportFilterRuns, "report-filters")
}
