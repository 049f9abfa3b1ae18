package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/diag"
	"github.com/perfstitch/perfstitch/symbolize"
)

// defaultMaxPending is the stitcher's default cap on the items held back
// behind deferred samples that wait for their user callchain: about 64
// MiB at the 700 bytes a held sample costs (docs/stitching.md);
// --max-pending changes it.
const defaultMaxPending = 100_000

// defaultMaxPendingBytes is the stitcher's default cap on the memory of
// what is held back behind a waiting deferred sample (as the session
// estimates it); --max-pending-bytes changes it.
const defaultMaxPendingBytes = 256 << 20

// Limits are the flags that bound memory and work and those that say
// what to do with warnings.
type Limits struct {
	Quiet  bool // -q: count warnings without printing them
	Strict bool // --strict: any warning makes the run fail (exit 1)

	QueueLimit      byteSize // --queue-limit: time-order queue budget
	DecompressRatio int64    // --max-decompress-ratio
	MaxDecompress   byteSize // --max-decompress

	// State is the run's state once openSession has opened it (nil
	// before): what finishRun reports.
	State *RunState
}

// RunState is what a command's run leaves for its end: the session and
// the warnings gathered from it.
type RunState struct {
	run  *runSession
	diag *diag.Log

	// lostSamples sums the LOST_SAMPLES records the run saw (those perf
	// 7.3.4 counts: not the BPF-dropped ones), for perf's drop-rate
	// warning.
	lostSamples, lostSamplesBPF uint64
	// lostShown is script --show-lost-events, which prints LOST records
	// and so, as in perf, takes away the LOST-chunks warning.
	lostShown bool
}

// miscLostSamplesBPF is PERF_RECORD_MISC_LOST_SAMPLES_BPF: samples a BPF
// filter dropped, which perf 7.3.4 does not count as lost.
const miscLostSamplesBPF = 1 << 15

// noteRecord counts what perf's end-of-run warnings need of a side-band
// record the session yielded.
func (s *RunState) noteRecord(r *symbolize.Record) {
	if s == nil || r == nil {
		return
	}
	if ls, ok := r.Record.(*decode.LostSamples); ok {
		if ls.Misc&miscLostSamplesBPF != 0 {
			s.lostSamplesBPF += ls.Lost
		} else {
			s.lostSamples += ls.Lost
		}
	}
}

// addLimitFlags registers the Limits flags.
func addLimitFlags(fs *pflag.FlagSet, l *Limits) {
	fs.BoolVarP(&l.Quiet, "quiet", "q", false, "do not print warnings (records, fields or symbol-source lines skipped or repaired; they are still counted); report also leaves out its header comments, as perf report -q")
	fs.BoolVar(&l.Strict, "strict", false, "treat warnings as errors: exit 1 if anything was skipped or repaired")
	fs.Var(&l.QueueLimit, "queue-limit", "memory `budget` of the time-order queue (default 24M); past it the oldest records are delivered early, as perf's ordered events do")
	fs.Int64Var(&l.DecompressRatio, "max-decompress-ratio", 0, fmt.Sprintf("refuse a compressed stream that expands more than this many `times` its input (default %d)", decode.DefaultDecompressRatio))
	fs.Var(&l.MaxDecompress, "max-decompress", "refuse a compressed stream that expands to more than this many `bytes` (default 16G)")
}

// decodeLimits returns the decoder's limits from the flags.
func (l *Limits) decodeLimits() decode.Limits {
	return decode.Limits{QueueBytes: int64(l.QueueLimit), DecompressRatio: l.DecompressRatio, DecompressBytes: int64(l.MaxDecompress)}
}

// byteSize is a flag value of bytes with an optional K, M or G suffix
// (powers of 1024).
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	mul := int64(1)
	t := strings.TrimSuffix(strings.TrimSuffix(s, "B"), "i")
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			mul, t = 1<<10, t[:n-1]
		case 'M', 'm':
			mul, t = 1<<20, t[:n-1]
		case 'G', 'g':
			mul, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mul {
		return fmt.Errorf("want a positive size such as 64M, have %q", s)
	}
	*b = byteSize(v * mul)
	return nil
}

func (b *byteSize) Type() string { return "size" }

// checkSources fails at start-up on symbol sources that do not exist or
// are the wrong kind of file, as perf fails on them ("Invalid file").
func (o *CommonOptions) checkSources() error {
	if o.Kallsyms != "" {
		if err := symbolize.CheckSourceFile(o.Kallsyms); err != nil {
			return fmt.Errorf("--kallsyms: invalid file: %w", err)
		}
	}
	if o.Vmlinux != "" {
		// perf checks the name as given, before joining it to --symfs.
		if err := symbolize.CheckSourceFile(o.Vmlinux); err != nil {
			return fmt.Errorf("--vmlinux: invalid file: %w", err)
		}
	}
	for _, d := range []struct{ flag, path string }{{"--symfs", o.Symfs}, {"--maps", o.Maps}} {
		if d.path == "" {
			continue
		}
		st, err := os.Stat(d.path)
		if err == nil && !st.IsDir() {
			err = fmt.Errorf("%s: not a directory", d.path)
		}
		if err != nil {
			return fmt.Errorf("%s: invalid directory: %w", d.flag, err)
		}
	}
	return nil
}

// warnings returns the run's warning log, filled once from the session:
// the decoder's warnings, the symbol sources' and the caps that acted.
func (o *CommonOptions) warnings() *diag.Log {
	if o.State == nil {
		o.State = &RunState{}
	}
	st := o.State
	if st.diag != nil {
		return st.diag
	}
	st.diag = diag.New(o.IO.ErrOut, o.Quiet)
	r := st.run
	if r == nil || r.Session == nil {
		return st.diag
	}
	name := o.Input
	if name == "" {
		name = "perf.data"
	} else if name == "-" {
		name = "stdin"
	}
	if f := r.File(); f != nil && !f.Header.Pipe && len(f.Meta.Features) == 0 {
		st.diag.Add(diag.Warning{Source: name, Offset: 72, Where: "header", Field: "features",
			Msg: "no feature sections: no build ids, event names or recording details (perf writes several)"})
	}
	if w := o.noKallsymsWarning(); w != "" {
		st.diag.Perf(w)
	}
	ds := r.DecodeStats()
	for _, err := range ds.Warnings {
		st.diag.Add(decodeWarning(name, err))
	}
	if extra := ds.WarningCount - uint64(len(ds.Warnings)); ds.WarningCount > uint64(len(ds.Warnings)) {
		st.diag.AddN(diag.Warning{Source: name, Offset: -1, Msg: "more decoder warnings, not kept"}, extra)
	}
	if n := r.StitchStats().NoRecordCap; n > 0 {
		st.diag.AddN(diag.Warning{Source: name, Offset: -1, Msg: fmt.Sprintf(
			"%s deferred samples released without their user callchain by the pending cap (--max-pending, --max-pending-bytes), counted as no-record", diag.Group(n))}, 1)
	}
	for _, err := range r.Symbolizer().SourceErrors() {
		st.diag.Add(diag.Warning{Offset: -1, Msg: err.Error()})
	}
	lost := st.lostSamples
	if !o.dialect().DataSrcLevelNum {
		lost += st.lostSamplesBPF // perf 6.1 has no BPF-dropped samples apart
	}
	for _, w := range perfWarnings(ds, lost, st.lostShown, writeBackward(r.File())) {
		st.diag.Perf(w)
	}
	return st.diag
}

// writeBackward reports whether an event of f was recorded with
// write_backward, for which perf does not warn about event order.
func writeBackward(f *decode.File) bool {
	if f == nil {
		return false
	}
	for _, a := range f.Attrs {
		if a.Flags&decode.AttrWriteBackward != 0 {
			return true
		}
	}
	return false
}

// perfWarnings returns the warnings perf prints at the end of a run
// (perf_session__warn_about_errors, tools/perf/util/session.c, the same
// in perf 6.1 and 7.3.4), in its order and words, for what this recording
// has: LOST records (unless script --show-lost-events prints them), more
// than 5% of the samples lost by LOST_SAMPLES records, and records older
// than the last flushed round (perf_session__warn_order; not for
// write_backward events). perf's other warnings there are not printed:
// unknown record types and samples of unknown ids stop perf before it
// gets there, AUX and proc-map warnings need what perfstitch does not
// read, and perf never counts invalid callchains.
func perfWarnings(ds *decode.Stats, lostSamples uint64, lostShown, backward bool) []string {
	var ws []string
	if w := lostWarning(ds); w != "" && !lostShown {
		ws = append(ws, w)
	}
	if samples := ds.Counts[decode.RecordTypeSample]; lostSamples > 0 {
		rate := float64(lostSamples) / float64(samples+lostSamples)
		if rate > 0.05 {
			ws = append(ws, fmt.Sprintf("Warning:\nProcessed %d samples and lost %3.2f%%!\n\n", samples+lostSamples, rate*100))
		}
	}
	if n := ds.OutOfOrder; n > 0 && !backward {
		// perf's counter is a u32 printed with %u.
		ws = append(ws, fmt.Sprintf("Warning:\n%d out of order events recorded.\n", uint32(n)))
	}
	return ws
}

// noKallsymsWarning returns perf 6.1's line for kernel addresses looked up
// without kernel symbols in a recording whose build-id table names the
// kernel's build id: no --kallsyms, no --symfs (perf then tries no local
// files) and not the running kernel. "" when it does not apply, or in a
// dialect whose perf says nothing (compat.Dialect.NoKallsymsWarning).
func (o *CommonOptions) noKallsymsWarning() string {
	if !o.dialect().NoKallsymsWarning || o.Kallsyms != "" || o.Symfs != "" {
		return ""
	}
	for _, d := range o.State.run.Symbolizer().Diagnostics() {
		if d.DSO == "[kernel.kallsyms]" && d.Reason == symbolize.NoKallsyms && d.BuildID != "" && d.Frames > 0 {
			return "No kallsyms or vmlinux with build-id " + d.BuildID + " was found\n"
		}
	}
	return ""
}

// lostWarning returns the warning perf prints at the end of a run whose
// recording has LOST records (perf_session__warn_about_errors, in perf 6.1
// and 7.3.4 alike): the records processed, as report --stats counts them
// in TOTAL, and the LOST records ("chunks"); "" without LOST records.
func lostWarning(ds *decode.Stats) string {
	lost := ds.Counts[decode.RecordTypeLost]
	if lost == 0 {
		return ""
	}
	var total uint64
	for _, n := range ds.Counts {
		total += n
	}
	// perf prints both u64 counters with %d.
	return fmt.Sprintf("Warning:\nProcessed %d events and lost %d chunks!\n\nCheck IO/CPU overload!\n\n", int32(total), int32(lost))
}

// decodeWarning turns a decoder warning into a diag.Warning.
func decodeWarning(name string, err error) diag.Warning {
	var fe *decode.FormatError
	if !errors.As(err, &fe) {
		return diag.Warning{Source: name, Offset: -1, Msg: err.Error()}
	}
	w := diag.Warning{Source: name, Offset: fe.Offset, Where: "header", Field: fe.Field}
	if fe.Record != 0 {
		w.Where = fe.Record.String() + " record"
	}
	if fe.Err != nil {
		w.Msg = fe.Err.Error()
	}
	return w
}

// finishRun prints the run's warnings and their summary on stderr; with
// --strict, warnings make a successful run fail.
func (o *CommonOptions) finishRun(err error) error {
	if o.State == nil || o.State.run == nil {
		return err
	}
	log := o.warnings()
	log.Summary()
	if err == nil && o.Strict && log.Count() > 0 {
		noun := "warnings"
		if log.Count() == 1 {
			noun = "warning"
		}
		return fmt.Errorf("%s %s (--strict)", diag.Group(log.Count()), noun)
	}
	return err
}
