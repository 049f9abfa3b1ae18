// Package deferralsim turns a real recording with ordinary kernel+user
// callchains into one with deferred user callchains, the ground truth for
// testing package stitch: the kernel of this machine cannot record deferred
// callchains (perf-format.md §8.6), so we write what it would have.
//
// Per thread, in time order, a run of consecutive kernel-mode samples with
// the same user callchain is taken to be one kernel entry: its samples keep
// their kernel part and end in PERF_CONTEXT_USER_DEFERRED (and, in the
// cookie ABI, the entry's cookie), and one PERF_RECORD_CALLCHAIN_DEFERRED
// with the user PCs is written right after the run's last sample, 1 ns
// later. Every user-mode sample is an entry of its own. Cookies look like
// the kernel's ({u32 cpu+1; u32 odd counter}, unique per entry).
//
// The API is internal to perfstitch's tests and its hidden simulate
// command.
package deferralsim

import (
	"fmt"

	"github.com/perfstitch/perfstitch/decode"
)

// Options select what the simulator writes.
type Options struct {
	// ABI is decode.DeferredCookie (Linux/perf 6.19: cookies, records
	// through the defer_output event) or decode.DeferredSeed (the original
	// patch series: no cookie, records through the sampling event, only
	// attr bit 38).
	ABI decode.DeferredABI
	// DropEvery drops every Nth record (N, 2N, ...; 0 drops none), as a
	// full ring buffer would.
	DropEvery int
	// Duplicate writes every record twice (cookie ABI: defer_output on a
	// second event, or the same event twice when there is only one).
	Duplicate bool
	// ViaEvent is a sample id of the event that emits the records (cookie
	// ABI); 0 selects the tracking event (the first with mmap or comm
	// tracking), as perf record sets defer_output.
	ViaEvent uint64
	// NoSampleIDAll clears sample_id_all on every event: records then carry
	// no thread id, time or event id.
	NoSampleIDAll bool
}

// Truth is what the simulator did, for checking a stitcher against.
type Truth struct {
	// Samples has one entry per sample of the input, in time order
	// (decode.TimeOrder), which is also the order of the samples in the
	// output in time order.
	Samples []SampleTruth
	// Records is the number of CALLCHAIN_DEFERRED records written
	// (duplicates included), Dropped the number of records not written.
	Records, Dropped int
}

// SampleTruth is what became of one sample.
type SampleTruth struct {
	// Deferred: the sample's user callchain was moved into a record.
	Deferred bool
	// Cookie is the entry's cookie (cookie ABI).
	Cookie uint64
	// Dropped: the record of the sample's entry was not written.
	Dropped bool
}

// Deferred returns the number of deferred samples.
func (t *Truth) Deferred() int {
	n := 0
	for _, s := range t.Samples {
		if s.Deferred {
			n++
		}
	}
	return n
}

// emitters returns the events that receive the records in the cookie ABI:
// the event of opts.ViaEvent or the tracking event, plus a second one for
// Duplicate when the file has another event.
func emitters(attrs []*decode.EventAttr, opts Options) ([]*decode.EventAttr, error) {
	if len(attrs) == 0 {
		return nil, fmt.Errorf("recording has no events")
	}
	var first *decode.EventAttr
	if opts.ViaEvent != 0 {
		for _, a := range attrs {
			for _, id := range a.IDs {
				if id == opts.ViaEvent {
					first = a
				}
			}
		}
		if first == nil {
			return nil, fmt.Errorf("via event: no event has sample id %d", opts.ViaEvent)
		}
	} else {
		first = attrs[0]
		for _, a := range attrs {
			if a.Flags&(decode.AttrMmap|decode.AttrComm) != 0 {
				first = a
				break
			}
		}
	}
	out := []*decode.EventAttr{first}
	if opts.Duplicate {
		for _, a := range attrs {
			if a != first {
				out = append(out, a)
				break
			}
		}
	}
	return out, nil
}

// newAttrs returns copies of attrs with the defer bits the ABI sets:
// defer_callchain on every event that samples user callchains; in the
// cookie ABI defer_output on the emitters. Index and IDs are kept.
func newAttrs(attrs, emit []*decode.EventAttr, opts Options) []*decode.EventAttr {
	out := make([]*decode.EventAttr, 0, len(attrs))
	for _, a := range attrs {
		c := *a
		if defers(a) {
			c.Flags |= decode.AttrDeferCallchain
		}
		if opts.ABI == decode.DeferredCookie {
			for _, e := range emit {
				if e == a {
					c.Flags |= decode.AttrDeferOutput
				}
			}
		}
		if opts.NoSampleIDAll {
			c.Flags &^= decode.AttrSampleIDAll
		}
		out = append(out, &c)
	}
	return out
}

// plan reads the recording in time order and decides what the simulator
// writes, without writing it.
func plan(f *decode.File, opts Options) (*planner, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.ABI == decode.DeferredSeed && (opts.ViaEvent != 0 || opts.Duplicate) {
		return nil, fmt.Errorf("seed ABI: records are written through the sampling event; via-event and duplicate need the cookie ABI")
	}
	rs := f.Records(decode.TimeOrder)
	p := newPlanner(opts, f)
	for rs.Next() && p.err == nil {
		p.add(rs.Record())
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	p.finish()
	if p.err != nil {
		return nil, p.err
	}
	return p, nil
}
