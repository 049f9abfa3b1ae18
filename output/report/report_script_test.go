package report

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// This file rebuilds a corpus case's resolved samples from perf's own
// `perf script` output (script.txt) plus the /proc/PID/maps snapshots, so
// that the report aggregation can be checked against perf report's goldens
// independently of the decoder and symbolizer. It is test scaffolding: the
// symbols, offsets and DSOs are perf's.

type procMap struct {
	start, end, pgoff uint64
	path              string
}

func readMaps(tb testing.TB, dir string) map[int][]procMap {
	tb.Helper()
	out := make(map[int][]procMap)
	files, _ := filepath.Glob(filepath.Join(dir, "*.maps"))
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".maps"))
		if err != nil {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			fs := strings.Fields(line)
			if len(fs) < 6 {
				continue
			}
			se := strings.SplitN(fs[0], "-", 2)
			start, _ := strconv.ParseUint(se[0], 16, 64)
			end, _ := strconv.ParseUint(se[1], 16, 64)
			off, _ := strconv.ParseUint(fs[2], 16, 64)
			out[pid] = append(out[pid], procMap{start, end, off, strings.Join(fs[5:], " ")})
		}
	}
	return out
}

var (
	scriptHeadRE  = regexp.MustCompile(`^\s*(\S.*?)\s+(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(\d+)\s+(\S+):(.*)$`)
	scriptFrameRE = regexp.MustCompile(`^\s*([0-9a-f]+) (.*) \((.*)\)$`)
)

type scriptReader struct {
	maps  map[int][]procMap
	attrs map[string]*decode.EventAttr
	order []string // DSO long names in MMAP order
}

// absolute returns the absolute address of a map-relative address in dso
// for thread tid, and the map-relative address of an absolute one.
func (sr *scriptReader) lookup(tid int, dso string, addr uint64, relative bool) (abs, rel uint64, ok bool) {
	try := func(ms []procMap) bool {
		for _, m := range ms {
			if m.path != dso {
				continue
			}
			base := m.start - m.pgoff
			a := addr
			if relative {
				a = base + addr
			}
			if a >= m.start && a < m.end {
				abs, rel = a, a-base
				return true
			}
		}
		return false
	}
	if try(sr.maps[tid]) {
		return abs, rel, true
	}
	for _, ms := range sr.maps {
		if try(ms) {
			return abs, rel, true
		}
	}
	return addr, addr, false
}

func shortName(dso string) string {
	if strings.HasPrefix(dso, "[") {
		return dso
	}
	return filepath.Base(dso)
}

func (sr *scriptReader) frame(tid int, addr uint64, sym, dso string, relative bool) symbolize.Frame {
	f := symbolize.Frame{Addr: addr, MapAddr: addr, DSO: dso, DSOShort: shortName(dso)}
	switch {
	case dso == "[unknown]":
		f.Reason = symbolize.NoMap
	case dso == "[kernel.kallsyms]" || addr >= 0xffff800000000000:
		f.Kernel = true
	default:
		abs, rel, _ := sr.lookup(tid, dso, addr, relative)
		f.Addr, f.MapAddr = abs, rel
	}
	if f.Reason == symbolize.Resolved {
		if sym == "[unknown]" {
			f.Reason = symbolize.NoSymbols
		} else if i := strings.LastIndex(sym, "+0x"); i >= 0 {
			f.Symbol = sym[:i]
			f.Offset, _ = strconv.ParseUint(sym[i+3:], 16, 64)
		} else {
			f.Symbol = sym
		}
	}
	return f
}

// scriptEvents parses a case's script.txt (perf 6.1's) into resolved
// events.
func scriptEvents(tb testing.TB, c testfixture.CorpusCase) ([]*symbolize.Event, []string) {
	return parseScript(tb, c, "", true)
}

// parseScript parses the script.txt of a case's folder sub ("" or
// "perf7") into resolved events; relative says the callchain addresses
// are map-relative (perf 6.1) rather than absolute (perf 7.3.4). An
// inline frame, "ADDR name+0xOFF (inlined)", gets the DSO and addresses
// of the enclosing frame that follows it.
func parseScript(tb testing.TB, c testfixture.CorpusCase, sub string, relative bool) ([]*symbolize.Event, []string) {
	tb.Helper()
	sr := &scriptReader{maps: readMaps(tb, c.Maps), attrs: make(map[string]*decode.EventAttr)}
	if ev, err := os.Open(c.Golden(filepath.Join(sub, "script-events.txt"))); err == nil {
		sc := bufio.NewScanner(ev)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.Contains(line, "PERF_RECORD_MMAP") {
				continue
			}
			fs := strings.Fields(line)
			sr.order = append(sr.order, fs[len(fs)-1])
		}
		ev.Close()
	}
	f, err := os.Open(c.Golden(filepath.Join(sub, "script.txt")))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var events []*symbolize.Event
	var cur *symbolize.Event
	// emit takes cur, its IP set, as the next event.
	emit := func() {
		if cur.IP.Kernel {
			cur.Sample.Misc = uint16(decode.CPUModeKernel)
		} else {
			cur.Sample.Misc = uint16(decode.CPUModeUser)
		}
		events = append(events, cur)
		cur = nil
	}
	finish := func() {
		if cur == nil {
			return
		}
		sr.inlineFrames(int(cur.Sample.TID), cur.Frames, relative)
		// The sampled IP is the first real frame: perf makes no self
		// entry of an inlined function.
		for i := range cur.Frames {
			if !cur.Frames[i].Inlined {
				cur.IP = cur.Frames[i]
				break
			}
		}
		emit()
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			finish()
			continue
		}
		if strings.HasPrefix(line, "\t") {
			m := scriptFrameRE.FindStringSubmatch(line)
			if m == nil || cur == nil {
				tb.Fatalf("bad frame line %q", line)
			}
			addr, _ := strconv.ParseUint(m[1], 16, 64)
			if m[3] == "inlined" {
				fr := symbolize.Frame{Addr: addr, Inlined: true}
				if i := strings.LastIndex(m[2], "+0x"); i >= 0 {
					fr.Symbol = m[2][:i]
					fr.Offset, _ = strconv.ParseUint(m[2][i+3:], 16, 64)
				}
				cur.Frames = append(cur.Frames, fr)
				continue
			}
			cur.Frames = append(cur.Frames, sr.frame(int(cur.Sample.TID), addr, m[2], m[3], relative))
			continue
		}
		finish()
		m := scriptHeadRE.FindStringSubmatch(line)
		if m == nil {
			tb.Fatalf("bad sample line %q", line)
		}
		tid, _ := strconv.Atoi(m[2])
		period, _ := strconv.ParseUint(m[5], 10, 64)
		attr := sr.attrs[m[6]]
		if attr == nil {
			attr = &decode.EventAttr{Name: m[6], Index: len(sr.attrs), SampleType: decode.SampleTID | decode.SamplePeriod}
			sr.attrs[m[6]] = attr
		}
		s := &decode.Sample{Period: period}
		s.Attr = attr
		s.PID, s.TID = int32(tid), int32(tid)
		s.Format = decode.SampleTID | decode.SamplePeriod
		cur = &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: strings.TrimSpace(m[1])}
		if rest := strings.TrimSpace(m[7]); rest != "" {
			// No callchain: the IP, absolute, on the same line.
			fm := scriptFrameRE.FindStringSubmatch(rest)
			if fm == nil {
				tb.Fatalf("bad sample line %q", line)
			}
			addr, _ := strconv.ParseUint(fm[1], 16, 64)
			cur.IP = sr.frame(tid, addr, fm[2], fm[3], false)
			emit()
			continue
		}
		s.Format |= decode.SampleCallchain
		attr.SampleType |= decode.SampleCallchain
	}
	finish()
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return events, sr.order
}

// inlineFrames gives each inline frame the map address, DSO and
// resolution perf does not print for it: those of the enclosing frame
// at the same address after it (frame-pointer chains, perf 7.3.4), else,
// where perf prints the outermost function as inlined too (DWARF
// unwinding), of the map that holds the address (absolute addresses) or
// of the frame before it (relative ones, a guess).
func (sr *scriptReader) inlineFrames(tid int, frames []symbolize.Frame, relative bool) {
	for i := range frames {
		if !frames[i].Inlined || frames[i].DSO != "" {
			continue
		}
		var e symbolize.Frame
		found := false
		for j := i + 1; j < len(frames) && frames[j].Addr == frames[i].Addr; j++ {
			if !frames[j].Inlined {
				e, found = frames[j], true
				break
			}
		}
		if !found && !relative {
			if dso, ok := sr.mapOf(tid, frames[i].Addr); ok {
				e, found = sr.frame(tid, frames[i].Addr, "x", dso, false), true
			}
		}
		if !found && i > 0 {
			e, found = frames[i-1], true
			e.Addr, e.MapAddr = frames[i].Addr, frames[i].Addr
		}
		if !found {
			continue
		}
		e.Symbol, e.Offset, e.Inlined, e.Reason = frames[i].Symbol, frames[i].Offset, true, symbolize.Resolved
		frames[i] = e
	}
}

// mapOf returns the path of the map of thread tid (or of any process)
// that holds the absolute address addr.
func (sr *scriptReader) mapOf(tid int, addr uint64) (string, bool) {
	for _, m := range sr.maps[tid] {
		if addr >= m.start && addr < m.end {
			return m.path, true
		}
	}
	for _, ms := range sr.maps {
		for _, m := range ms {
			if addr >= m.start && addr < m.end {
				return m.path, true
			}
		}
	}
	return "", false
}
