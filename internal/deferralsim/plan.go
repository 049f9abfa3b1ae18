package deferralsim

import (
	"fmt"
	"slices"

	"github.com/perfstitch/perfstitch/decode"
)

// key identifies a record of the input in either delivery order: its file
// offset and, inside a COMPRESSED container, its offset in the
// decompressed stream.
type key struct {
	off, inner int64
}

func keyOf(c *decode.RecordCommon) key { return key{c.Offset, c.InnerOffset} }

// samplePlan is what becomes of one sample.
type samplePlan struct {
	index  int // position among the input's samples in time order
	cookie uint64
	klen   int // length of the kernel part of the chain
}

// run is the open kernel entry of one thread: consecutive deferrable
// samples that share one user callchain and so one deferred record.
type run struct {
	tid, pid int32
	kernel   bool     // the samples were taken in kernel mode
	user     []uint64 // the user PCs (after PERF_CONTEXT_USER)
	cookie   uint64
	samples  []int // indexes into Truth.Samples
	last     key   // the run's last sample; its records follow it
	lastTime uint64
	lastCPU  uint32
	// seed ABI: the events that sampled during the entry, in order of
	// first sample, with the id of their last sample.
	events []*decode.EventAttr
	ids    []uint64
}

// planner decides, from the input in time order, which samples defer,
// their cookies, and which records are written after which sample.
type planner struct {
	opts     Options
	file     *decode.File
	emitters []*decode.EventAttr // cookie ABI: the events that receive records
	err      error
	runs     map[int32]*run
	counter  map[uint32]uint32 // per-CPU cookie counter
	ids      map[attrCPU]uint64
	plans    map[key]*samplePlan
	inserts  map[key][]*decode.CallchainDeferred
	truth    Truth
	nrecords int               // records closed (dropped or not), for DropEvery
	compress decode.RecordType // the input's COMPRESSED container type, if any
}

type attrCPU struct {
	attr int
	cpu  uint32
}

func newPlanner(opts Options, f *decode.File) *planner {
	return &planner{
		opts:    opts,
		file:    f,
		runs:    make(map[int32]*run),
		counter: make(map[uint32]uint32),
		ids:     make(map[attrCPU]uint64),
		plans:   make(map[key]*samplePlan),
		inserts: make(map[key][]*decode.CallchainDeferred),
	}
}

// userPart splits a callchain of the kernel's shape [KERNEL, k…, USER, u…]
// or [USER, u…]: it returns the length of the kernel part and the user PCs,
// and false when the chain has another shape (no user part, guest or
// hypervisor contexts, a second marker, already deferred).
func userPart(ch []uint64) (klen int, user []uint64, ok bool) {
	u := slices.Index(ch, decode.ContextUser)
	if u < 0 {
		return 0, nil, false
	}
	if u > 0 && ch[0] != decode.ContextKernel {
		return 0, nil, false
	}
	for i, ip := range ch {
		if i != u && i != 0 && ip >= decode.ContextMax {
			return 0, nil, false
		}
	}
	return u, ch[u+1:], true
}

// defers reports whether samples of ev request a user callchain and so
// would defer it.
func defers(ev *decode.EventAttr) bool {
	return ev != nil && ev.SampleType&decode.SampleCallchain != 0 && ev.Flags&decode.AttrExcludeCallchainUser == 0
}

// add takes the next record of the input in time order.
func (p *planner) add(r decode.Record) {
	c := r.Common()
	if c.Attr != nil && c.Format&decode.SampleCPU != 0 {
		if c.Format&(decode.SampleID|decode.SampleIdentifier) != 0 {
			p.ids[attrCPU{c.Attr.Index, c.CPU}] = c.ID
		}
	}
	switch r := r.(type) {
	case *decode.Compressed:
		p.compress = r.Type()
	case *decode.Sample:
		p.sample(r)
	case *decode.Comm:
		p.close(r.TID, r.Time, r.HasTime())
	case *decode.Exit:
		p.close(r.TID, r.Time, r.HasTime())
	}
}

func (p *planner) sample(s *decode.Sample) {
	idx := len(p.truth.Samples)
	p.truth.Samples = append(p.truth.Samples, SampleTruth{})
	if s.Format&decode.SampleTID == 0 || s.TID <= 0 || !defers(s.Attr) || s.Format&decode.SampleCallchain == 0 {
		return
	}
	klen, user, ok := userPart(s.Callchain)
	if !ok {
		p.close(s.TID, s.Time, s.HasTime())
		return
	}
	kernel := klen > 0
	r := p.runs[s.TID]
	if r == nil || !r.kernel || !kernel || !slices.Equal(r.user, user) {
		p.close(s.TID, s.Time, s.HasTime())
		cpu := uint32(0)
		if s.Format&decode.SampleCPU != 0 {
			cpu = s.CPU
		}
		r = &run{tid: s.TID, pid: s.PID, kernel: kernel, user: slices.Clone(user), cookie: p.cookie(cpu)}
		p.runs[s.TID] = r
	}
	r.samples = append(r.samples, idx)
	r.last = keyOf(&s.RecordCommon)
	r.lastTime = s.Time
	if s.Format&decode.SampleCPU != 0 {
		r.lastCPU = s.CPU
	}
	id := s.ID
	if i := slices.Index(r.events, s.Attr); i >= 0 {
		r.ids[i] = id
	} else {
		r.events = append(r.events, s.Attr)
		r.ids = append(r.ids, id)
	}
	st := &p.truth.Samples[idx]
	st.Deferred = true
	if p.opts.ABI == decode.DeferredCookie {
		st.Cookie = r.cookie
	}
	p.plans[keyOf(&s.RecordCommon)] = &samplePlan{index: idx, cookie: st.Cookie, klen: klen}
}

// cookie returns the next cookie of cpu the way the kernel's unwind_deferred
// core makes them: {u32 cpu+1; u32 cnt} with an odd per-CPU counter.
func (p *planner) cookie(cpu uint32) uint64 {
	cnt := p.counter[cpu]
	if cnt == 0 {
		cnt = 1
	}
	cnt += 2
	p.counter[cpu] = cnt
	return uint64(cnt|1)<<32 | uint64(cpu+1)
}

// close ends the open kernel entry of tid, if any: its records are written
// after its last sample, 1 ns later (or at the same time when the thread's
// next event at time next is not later than that).
func (p *planner) close(tid int32, next uint64, hasNext bool) {
	r := p.runs[tid]
	if r == nil {
		return
	}
	delete(p.runs, tid)
	if p.emitters == nil && p.opts.ABI == decode.DeferredCookie {
		// Known by now also in pipe mode, where HEADER_ATTR records
		// precede the samples.
		p.emitters, p.err = emitters(p.file.Attrs, p.opts)
		if p.err != nil {
			return
		}
	}
	p.nrecords++
	if p.opts.DropEvery > 0 && p.nrecords%p.opts.DropEvery == 0 {
		for _, i := range r.samples {
			p.truth.Samples[i].Dropped = true
		}
		p.truth.Dropped++
		return
	}
	t := r.lastTime + 1
	if hasNext && next <= t {
		t = r.lastTime
	}
	mk := func(ev *decode.EventAttr, id uint64) *decode.CallchainDeferred {
		rec := &decode.CallchainDeferred{
			RecordCommon: decode.RecordCommon{
				Offset: -1, InnerOffset: -1,
				Misc: uint16(decode.CPUModeUser),
				Attr: ev, PID: r.pid, TID: r.tid, Time: t, CPU: r.lastCPU, ID: id, StreamID: id,
			},
			ABI:    p.opts.ABI,
			Cookie: r.cookie,
			IPs:    r.user,
		}
		if p.opts.ABI == decode.DeferredSeed {
			rec.Cookie = 0
		}
		if ev != nil && !p.opts.NoSampleIDAll {
			rec.Format = ev.SampleType
		}
		return rec
	}
	var recs []*decode.CallchainDeferred
	if p.opts.ABI == decode.DeferredSeed {
		for i, ev := range r.events {
			recs = append(recs, mk(ev, r.ids[i]))
		}
	} else {
		for i, ev := range p.emitters {
			if i > 0 && !p.opts.Duplicate {
				break
			}
			recs = append(recs, mk(ev, p.idOf(ev, r.lastCPU)))
		}
		if p.opts.Duplicate && len(p.emitters) == 1 {
			recs = append(recs, mk(p.emitters[0], p.idOf(p.emitters[0], r.lastCPU)))
		}
	}
	p.truth.Records += len(recs)
	p.inserts[r.last] = append(p.inserts[r.last], recs...)
}

// idOf returns the sample id of event ev on cpu, as seen in the input, or
// its first id.
func (p *planner) idOf(ev *decode.EventAttr, cpu uint32) uint64 {
	if id, ok := p.ids[attrCPU{ev.Index, cpu}]; ok {
		return id
	}
	if len(ev.IDs) > 0 {
		return ev.IDs[0]
	}
	return 0
}

// finish closes every entry still open at the end of the input.
func (p *planner) finish() {
	tids := make([]int32, 0, len(p.runs))
	for tid := range p.runs {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	for _, tid := range tids {
		p.close(tid, 0, false)
	}
}

// deferChain rewrites a callchain of the kernel's shape to the deferred
// form: the kernel part, PERF_CONTEXT_USER_DEFERRED and (cookie ABI) the
// cookie.
func deferChain(ch []uint64, pl *samplePlan, abi decode.DeferredABI) []uint64 {
	out := append(slices.Clip(ch[:pl.klen]), decode.ContextUserDeferred)
	if abi == decode.DeferredCookie {
		out = append(out, pl.cookie)
	}
	return out
}

func (o Options) validate() error {
	if o.ABI != decode.DeferredSeed && o.ABI != decode.DeferredCookie {
		return fmt.Errorf("abi %d: want seed or cookie", o.ABI)
	}
	if o.DropEvery < 0 {
		return fmt.Errorf("drop every %d: must not be negative", o.DropEvery)
	}
	return nil
}
