package cmd

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// unsupportedFlag is a perf script option perfstitch declares only to
// refuse it with the reason, instead of pflag's "unknown flag".
type unsupportedFlag struct {
	name, short string
	value       bool // takes a value (else a switch)
	optional    bool // the value is optional (--itrace[=opts])
	why         string
}

// unsupportedScriptFlags are perf script's options that need data or
// machinery perfstitch does not have.
var unsupportedScriptFlags = []unsupportedFlag{
	{name: "itrace", value: true, optional: true, why: "perfstitch does not decode AUX area traces (Intel PT, ARM SPE, CoreSight)"},
	{name: "call-trace", value: true, optional: true, why: "it decodes calls from an AUX area trace (--itrace), which perfstitch does not decode"},
	{name: "call-ret-trace", value: true, optional: true, why: "it decodes calls and returns from an AUX area trace (--itrace), which perfstitch does not decode"},
	{name: "insn-trace", value: true, optional: true, why: "it decodes instructions from an AUX area trace (--itrace), which perfstitch does not decode"},
	{name: "graph-function", value: true, why: "it applies to --call-trace/--call-ret-trace, which need AUX area decoding"},
	{name: "xed", value: true, optional: true, why: "perfstitch does not disassemble instructions"},
	{name: "script", short: "s", value: true, why: "perfstitch runs no perf scripts (Perl, Python); read --format json instead"},
	{name: "gen-script", short: "g", value: true, why: "perfstitch runs no perf scripts; --format json gives every field to any language"},
	{name: "list", short: "l", why: "perfstitch runs no perf scripts"},
	{name: "dlfilter", value: true, why: "perfstitch loads no shared-object filters"},
	{name: "dlarg", value: true, why: "perfstitch loads no shared-object filters (--dlfilter)"},
	{name: "list-dlfilters", why: "perfstitch loads no shared-object filters"},
}

// addUnsupportedScriptFlags declares the unsupported options, hidden from
// the help.
func addUnsupportedScriptFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	for _, u := range unsupportedScriptFlags {
		if u.value {
			fl.StringP(u.name, u.short, "", u.why)
			if u.optional {
				fl.Lookup(u.name).NoOptDefVal = " "
			}
		} else {
			fl.BoolP(u.name, u.short, false, u.why)
		}
		_ = fl.MarkHidden(u.name)
	}
}

// checkUnsupported fails on the first unsupported option given, naming
// it and why.
func checkUnsupported(cmd *cobra.Command) error {
	for _, u := range unsupportedScriptFlags {
		if f := cmd.Flags().Lookup(u.name); f != nil && f.Changed && f.Usage == u.why {
			return FlagErrorf("--%s is not supported: %s", u.name, u.why)
		}
	}
	return nil
}

// inputMtime is the modification time of the input file, which perf's
// header prints as "captured on"; for stdin, now (perf prints the pipe's,
// which is about the time it was written to).
func inputMtime(o *CommonOptions) time.Time {
	name := o.Input
	if name == "" {
		name = "perf.data"
	}
	if name == "-" {
		return time.Now()
	}
	st, err := os.Stat(name)
	if err == nil && st.IsDir() {
		st, err = os.Stat(filepath.Join(name, "data")) // perf's directory format
	}
	if err != nil {
		return time.Now()
	}
	return st.ModTime()
}
