package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// progressThreshold is the input size above which a progress bar is shown
// (when stderr is a terminal).
const progressThreshold = 64 << 20

// checkEvery is how many stitched items pass between context checks and
// progress updates.
const checkEvery = 4096

// pipeline wires decode → stitch → symbolize for script, report and stats.
// Next yields, in time order, every sample that passes the filters
// (resolved, as a *symbolize.Event) and the side-band records asked for
// with ShowRecords (as *output.Record); everything else only updates the
// process model.
type pipeline struct {
	ctx    context.Context
	opts   *CommonOptions
	file   *decode.File
	recs   *decode.Records
	st     *stitch.Stitcher
	sym    *symbolize.Symbolizer
	ranges []TimeRange
	show   map[decode.RecordType]bool
	bar    *progressbar.ProgressBar

	ev       symbolize.Event
	rec      output.Record
	deferred symbolize.Event
	defSmp   decode.Sample
	isSample bool
	n        int
	err      error

	// countHidden makes Next yield samples the thread filters (--pid,
	// --tid, --comms) hide too, with hidden set (see CountHidden).
	countHidden, hidden bool

	// In file mode decode and stitch run in a producer goroutine that
	// hands copies of their items over in batches (see produce).
	prod *producer
}

// openPipeline opens opts.Input (or the pipe-mode stream on stdin) and
// sets up stitching and symbolization. The caller must Close it.
func openPipeline(ctx context.Context, opts *CommonOptions) (*pipeline, error) {
	f, size, err := openInput(opts)
	if err != nil {
		return nil, err
	}
	p := &pipeline{ctx: ctx, opts: opts, file: f, show: map[decode.RecordType]bool{}}
	if err := p.setup(size); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// openInput opens the input named by opts: "-" (or no name while stdin is
// a pipe) is a pipe-mode stream on stdin, anything else a file (perf.data
// by default). size is the file size, -1 for a stream.
func openInput(opts *CommonOptions) (*decode.File, int64, error) {
	name := opts.Input
	if name == "" {
		name = "perf.data"
		if in, ok := opts.IO.In.(*os.File); ok {
			if st, err := in.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
				name = "-"
			}
		}
	}
	if name == "-" {
		f, err := decode.NewPipe(opts.IO.In)
		if err != nil {
			return nil, 0, fmt.Errorf("stdin: %w", err)
		}
		return f, -1, nil
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, 0, err
	}
	f, err := decode.Open(name)
	if err != nil {
		return nil, 0, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, nil
}

func (p *pipeline) setup(size int64) error {
	o := p.opts
	f := p.file
	if o.Filter.Event != "" && !f.Header.Pipe {
		if !slices.ContainsFunc(f.Attrs, func(a *decode.EventAttr) bool { return a.Name == o.Filter.Event }) {
			names := make([]string, len(f.Attrs))
			for i, a := range f.Attrs {
				names[i] = a.Name
			}
			return fmt.Errorf("event %q is not in the recording (it has: %s)", o.Filter.Event, strings.Join(names, ", "))
		}
	}
	if len(o.Filter.CPUs) > 0 && !f.Header.Pipe && !cpuSampled(f.Attrs) {
		return errors.New("file does not contain CPU events; remove -C to proceed")
	}
	if !o.Filter.Time.IsZero() {
		var first, last uint64
		if st := f.Meta.SampleTime; st != nil {
			first, last = st.First, st.Last
		}
		r, err := o.Filter.Time.resolve(first, last)
		if err != nil {
			return err
		}
		p.ranges = r
	}
	sym, err := symbolize.New(symbolize.Options{
		Symfs:      o.Symfs,
		Kallsyms:   o.Kallsyms,
		MapsDir:    o.Maps,
		BuildIDDir: buildIDDir(o),
		NoDemangle: o.NoDemangle,
		Meta:       &f.Meta,
		Compat:     o.dialect(),
	})
	if err != nil {
		return err
	}
	sym.SetNoInline(o.NoInline)
	p.sym = sym
	p.recs = f.Records(decode.TimeOrder)
	p.st = stitch.New(p.recs, stitch.Options{NoMerge: o.NoMergeCallchains, MaxPending: o.MaxPending})
	if !f.Header.Pipe {
		// Pipe mode stays on one goroutine: its events and feature data
		// grow while records are read.
		p.prod = startProducer(p.ctx, p.st)
	}
	threshold := int64(progressThreshold)
	if o.ProgressThreshold > 0 {
		threshold = o.ProgressThreshold
	}
	if size > threshold && o.IO.ErrIsTerminal {
		p.bar = progressbar.NewOptions64(size,
			progressbar.OptionSetWriter(o.IO.ErrOut),
			progressbar.OptionSetDescription("reading"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return nil
}

// cpuSampled reports whether -C can select samples by CPU: perf requires
// the first event of every event type to sample PERF_SAMPLE_CPU
// (perf_session__cpu_bitmap).
func cpuSampled(attrs []*decode.EventAttr) bool {
	seen := map[decode.AttrType]bool{}
	for _, a := range attrs {
		if seen[a.Type] {
			continue
		}
		seen[a.Type] = true
		if a.SampleType&decode.SampleCPU == 0 {
			return false
		}
	}
	return true
}

// buildIDDir is the build-id cache to use: --buildid-dir, else the
// symfs's own .debug (perf skips the local cache when given a symfs:
// symbol__config_symfs), else $HOME/.debug.
func buildIDDir(o *CommonOptions) string {
	switch {
	case o.BuildIDDir != "":
		return o.BuildIDDir
	case o.Symfs != "":
		return filepath.Join(o.Symfs, ".debug")
	case o.Getenv != nil && o.Getenv("HOME") != "":
		return o.Getenv("HOME") + "/.debug"
	}
	return ""
}

// ThreadComm returns the command thread tid has in the process model so
// far: at the end of the input, its last one.
func (p *pipeline) ThreadComm(tid int32) string { return p.sym.Comm(-1, tid) }

// ShowRecords makes Next yield records of these types (after the process
// model has seen them, except EXIT, which perf prints first).
func (p *pipeline) ShowRecords(types ...decode.RecordType) {
	for _, t := range types {
		p.show[t] = true
	}
}

// Next advances to the next sample or shown record.
func (p *pipeline) Next() bool {
	for {
		if p.err != nil {
			return false
		}
		e, ok := p.next()
		if !ok {
			p.finishProgress()
			return false
		}
		if p.n++; p.n%checkEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				p.err = err
				return false
			}
			p.progress(e)
		}
		if e.Sample != nil {
			s := e.Sample.Sample
			if !p.keepSample(&s.RecordCommon) {
				continue
			}
			hidden := !p.keepThread(&s.RecordCommon)
			if hidden && !p.countHidden {
				continue
			}
			p.sym.Resolve(e.Sample, &p.ev)
			if !p.keepResolved(&p.ev) {
				if !p.countHidden {
					continue
				}
				hidden = true
			}
			p.isSample, p.hidden = true, hidden
			return true
		}
		if p.yieldRecord(e.Record) {
			p.isSample = false
			return true
		}
	}
}

// CountHidden makes Next also yield the samples that --pid, --tid and
// --comms hide, with Hidden reporting them: perf report counts them in
// its totals (the header and the percentages) without showing them.
// --cpu, --time and --event drop samples outright, as in perf.
func (p *pipeline) CountHidden() { p.countHidden = true }

// Hidden reports whether the current sample is one a thread filter hides
// (see CountHidden).
func (p *pipeline) Hidden() bool { return p.hidden }

// keepCommon applies the filters that need no symbolization to a sample
// (or to a CALLCHAIN_DEFERRED record, which perf 6.19 filters like a
// sample).
func (p *pipeline) keepCommon(c *decode.RecordCommon) bool {
	return p.keepSample(c) && p.keepThread(c)
}

// keepResolved applies --comms, --dsos and --symbols to a symbolized
// sample, as perf's machine__resolve marks it filtered: its command, the
// short or full name of the sampled address's DSO, and its symbol's name
// or the sampled address itself ("0x%x", as perf 6.1 matches it).
func (p *pipeline) keepResolved(ev *symbolize.Event) bool {
	fl := &p.opts.Filter
	if len(fl.Comms) > 0 && !slices.Contains(fl.Comms, ev.Comm) {
		return false
	}
	f := &ev.IP
	if len(fl.DSOs) > 0 && (f.Reason == symbolize.NoMap || !slices.Contains(fl.DSOs, f.DSOShort) && !slices.Contains(fl.DSOs, f.DSO)) {
		return false
	}
	if len(fl.Symbols) > 0 {
		named := f.Reason == symbolize.Resolved && f.Symbol != "" && slices.Contains(fl.Symbols, f.Symbol)
		if !named && !slices.Contains(fl.Symbols, "0x"+strconv.FormatUint(f.Addr, 16)) {
			return false
		}
	}
	return true
}

// keepThread applies --pid and --tid.
func (p *pipeline) keepThread(c *decode.RecordCommon) bool {
	fl := &p.opts.Filter
	if len(fl.PIDs) > 0 && !slices.Contains(fl.PIDs, c.PID) {
		return false
	}
	return len(fl.TIDs) == 0 || slices.Contains(fl.TIDs, c.TID)
}

// keepSample applies --cpu, --event and --time.
func (p *pipeline) keepSample(c *decode.RecordCommon) bool {
	fl := &p.opts.Filter
	if !fl.CPUs.Has(c.CPU) {
		return false
	}
	if fl.Event != "" && (c.Attr == nil || c.Attr.Name != fl.Event) {
		return false
	}
	if len(p.ranges) > 0 {
		in := false
		for _, r := range p.ranges {
			if (r.Start == 0 || c.Time >= r.Start) && (r.End == 0 || c.Time <= r.End) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// yieldRecord feeds r to the process model and reports whether it is to
// be shown; then p.rec holds it.
func (p *pipeline) yieldRecord(r decode.Record) bool {
	typ := r.Type()
	if !p.show[typ] || !p.opts.Filter.CPUs.Has(r.Common().CPU) {
		p.sym.Observe(r)
		return false
	}
	c := r.Common()
	p.rec = output.Record{Record: r}
	switch rr := r.(type) {
	case *decode.Exit:
		p.rec.Comm = p.sym.Comm(c.PID, c.TID) // perf prints EXIT before processing it
		p.sym.Observe(r)
	case *decode.Lost:
		p.sym.Observe(r)
		p.rec.Comm = p.sym.Comm(c.TrailerPID, c.TrailerTID)
	case *decode.CallchainDeferred:
		p.rec.Comm = p.sym.Comm(c.PID, c.TID)
		if !p.keepCommon(c) || len(p.opts.Filter.Comms) > 0 && !slices.Contains(p.opts.Filter.Comms, p.rec.Comm) {
			return false
		}
		p.rec.Frames = p.resolveDeferred(rr)
	default:
		p.sym.Observe(r)
		p.rec.Comm = p.sym.Comm(c.PID, c.TID)
	}
	return true
}

// resolveDeferred resolves the user PCs of a CALLCHAIN_DEFERRED record as
// a user callchain of its thread.
func (p *pipeline) resolveDeferred(r *decode.CallchainDeferred) []symbolize.Frame {
	s := &p.defSmp
	*s = decode.Sample{RecordCommon: r.RecordCommon}
	s.Misc = uint16(decode.CPUModeUser)
	s.Callchain = append(append(s.Callchain[:0], decode.ContextUser), r.IPs...)
	ss := stitch.Sample{Sample: s}
	p.sym.Resolve(&ss, &p.deferred)
	return p.deferred.Frames
}

// Event returns the current sample, or nil if the current item is a
// record. It is valid until the next call to Next.
func (p *pipeline) Event() *symbolize.Event {
	if !p.isSample {
		return nil
	}
	return &p.ev
}

// Record returns the current record, or nil if the current item is a
// sample. It is valid until the next call to Next.
func (p *pipeline) Record() *output.Record {
	if p.isSample {
		return nil
	}
	return &p.rec
}

// Err returns the error that ended the iteration.
func (p *pipeline) Err() error { return p.err }

// File returns the open recording (attrs, header, feature data).
func (p *pipeline) File() *decode.File { return p.file }

// Attrs returns the recording's events so far (pipe mode adds to them).
func (p *pipeline) Attrs() []*decode.EventAttr { return p.file.Attrs }

// DecodeStats returns the decoder's counts; call it once Next has
// returned false (decode may run on another goroutine until then).
func (p *pipeline) DecodeStats() *decode.Stats { return p.recs.Stats() }

// StitchStats returns the stitcher's counts; call it once Next has
// returned false.
func (p *pipeline) StitchStats() *stitch.Stats { return p.st.Stats() }

// Symbolizer returns the symbolizer (for its diagnostics).
func (p *pipeline) Symbolizer() *symbolize.Symbolizer { return p.sym }

// Close stops the producer and closes the input.
func (p *pipeline) Close() error {
	if p.prod != nil {
		p.prod.stop()
	}
	p.finishProgress()
	return p.file.Close()
}

// next returns the next stitched item, from the producer or straight from
// the stitcher; at the end it sets p.err.
func (p *pipeline) next() (stitch.Event, bool) {
	if p.prod == nil {
		if !p.st.Next() {
			p.err = p.st.Err()
			return stitch.Event{}, false
		}
		return p.st.Event(), true
	}
	e, ok, err := p.prod.next()
	if !ok {
		p.err = err
	}
	return e, ok
}

func (p *pipeline) progress(e stitch.Event) {
	if p.bar == nil {
		return
	}
	var off int64
	if e.Sample != nil {
		off = e.Sample.Offset
	} else if e.Record != nil {
		off = e.Record.Common().Offset
	}
	if off > 0 {
		_ = p.bar.Set64(off)
	}
}

func (p *pipeline) finishProgress() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
		p.bar = nil
	}
}

var _ io.Closer = (*pipeline)(nil)
