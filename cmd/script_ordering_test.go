package cmd

import (
	"testing"

	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/session"
)

// TestScriptSessionOrdering checks the ordering each format's session
// gets: the folded formats take perf's unless --ordering was given, the
// others take --ordering's value (sample time by default).
func TestScriptSessionOrdering(t *testing.T) {
	for _, c := range []struct {
		format output.Format
		set    bool
		given  session.Ordering
		want   session.Ordering
	}{
		{output.FormatText, false, session.ByTime, session.ByTime},
		{output.FormatText, true, session.AsPerf, session.AsPerf},
		{output.FormatJSON, false, session.ByTime, session.ByTime},
		{output.FormatPprof, false, session.ByTime, session.ByTime},
		{output.FormatCollapsed, false, session.ByTime, session.AsPerf},
		{output.FormatCollapsed, true, session.ByTime, session.ByTime},
		{output.FormatFlameGraph, false, session.ByTime, session.AsPerf},
		{output.FormatFlameGraphHTML, false, session.ByTime, session.AsPerf},
		{output.FormatFlameGraphHTML, true, session.ByTime, session.ByTime},
	} {
		opts := &ScriptOptions{Format: c.format, Ordering: c.given, OrderingSet: c.set}
		if got := scriptSessionOptions(opts).Ordering; got != c.want {
			t.Errorf("format %v, --ordering given %v (%v): ordering %v, want %v", c.format, c.set, c.given, got, c.want)
		}
	}
}

// TestCollapsedDeferredOrderings checks that the folded stacks of a real
// deferred recording are the same in perf's order (the default) and by
// sample time.
func TestCollapsedDeferredOrderings(t *testing.T) {
	const data = "../testdata/demo/perf.data"
	args := []string{"script", "--format", "collapsed", "-i", data, "--kallsyms", "../testdata/demo/kallsyms", "--symfs", "../testdata/demo/symfs"}
	def := runCmd(t, args...)
	byTime := runCmd(t, append(args, "--ordering", "time")...)
	if def == "" || def != byTime {
		t.Errorf("collapsed: default (%d bytes) and --ordering time (%d bytes) differ", len(def), len(byTime))
	}
}
