package decode

import "slices"

// Type returns the record type of r.
func (*Sample) Type() RecordType { return RecordTypeSample }

// Clone returns a deep copy of r.
func (r *Sample) Clone() Record {
	c := *r
	c.Read.Values = slices.Clone(r.Read.Values)
	c.Callchain = slices.Clone(r.Callchain)
	c.Raw = slices.Clone(r.Raw)
	c.Branches = slices.Clone(r.Branches)
	c.BranchCounters = slices.Clone(r.BranchCounters)
	c.RegsUser = slices.Clone(r.RegsUser)
	c.StackUser = slices.Clone(r.StackUser)
	c.RegsIntr = slices.Clone(r.RegsIntr)
	c.Aux = slices.Clone(r.Aux)
	return &c
}

// reset zeroes r but keeps the storage of its slices for reuse.
// (Callchain is not kept: the parser owns its storage, see store.chain.)
func (r *Sample) reset() {
	rv, br, bc, ru, ri := r.Read.Values[:0], r.Branches[:0],
		r.BranchCounters[:0], r.RegsUser[:0], r.RegsIntr[:0]
	*r = Sample{}
	r.Read.Values, r.Branches, r.BranchCounters, r.RegsUser, r.RegsIntr = rv, br, bc, ru, ri
}

// CopyTo makes dst a deep copy of r, reusing dst's storage (the
// allocation-free twin of Clone, for consumers that keep samples in
// recycled buffers). As with Clone, a nil slice of r stays nil in dst.
func (r *Sample) CopyTo(dst *Sample) { r.cloneInto(dst) }

// cloneInto makes dst a deep copy of r, reusing dst's storage.
func (r *Sample) cloneInto(dst *Sample) {
	if r.Read.Values == nil && r.Raw == nil && r.Branches == nil && r.BranchCounters == nil &&
		r.RegsUser == nil && r.StackUser == nil && r.RegsIntr == nil && r.Aux == nil {
		// The common case: the callchain is the only slice.
		cc := dst.Callchain
		*dst = *r
		dst.Callchain = reuse(cc, r.Callchain)
		return
	}
	rv, cc, raw, br, bc := dst.Read.Values, dst.Callchain, dst.Raw, dst.Branches, dst.BranchCounters
	ru, su, ri, aux := dst.RegsUser, dst.StackUser, dst.RegsIntr, dst.Aux
	*dst = *r
	dst.Read.Values = reuse(rv, r.Read.Values)
	dst.Callchain = reuse(cc, r.Callchain)
	dst.Raw = reuse(raw, r.Raw)
	dst.Branches = reuse(br, r.Branches)
	dst.BranchCounters = reuse(bc, r.BranchCounters)
	dst.RegsUser = reuse(ru, r.RegsUser)
	dst.StackUser = reuse(su, r.StackUser)
	dst.RegsIntr = reuse(ri, r.RegsIntr)
	dst.Aux = reuse(aux, r.Aux)
}

// reuse copies src into buf's storage; a nil src stays nil.
func reuse[T any](buf, src []T) []T {
	if src == nil {
		return nil
	}
	return append(buf[:0], src...)
}

// Type returns the record type of r.
func (r *Mmap) Type() RecordType {
	if r.V2 {
		return RecordTypeMmap2
	}
	return RecordTypeMmap
}

// Clone returns a deep copy of r.
func (r *Mmap) Clone() Record {
	c := *r
	c.BuildID = slices.Clone(r.BuildID)
	return &c
}

// Type returns the record type of r.
func (*Comm) Type() RecordType { return RecordTypeComm }

// Clone returns a deep copy of r.
func (r *Comm) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Fork) Type() RecordType { return RecordTypeFork }

// Clone returns a deep copy of r.
func (r *Fork) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Exit) Type() RecordType { return RecordTypeExit }

// Clone returns a deep copy of r.
func (r *Exit) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Lost) Type() RecordType { return RecordTypeLost }

// Clone returns a deep copy of r.
func (r *Lost) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*LostSamples) Type() RecordType { return RecordTypeLostSamples }

// Clone returns a deep copy of r.
func (r *LostSamples) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (r *Throttle) Type() RecordType {
	if r.Unthrottle {
		return RecordTypeUnthrottle
	}
	return RecordTypeThrottle
}

// Clone returns a deep copy of r.
func (r *Throttle) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Read) Type() RecordType { return RecordTypeRead }

// Clone returns a deep copy of r.
func (r *Read) Clone() Record {
	c := *r
	c.Values.Values = slices.Clone(r.Values.Values)
	return &c
}

// Type returns the record type of r.
func (*Aux) Type() RecordType { return RecordTypeAux }

// Clone returns a deep copy of r.
func (r *Aux) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*ItraceStart) Type() RecordType { return RecordTypeItraceStart }

// Clone returns a deep copy of r.
func (r *ItraceStart) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (r *Switch) Type() RecordType {
	if r.CPUWide {
		return RecordTypeSwitchCPUWide
	}
	return RecordTypeSwitch
}

// Clone returns a deep copy of r.
func (r *Switch) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Namespaces) Type() RecordType { return RecordTypeNamespaces }

// Clone returns a deep copy of r.
func (r *Namespaces) Clone() Record {
	c := *r
	c.Namespaces = slices.Clone(r.Namespaces)
	return &c
}

// Type returns the record type of r.
func (*Ksymbol) Type() RecordType { return RecordTypeKsymbol }

// Clone returns a deep copy of r.
func (r *Ksymbol) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*BPFEvent) Type() RecordType { return RecordTypeBPFEvent }

// Clone returns a deep copy of r.
func (r *BPFEvent) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*Cgroup) Type() RecordType { return RecordTypeCgroup }

// Clone returns a deep copy of r.
func (r *Cgroup) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*TextPoke) Type() RecordType { return RecordTypeTextPoke }

// Clone returns a deep copy of r.
func (r *TextPoke) Clone() Record {
	c := *r
	c.OldBytes = slices.Clone(r.OldBytes)
	c.NewBytes = slices.Clone(r.NewBytes)
	return &c
}

// Type returns the record type of r.
func (*AuxOutputHWID) Type() RecordType { return RecordTypeAuxOutputHWID }

// Clone returns a deep copy of r.
func (r *AuxOutputHWID) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*CallchainDeferred) Type() RecordType { return RecordTypeCallchainDeferred }

// Clone returns a deep copy of r.
func (r *CallchainDeferred) Clone() Record {
	c := *r
	c.IPs = slices.Clone(r.IPs)
	return &c
}

// Type returns the record type of r.
func (*HeaderAttr) Type() RecordType { return RecordTypeHeaderAttr }

// Clone returns a deep copy of r.
func (r *HeaderAttr) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*HeaderEventType) Type() RecordType { return RecordTypeHeaderEventType }

// Clone returns a deep copy of r.
func (r *HeaderEventType) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*TracingData) Type() RecordType { return RecordTypeHeaderTracingData }

// Clone returns a deep copy of r.
func (r *TracingData) Clone() Record {
	c := *r
	c.Data = slices.Clone(r.Data)
	return &c
}

// Type returns the record type of r.
func (*HeaderBuildID) Type() RecordType { return RecordTypeHeaderBuildID }

// Clone returns a deep copy of r.
func (r *HeaderBuildID) Clone() Record {
	c := *r
	c.BuildID = slices.Clone(r.BuildID)
	return &c
}

// Type returns the record type of r.
func (*IDIndex) Type() RecordType { return RecordTypeIDIndex }

// Clone returns a deep copy of r.
func (r *IDIndex) Clone() Record {
	c := *r
	c.Entries = slices.Clone(r.Entries)
	return &c
}

// Type returns the record type of r.
func (*AuxtraceInfo) Type() RecordType { return RecordTypeAuxtraceInfo }

// Clone returns a deep copy of r.
func (r *AuxtraceInfo) Clone() Record {
	c := *r
	c.Priv = slices.Clone(r.Priv)
	return &c
}

// Type returns the record type of r.
func (*Auxtrace) Type() RecordType { return RecordTypeAuxtrace }

// Clone returns a deep copy of r.
func (r *Auxtrace) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*AuxtraceError) Type() RecordType { return RecordTypeAuxtraceError }

// Clone returns a deep copy of r.
func (r *AuxtraceError) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*ThreadMap) Type() RecordType { return RecordTypeThreadMap }

// Clone returns a deep copy of r.
func (r *ThreadMap) Clone() Record {
	c := *r
	c.Threads = slices.Clone(r.Threads)
	return &c
}

// Type returns the record type of r.
func (*CPUMap) Type() RecordType { return RecordTypeCPUMap }

// Clone returns a deep copy of r.
func (r *CPUMap) Clone() Record {
	c := *r
	c.CPUs = slices.Clone(r.CPUs)
	return &c
}

// Type returns the record type of r.
func (*StatConfig) Type() RecordType { return RecordTypeStatConfig }

// Clone returns a deep copy of r.
func (r *StatConfig) Clone() Record {
	c := *r
	c.Config = slices.Clone(r.Config)
	return &c
}

// Type returns the record type of r.
func (*Stat) Type() RecordType { return RecordTypeStat }

// Clone returns a deep copy of r.
func (r *Stat) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*StatRound) Type() RecordType { return RecordTypeStatRound }

// Clone returns a deep copy of r.
func (r *StatRound) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*EventUpdate) Type() RecordType { return RecordTypeEventUpdate }

// Clone returns a deep copy of r.
func (r *EventUpdate) Clone() Record {
	c := *r
	c.CPUs = slices.Clone(r.CPUs)
	return &c
}

// Type returns the record type of r.
func (*TimeConv) Type() RecordType { return RecordTypeTimeConv }

// Clone returns a deep copy of r.
func (r *TimeConv) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*HeaderFeature) Type() RecordType { return RecordTypeHeaderFeature }

// Clone returns a deep copy of r.
func (r *HeaderFeature) Clone() Record {
	c := *r
	c.Data = slices.Clone(r.Data)
	return &c
}

// Type returns the record type of r.
func (r *Compressed) Type() RecordType {
	if r.V2 {
		return RecordTypeCompressed2
	}
	return RecordTypeCompressed
}

// Clone returns a deep copy of r.
func (r *Compressed) Clone() Record {
	c := *r
	c.Data = slices.Clone(r.Data)
	return &c
}

// Type returns the record type of r.
func (*BPFMetadata) Type() RecordType { return RecordTypeBPFMetadata }

// Clone returns a deep copy of r.
func (r *BPFMetadata) Clone() Record {
	c := *r
	c.Entries = slices.Clone(r.Entries)
	return &c
}

// Type returns the record type of r.
func (r *Unknown) Type() RecordType { return r.RecType }

// Clone returns a deep copy of r.
func (r *Unknown) Clone() Record {
	c := *r
	c.Data = slices.Clone(r.Data)
	return &c
}

// Type returns the record type of r.
func (*FinishedRound) Type() RecordType { return RecordTypeFinishedRound }

// Clone returns a deep copy of r.
func (r *FinishedRound) Clone() Record {
	c := *r
	return &c
}

// Type returns the record type of r.
func (*FinishedInit) Type() RecordType { return RecordTypeFinishedInit }

// Clone returns a deep copy of r.
func (r *FinishedInit) Clone() Record {
	c := *r
	return &c
}
