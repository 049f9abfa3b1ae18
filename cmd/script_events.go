package cmd

import (
	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/session"
	"github.com/spf13/cobra"
)

// addShowEventFlags declares perf script's --show-round-events,
// --show-bpf-events and --show-text-poke-events.
func addShowEventFlags(cmd *cobra.Command, opts *ScriptOptions) {
	fl := cmd.Flags()
	fl.BoolVar(&opts.ShowRounds, "show-round-events", false, "also print FINISHED_ROUND records; as perf, the records are then processed in file order, not sorted by time")
	fl.BoolVar(&opts.ShowBPF, "show-bpf-events", false, "also print KSYMBOL and BPF_EVENT records")
	fl.BoolVar(&opts.ShowTextPoke, "show-text-poke-events", false, "also print TEXT_POKE records (and KSYMBOL ones, as perf)")
}

// checkShowEvents refuses the three options outside the text format.
func (o *ScriptOptions) checkShowEvents(cmd *cobra.Command) error {
	if o.Format == output.FormatText {
		return nil
	}
	for _, n := range []string{"show-round-events", "show-bpf-events", "show-text-poke-events"} {
		if cmd.Flags().Changed(n) {
			return FlagErrorf("--%s applies only to --format text", n)
		}
	}
	return nil
}

// showEvents adds the records the three options show to so. perf script
// --show-round-events turns perf's ordered-events queue off
// (tool.ordered_events = false in builtin-script.c), so every record is
// processed where it is in the file and each FINISHED_ROUND is printed
// there: perfstitch reads in file order too.
func (o *ScriptOptions) showEvents(so *session.Options) {
	if o.ShowRounds {
		so.Show = append(so.Show, decode.RecordTypeFinishedRound)
		so.FileOrder = true
	}
	if o.ShowBPF {
		so.Show = append(so.Show, decode.RecordTypeKsymbol, decode.RecordTypeBPFEvent)
	}
	if o.ShowTextPoke {
		// perf shows KSYMBOL records with the text pokes (the BPF code
		// they may patch), not BPF_EVENT ones.
		so.Show = append(so.Show, decode.RecordTypeTextPoke)
		if !o.ShowBPF {
			so.Show = append(so.Show, decode.RecordTypeKsymbol)
		}
	}
}
