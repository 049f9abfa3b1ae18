package output

import (
	"strconv"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// AddRecord prints a side-band record the way perf script does with
// --show-task-events (COMM, FORK, EXIT), --show-mmap-events (MMAP, MMAP2),
// --show-lost-events (LOST), --show-switch-events (SWITCH,
// SWITCH_CPU_WIDE), --show-namespace-events (NAMESPACES) and
// --show-cgroup-events (CGROUP), --show-bpf-events (KSYMBOL, BPF_EVENT),
// --show-text-poke-events (TEXT_POKE) and --show-round-events
// (FINISHED_ROUND), and a CALLCHAIN_DEFERRED record as perf 6.19 does
// with --no-merge-callchains. Other records are ignored.
func (t *Text) AddRecord(r *Record) error {
	c := r.Common()
	attr := c.Attr
	if attr == nil {
		attr = t.set.first()
	}
	var cfg *evConfig
	if attr != nil {
		var err error
		if cfg, err = t.set.config(attr); err != nil {
			return err
		}
	}
	if d, ok := r.Record.(*decode.CallchainDeferred); ok {
		return t.addDeferred(r, d, cfg)
	}
	if _, ok := r.Record.(*decode.FinishedRound); ok {
		// A perf-tool record: perf_event__fprintf alone, no sample part.
		_, err := t.w.Write([]byte("PERF_RECORD_FINISHED_ROUND\n"))
		return err
	}
	// The pid/tid of the record body: they select the thread whose comm
	// is printed; the sample_id values are printed (print_event_with_time).
	pid, tid := c.PID, c.TID
	var ts uint64
	switch rr := r.Record.(type) {
	case *decode.Fork:
		ts = rr.Time
	case *decode.Exit:
		ts = rr.Time
	case *decode.Mmap, *decode.Comm, *decode.Lost, *decode.Switch, *decode.Namespaces, *decode.Cgroup:
	case *decode.Ksymbol, *decode.BPFEvent, *decode.TextPoke:
		if attr != nil && !attr.SampleIDAll() {
			// process_bpf_events, process_text_poke_events: without
			// sample_id_all the record alone.
			cfg = nil
		}
	default:
		return nil
	}
	spid, stid, cpu, tm := c.TrailerPID, c.TrailerTID, c.CPU, c.TrailerTime
	if _, lost := r.Record.(*decode.Lost); lost {
		spid, stid = pid, tid
	}
	if attr != nil && !attr.SampleIDAll() {
		spid, stid, cpu, tm = pid, tid, 0, ts
	}
	b := t.buf[:0]
	if cfg != nil {
		comm := ":-1"
		if tid != -1 {
			comm = commOf(r.Comm, tid)
		}
		b = t.appendStart(b, cfg, comm, spid, stid, cpu, tm, c.Misc, r.Record.Type())
	}
	if tp, ok := r.Record.(*decode.TextPoke); ok {
		b = appendTextPoke(b, tp, r.Frames)
	} else {
		b = appendRecordBody(b, r.Record)
	}
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

// appendRecordBody is perf_event__fprintf for the record types perf script
// shows: "PERF_RECORD_<TYPE>" and the type's own text, with a newline.
func appendRecordBody(b []byte, rec decode.Record) []byte {
	b = append(b, "PERF_RECORD_"...)
	switch r := rec.(type) {
	case *decode.Mmap:
		if r.V2 {
			b = append(b, "MMAP2"...)
		} else {
			b = append(b, "MMAP"...)
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.TID), 10)
		b = append(b, ": ["...)
		b = appendAltHex(b, r.Addr)
		b = append(b, '(')
		b = appendAltHex(b, r.Len)
		b = append(b, ") @ "...)
		b = appendAltHex(b, r.Pgoff)
		if !r.V2 {
			b = append(b, "]: "...)
			if r.Misc&decode.MiscMmapData != 0 {
				b = append(b, 'r')
			} else {
				b = append(b, 'x')
			}
		} else {
			if r.Misc&decode.MiscMmapBuildID != 0 {
				b = append(b, " <"...)
				for _, x := range r.BuildID {
					b = appendHex02(b, uint32(x))
				}
				b = append(b, '>')
			} else {
				b = append(b, ' ')
				b = appendHex02(b, r.Maj)
				b = append(b, ':')
				b = appendHex02(b, r.Min)
				b = append(b, ' ')
				b = strconv.AppendUint(b, r.Ino, 10)
				b = append(b, ' ')
				b = strconv.AppendUint(b, r.InoGeneration, 10)
			}
			b = append(b, "]: "...)
			b = append(b, protChar(r.Prot&1 != 0, 'r'), protChar(r.Prot&2 != 0, 'w'), protChar(r.Prot&4 != 0, 'x'))
			if r.Flags&1 != 0 { // MAP_SHARED
				b = append(b, 's')
			} else {
				b = append(b, 'p')
			}
		}
		b = append(b, ' ')
		b = append(b, r.Filename...)
	case *decode.Comm:
		b = append(b, "COMM"...)
		if r.Exec() {
			b = append(b, " exec"...)
		}
		b = append(b, ": "...)
		b = append(b, r.Comm...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.TID), 10)
	case *decode.Fork:
		b = append(b, "FORK"...)
		b = appendTaskPair(b, r.PID, r.TID, r.PPID, r.PTID)
	case *decode.Exit:
		b = append(b, "EXIT"...)
		b = appendTaskPair(b, r.PID, r.TID, r.PPID, r.PTID)
	case *decode.Lost:
		b = append(b, "LOST lost "...)
		b = strconv.AppendUint(b, r.Lost, 10)
	case *decode.Switch:
		// perf_event__fprintf_switch
		inOut := "IN         "
		if r.Out() {
			inOut = "OUT        "
			if r.Misc&decode.MiscSwitchOutPreempt != 0 {
				inOut = "OUT preempt"
			}
		}
		if !r.CPUWide {
			b = append(b, "SWITCH "...)
			b = append(b, inOut...)
			break
		}
		b = append(b, "SWITCH_CPU_WIDE "...)
		b = append(b, inOut...)
		if r.Out() {
			b = append(b, "  next pid/tid: "...)
		} else {
			b = append(b, "  prev pid/tid: "...)
		}
		b = appendIntPad(b, int64(r.NextPrevPID), 5)
		b = append(b, '/')
		b = appendIntPadRight(b, int64(r.NextPrevTID), 5)
	case *decode.Namespaces:
		// perf_event__fprintf_namespaces: four links a line.
		b = append(b, "NAMESPACES "...)
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.TID), 10)
		b = append(b, " - nr_namespaces: "...)
		b = strconv.AppendInt(b, int64(len(r.Namespaces)), 10)
		b = append(b, "\n\t\t["...)
		for i, ns := range r.Namespaces {
			if i > 0 && i%4 == 0 {
				b = append(b, "\n\t\t "...)
			}
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '/')
			b = append(b, namespaceName(i)...)
			b = append(b, ": "...)
			b = strconv.AppendUint(b, ns.Dev, 10)
			b = append(b, '/')
			b = append(b, cHex(ns.Ino)...)
			if i+1 < len(r.Namespaces) {
				b = append(b, ", "...)
			}
		}
		if len(r.Namespaces) > 0 {
			b = append(b, ']')
		}
	case *decode.Ksymbol:
		b = appendKsymbol(b, r)
	case *decode.BPFEvent:
		b = appendBPFEvent(b, r)
	case *decode.Cgroup:
		b = append(b, "CGROUP cgroup: "...)
		b = strconv.AppendUint(b, r.CgroupID, 10)
		b = append(b, ' ')
		b = append(b, r.Path...)
	}
	return append(b, '\n')
}

func protChar(set bool, c byte) byte {
	if set {
		return c
	}
	return '-'
}

// appendTaskPair appends "(pid:tid):(ppid:ptid)".
func appendTaskPair(b []byte, pid, tid, ppid, ptid int32) []byte {
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, "):("...)
	b = strconv.AppendInt(b, int64(ppid), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(ptid), 10)
	return append(b, ')')
}

// addDeferred prints a CALLCHAIN_DEFERRED record as perf 6.19's
// process_deferred_sample_event does: the sample start, "DEFERRED
// CALLCHAIN [cookie: …]", and the resolved user frames.
func (t *Text) addDeferred(r *Record, d *decode.CallchainDeferred, cfg *evConfig) error {
	if cfg == nil || cfg.fields == 0 {
		return nil
	}
	c := r.Common()
	b := t.appendStart(t.buf[:0], cfg, commOf(r.Comm, c.TID), c.PID, c.TID, c.CPU, c.Time, c.Misc, r.Record.Type())
	b = append(b, "DEFERRED CALLCHAIN [cookie: "...)
	b = strconv.AppendUint(b, d.Cookie, 16)
	b = append(b, ']')
	if cfg.fields&FieldIP != 0 {
		if cfg.callchain {
			b = append(b, '\n')
			b = t.appendFrames(b, cfg.fields, r.Frames, 0, nil)
		} else {
			b = append(b, ' ')
			b = appendHexPad(b, 0, 16)
			b = appendSymDSO(b, cfg.fields, &symbolize.Frame{}, false)
		}
	}
	b = append(b, '\n')
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

// namespaceNames are perf's names of the NAMESPACES links (perf_ns__name).
var namespaceNames = []string{"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"}

func namespaceName(i int) string {
	if i < len(namespaceNames) {
		return namespaceNames[i]
	}
	return "UNKNOWN"
}

// appendTextPoke is perf_event__fprintf_text_poke: the address, its
// kernel symbol and offset when the session resolved one (frames[0]), the
// lengths, then the old and the new bytes, 16 a line.
func appendTextPoke(b []byte, r *decode.TextPoke, frames []symbolize.Frame) []byte {
	b = append(b, "PERF_RECORD_TEXT_POKE "...)
	b = strconv.AppendUint(b, r.Addr, 16)
	b = append(b, ' ')
	if len(frames) > 0 && frames[0].Symbol != "" {
		b = append(b, frames[0].Symbol...)
		b = append(b, "+0x"...)
		b = strconv.AppendUint(b, frames[0].Offset, 16)
	}
	b = append(b, " old len "...)
	b = strconv.AppendUint(b, uint64(len(r.OldBytes)), 10)
	b = append(b, " new len "...)
	b = strconv.AppendUint(b, uint64(len(r.NewBytes)), 10)
	b = append(b, '\n')
	b = appendPokeBytes(b, "Old", r.OldBytes)
	return appendPokeBytes(b, "New", r.NewBytes)
}

// appendPokeBytes prints bytes as perf's binary__fprintf with
// text_poke_printer: lines of 16 "Old bytes:"/"New bytes:" then " %02x"
// each.
func appendPokeBytes(b []byte, what string, p []byte) []byte {
	const hex = "0123456789abcdef"
	for i, c := range p {
		if i%16 == 0 {
			b = append(b, "            "...)
			b = append(b, what...)
			b = append(b, " bytes:"...)
		}
		b = append(b, ' ', hex[c>>4], hex[c&15])
		if i%16 == 15 || i == len(p)-1 {
			b = append(b, '\n')
		}
	}
	return b
}

// appendKsymbol appends a KSYMBOL record's line after perf's
// "PERF_RECORD_" (perf_event__fprintf_ksymbol: the side-band text and
// the raw dump print the same).
func appendKsymbol(b []byte, r *decode.Ksymbol) []byte {
	b = append(b, "KSYMBOL addr "...)
	b = strconv.AppendUint(b, r.Addr, 16)
	b = append(b, " len "...)
	b = strconv.AppendUint(b, uint64(r.Len), 10)
	b = append(b, " type "...)
	b = strconv.AppendUint(b, uint64(r.KsymType), 10)
	b = append(b, " flags 0x"...)
	b = strconv.AppendUint(b, uint64(r.KsymFlags), 16)
	b = append(b, " name "...)
	return append(b, r.Name...)
}

// appendBPFEvent appends a BPF_EVENT record's line after perf's
// "PERF_RECORD_" (perf_event__fprintf_bpf), as appendKsymbol.
func appendBPFEvent(b []byte, r *decode.BPFEvent) []byte {
	b = append(b, "BPF_EVENT type "...)
	b = strconv.AppendUint(b, uint64(r.EventType), 10)
	b = append(b, ", flags "...)
	b = strconv.AppendUint(b, uint64(r.Flags), 10)
	b = append(b, ", id "...)
	return strconv.AppendUint(b, uint64(r.ProgID), 10)
}
