package inject

import (
	"cmp"
	"slices"
	"sort"

	"github.com/perfstitch/perfstitch/decode"
)

// key is a record's place in the file: its offset and, inside a
// COMPRESSED container, its offset in the decompressed stream (-1
// outside). Keys compare in file order.
type key struct {
	off, inner int64
}

func keyOf(c *decode.RecordCommon) key { return key{c.Offset, c.InnerOffset} }

func (k key) compare(o key) int {
	if c := cmp.Compare(k.off, o.off); c != 0 {
		return c
	}
	return cmp.Compare(k.inner, o.inner)
}

// timeKey returns the time by which perf (and decode.TimeOrder) orders a
// record, and false for a record that is delivered as it is read: a
// perf-tool record, or a kernel record without a sample_id time (or with
// time 0, as synthesized records have).
func timeKey(r decode.Record) (uint64, bool) {
	if r.Type() >= 64 {
		return 0, false
	}
	c := r.Common()
	t := c.TrailerTime
	if c.Format&decode.SampleTime != 0 && t != 0 && t != ^uint64(0) {
		return t, true
	}
	return 0, false
}

// item is one encoded record of a round: buf[pos:end].
type item struct {
	time     uint64
	timed    bool
	k        key
	pos, end int
}

// round holds the records of one round of the input (the records after
// one FINISHED_ROUND, up to and including the next), encoded, until all
// of them have come.
type round struct {
	// entered counts the records decode delivered to the stitcher
	// (without the CALLCHAIN_DEFERRED records, which the stitcher
	// consumes), out those the stitcher delivered.
	entered, out int
	hasFR        bool // the round ends in a FINISHED_ROUND (all but the last)
	buf          []byte
	items        []item
}

// sort puts the untimed records first, in file order, and the timed ones
// after them by time, equal times in file order: the order in which perf's
// ordered-events queue hands out a round's records relative to each other.
func (rd *round) sort() {
	slices.SortFunc(rd.items, func(a, b item) int {
		switch {
		case a.timed != b.timed:
			if !a.timed {
				return -1
			}
			return 1
		case a.timed:
			if c := cmp.Compare(a.time, b.time); c != 0 {
				return c
			}
		}
		return a.k.compare(b.k)
	})
}

// rounds is the window of rounds not yet written: q[0] is round base.
type rounds struct {
	base int
	q    []*round
	// fr are the keys of the FINISHED_ROUND records seen that end round
	// base and later: fr[i] ends round base+i.
	fr      []key
	free    []*round
	maxFree int
}

// index returns the round of the record at k: the number of FINISHED_ROUND
// records before it. A record older than the window (which the tracker's
// rule excludes) joins the oldest round of the window.
func (rs *rounds) index(k key) int {
	return rs.base + sort.Search(len(rs.fr), func(i int) bool { return rs.fr[i].compare(k) >= 0 })
}

// get returns round i, making it and the rounds before it.
func (rs *rounds) get(i int) *round {
	for rs.base+len(rs.q) <= i {
		var rd *round
		if n := len(rs.free); n > 0 {
			rd = rs.free[n-1]
			rs.free = rs.free[:n-1]
		} else {
			rd = new(round)
		}
		rs.q = append(rs.q, rd)
	}
	return rs.q[i-rs.base]
}

// of returns the round of the record at k.
func (rs *rounds) of(k key) *round { return rs.get(rs.index(k)) }

// pop drops the oldest round, keeping its storage for a later one.
func (rs *rounds) pop() {
	rd := rs.q[0]
	rs.q[0] = nil
	rs.q = rs.q[1:]
	if len(rs.q) == 0 {
		rs.q = rs.q[:0:0]
	}
	rs.base++
	if len(rs.fr) > 0 {
		rs.fr = rs.fr[1:]
	}
	if len(rs.free) < rs.maxFree {
		*rd = round{buf: rd.buf[:0], items: rd.items[:0]}
		rs.free = append(rs.free, rd)
	}
}

// tracker is the stitcher's source: it passes decode's time-ordered
// records through and notes, for each, its round.
//
// decode (as perf) delivers a round's timed records at the FINISHED_ROUND
// that ends it (those not newer than the previous round's newest) and at
// the next one (all the others: the limit is then the round's own newest
// time), and its untimed records as they are read. So when decode delivers
// any record of round r, every record of the rounds up to r-2 has been
// delivered.
type tracker struct {
	src      *decode.Records
	rounds   *rounds
	maxRound int  // the highest round of a record delivered
	eof      bool // the source ended: every record has been delivered
}

// Next implements stitch.Source.
func (t *tracker) Next() bool {
	if !t.src.Next() {
		t.eof = true
		return false
	}
	r := t.src.Record()
	k := keyOf(r.Common())
	if r.Type() == decode.RecordTypeFinishedRound {
		if n := len(t.rounds.fr); n == 0 || t.rounds.fr[n-1].compare(k) < 0 {
			t.rounds.fr = append(t.rounds.fr, k)
		}
	}
	i := t.rounds.index(k)
	t.maxRound = max(t.maxRound, i)
	if r.Type() != decode.RecordTypeCallchainDeferred {
		t.rounds.get(i).entered++
	}
	return true
}

// Record implements stitch.Source.
func (t *tracker) Record() decode.Record { return t.src.Record() }

// Err implements stitch.Source.
func (t *tracker) Err() error { return t.src.Err() }
