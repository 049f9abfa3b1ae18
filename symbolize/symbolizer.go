package symbolize

import (
	"encoding/binary"
	"math"
	"os"
	"path"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/stitch"
)

// Options configure a [Symbolizer].
type Options struct {
	// Symfs is prefixed to every DSO path looked up (perf --symfs).
	Symfs string
	// Kallsyms is the kallsyms file for kernel symbols (perf --kallsyms).
	// When empty, /proc/kallsyms is used only if the recording's
	// OSRelease (from Meta) is the running kernel's release, and not with
	// a Symfs (perf tries no local files then: dso__load_kernel_sym).
	Kallsyms string
	// Vmlinux is a vmlinux image for kernel symbols (perf -k/--vmlinux),
	// used when Kallsyms is empty: see vmlinux.go.
	Vmlinux string
	// DemangleKernel demangles C++ and Rust names of kernel symbols read
	// from an ELF image (perf --demangle-kernel); kallsyms names are never
	// demangled.
	DemangleKernel bool
	// ShowKernelPath names the kernel DSO of frames by the Vmlinux path
	// once its symbols came from there (perf script --show-kernel-path:
	// the DSO's long name); with kallsyms it stays [kernel.kallsyms].
	ShowKernelPath bool
	// MapsDir holds /proc/PID/maps snapshots, as DIR/PID.maps or
	// DIR/PID/maps, for processes whose MMAP records are missing (started
	// before recording, lost events, pipe mode): a snapshot's executable
	// mappings are consulted for the user addresses no recorded mapping
	// of the process covers, so records win where both exist.
	MapsDir string
	// BuildIDDir is perf's build-id cache (perf --buildid-dir, normally
	// ~/.debug; see [DefaultBuildIDDir]); "" disables it.
	BuildIDDir string
	// NoDemangle prints C++/Rust names as mangled (perf --no-demangle).
	NoDemangle bool
	// Compat is the perf release whose symbolization is reproduced; the
	// zero value means compat.Default.
	Compat compat.Dialect
	// MaxStack limits the callchain addresses resolved per sample (perf
	// --max-stack): the kernel part of a callchain and the addresses
	// unwound from a user stack copy are limited to it separately. 0
	// means [DefaultMaxStack], negative means no limit.
	MaxStack int
	// NoInline leaves out the "(inlined)" frames (perf --no-inline): of
	// DWARF-unwound callchains, and with a dialect whose InlineAllChains
	// is set of every callchain; by default they are added, as perf does.
	NoInline bool
	// Meta is the recording's feature data: its build-id table and
	// OSRelease. May be nil.
	Meta *decode.Meta
	// DropExitedThreads forgets a thread at its EXIT, as perf script
	// does (perf report keeps them: symbol_conf.keep_exited_threads): a
	// later sample of that tid makes a new thread named ":TID". By
	// default exited threads are kept.
	DropExitedThreads bool
	// SrcLine fills Frame.SrcLine of every resolved frame (perf script
	// -F srcline).
	SrcLine bool
}

// DefaultMaxStack is perf's default --max-stack (PERF_MAX_STACK_DEPTH):
// perf script and perf report show at most this many callchain entries.
const DefaultMaxStack = 127

// DefaultBuildIDDir returns perf's default build-id cache, $HOME/.debug,
// or "" when HOME is unset.
func DefaultBuildIDDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return path.Join(h, ".debug")
	}
	return ""
}

// Symbolizer tracks the processes of a recording from its side-band
// records and resolves sample addresses to frames. It is not safe for
// concurrent use. Nothing it does is printed; problems are counted per DSO
// (see [Symbolizer.Diagnostics]).
type Symbolizer struct {
	opts Options
	dem  demangler

	dsos     map[string]*dso
	dsoOrder []*dso
	buildIDs map[string][]byte // recorded build ids by DSO name

	threads map[int32]*thread    // by tid
	spaces  map[int32]*addrSpace // by pid (or a retired space's key)
	retired int32                // retired spaces so far (retireSpace)

	// Kernel address space: [kernel.kallsyms], modules, BPF ksymbols.
	kspace     addrSpace
	kdso       *dso
	kmapSeen   bool
	kref       uint64 // _text address from the kernel MMAP
	kernelPath string // the vmlinux kernel frames name (ShowKernelPath), once loaded
	kloaded    bool
	ksyms      *kernelSyms
	kernelFrom uint64 // lowest kernel address (machine__kernel_start)

	snapshots map[int32]*addrSpace // from MapsDir, nil value: none
	snapErrs  []error
	srcErrs   []error // kallsyms problems (SourceErrors)

	unknown dso // pseudo-DSO for addresses outside every map
	seq     uint64

	// Options.SrcLine: texts by DSO and address, STT_FILE tables by DSO.
	srclines map[srclineKey]string
	fileSyms map[*dso]*fileSyms

	unw unwindState // --call-graph dwarf: CFI by DSO (unwind.go)

	fc  *frameCache // resolved frames; invalidated by any map change
	pre preloader   // symbols being loaded in the background
}

// thread is one task: its process and current comm.
type thread struct {
	pid, tid int32
	comm     string
	commSet  bool // comm came from a COMM record (or a named parent)
	exited   bool
	// space, if not 0, is the key in spaces of the maps the thread
	// kept when its process's leader exited (retireSpace).
	space int32
}

// New returns a Symbolizer. It reads nothing until needed: binaries are
// opened the first time one of their addresses is resolved.
func New(opts Options) (*Symbolizer, error) {
	if opts.Compat.Version == "" {
		opts.Compat = compat.Default
	}
	s := &Symbolizer{
		opts:      opts,
		dem:       demangler{off: opts.NoDemangle, params: opts.Compat.DemangleParams},
		dsos:      map[string]*dso{},
		buildIDs:  map[string][]byte{},
		threads:   map[int32]*thread{},
		spaces:    map[int32]*addrSpace{},
		snapshots: map[int32]*addrSpace{},
		unknown:   dso{name: "[unknown]", short: "[unknown]", loaded: true, reason: NoMap},
		fc:        newFrameCache(),
	}
	if opts.Meta != nil {
		for _, b := range opts.Meta.BuildIDs {
			s.addBuildID(b.Filename, b.ID)
		}
	}
	if s.opts.MaxStack == 0 {
		s.opts.MaxStack = DefaultMaxStack
	}
	if s.opts.Kallsyms == "" && s.opts.Vmlinux == "" && s.opts.Symfs == "" && runningKernelMatches(opts.Meta) {
		s.opts.Kallsyms = "/proc/kallsyms"
	}
	s.startPreload()
	return s, nil
}

// runningKernelMatches reports whether the recording was made on the
// running kernel: by the kernel build id of the build-id table against
// /sys/kernel/notes when the table has one, else by OSRelease.
func runningKernelMatches(meta *decode.Meta) bool {
	if meta == nil {
		return false
	}
	for _, b := range meta.BuildIDs {
		if b.Filename != kernelName && !strings.HasPrefix(b.Filename, kernelName) {
			continue
		}
		notes, err := os.ReadFile("/sys/kernel/notes")
		if err != nil {
			return false
		}
		return buildIDEqual(findBuildIDNote(notes, binary.NativeEndian), b.ID)
	}
	if meta.OSRelease == "" {
		return false
	}
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	return err == nil && strings.TrimSpace(string(rel)) == meta.OSRelease
}

func (s *Symbolizer) addBuildID(name string, id []byte) {
	if name == "" || len(id) == 0 {
		return
	}
	s.buildIDs[name] = append([]byte(nil), id...)
	if d := s.dsos[name]; d != nil && d.buildID == nil && !d.loaded {
		d.setBuildID(id)
	}
}

// findDSO returns the DSO of that name, creating it.
func (s *Symbolizer) findDSO(name string, kind dsoKind) *dso {
	if d := s.dsos[name]; d != nil {
		return d
	}
	d := newDSO(name, kind)
	if id := s.buildIDs[name]; id != nil {
		d.setBuildID(id)
	}
	s.dsos[name] = d
	s.dsoOrder = append(s.dsoOrder, d)
	return d
}

// thread returns the thread tid of process pid, creating it the way
// perf's machine__findnew_thread does (comm ":TID" until a COMM arrives).
func (s *Symbolizer) thread(pid, tid int32) *thread {
	if t := s.threads[tid]; t != nil {
		if t.pid == pid || pid == -1 {
			return t
		}
		if t.pid == -1 {
			t.pid = pid
			return t
		}
	}
	// perf registers the idle task 0 as "swapper" (machine__idle_thread),
	// a name its forks inherit like any set comm.
	t := &thread{pid: pid, tid: tid, comm: defaultComm(tid), commSet: tid == 0}
	s.threads[tid] = t
	return t
}

func defaultComm(tid int32) string {
	if tid == 0 {
		return "swapper"
	}
	return ":" + itoa(tid)
}

func itoa(v int32) string {
	var b [12]byte
	i := len(b)
	n := int64(v)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// space returns the address space of process pid, creating it.
func (s *Symbolizer) space(pid int32) *addrSpace {
	as := s.spaces[pid]
	if as == nil {
		as = &addrSpace{}
		s.spaces[pid] = as
	}
	return as
}

// Comm returns the current command name of thread tid of process pid, as
// perf shows it (":TID" for a thread never named by a COMM record).
func (s *Symbolizer) Comm(pid, tid int32) string {
	if t := s.threads[tid]; t != nil {
		return t.comm
	}
	return defaultComm(tid)
}

// Observe updates the process model from a side-band record: MMAP,
// MMAP2, COMM, FORK, EXIT, KSYMBOL and HEADER_BUILD_ID. Other records
// are ignored. Records must come in time order, interleaved with the
// samples passed to [Symbolizer.Resolve].
//
// As in perf 6.1 (thread.c, machine.c): a new mapping cuts away what it
// overlaps of older ones; an exec COMM renames the thread but keeps the
// process's mappings (the new image's MMAPs replace what they overlap); a
// FORK of a new process copies the parent's mappings, a new thread shares
// them; EXIT keeps the thread for samples still to come.
func (s *Symbolizer) Observe(r decode.Record) {
	switch r := r.(type) {
	case *decode.Mmap:
		if mapsKernel(r) {
			s.fc.invalidate()
		} else {
			// A user mapping changes only its process's frames (a
			// build id it carries is taken only for DSOs not loaded
			// yet, which no cached frame shows).
			s.fc.invalidatePID(r.PID)
		}
	case *decode.Fork:
		if r.PID != r.PPID {
			s.fc.invalidatePID(r.PID) // a new address space
		}
	case *decode.Ksymbol, *decode.HeaderBuildID:
		s.fc.invalidate()
	}
	switch r := r.(type) {
	case *decode.Mmap:
		s.observeMmap(r)
	case *decode.Comm:
		t := s.thread(r.PID, r.TID)
		t.comm, t.commSet = r.Comm, true
	case *decode.Fork:
		s.observeFork(r)
	case *decode.Exit:
		if s.opts.DropExitedThreads {
			delete(s.threads, r.TID)
			if r.TID == r.PID {
				s.retireSpace(r.PID)
			}
		} else if t := s.threads[r.TID]; t != nil {
			t.exited = true
		}
	case *decode.Ksymbol:
		s.observeKsymbol(r)
	case *decode.HeaderBuildID:
		s.addBuildID(r.Filename, r.BuildID)
	}
}

// retireSpace is the EXIT of process pid's leader when exited threads
// are dropped: perf's threads hold the maps they were given, so the
// threads of the process that still exist keep the process's maps, while
// a thread made later (a later sample or COMM of an exited tid) gets the
// maps of a new leader, empty until MMAP records fill them (perf 7.3.4
// script on records processed in file order, --show-round-events). The
// old maps move to a key of their own (below any pid), which those
// threads resolve through.
func (s *Symbolizer) retireSpace(pid int32) {
	as := s.spaces[pid]
	if as == nil {
		return
	}
	s.retired++
	key := math.MinInt32 + s.retired
	s.spaces[key] = as
	delete(s.spaces, pid)
	for _, t := range s.threads {
		if t.pid == pid && t.space == 0 {
			t.space = key
		}
	}
	s.fc.invalidate()
}

// spaceOf is the key of the maps a thread of process pid resolves
// through: its own retired space, else its process's.
func spaceOf(t *thread, pid int32) int32 {
	if t.space != 0 {
		return t.space
	}
	return pid
}

// miscForkExec is PERF_RECORD_MISC_FORK_EXEC: a FORK synthesized by perf
// for an already running task, whose maps must not be cloned.
const miscForkExec = 1 << 13

func (s *Symbolizer) observeFork(r *decode.Fork) {
	parent := s.thread(r.PPID, r.PTID)
	// perf's thread__fork copies the comm only from a named parent.
	child := &thread{pid: r.PID, tid: r.TID, comm: defaultComm(r.TID)}
	if parent.commSet {
		child.comm, child.commSet = parent.comm, true
	}
	s.threads[r.TID] = child
	if r.PID == r.PPID {
		return // a new thread shares the process's maps
	}
	if r.Misc&miscForkExec != 0 {
		if s.spaces[r.PID] == nil {
			s.spaces[r.PID] = &addrSpace{}
		}
		return
	}
	if ps := s.spaces[r.PPID]; ps != nil {
		s.spaces[r.PID] = ps.clone()
	} else {
		s.spaces[r.PID] = &addrSpace{}
	}
}

// mapHugeTLB is MAP_HUGETLB in MMAP2 flags; protExec is PROT_EXEC in its
// prot.
const (
	mapHugeTLB = 0x40000
	protExec   = 0x4
)

// mapsKernel reports whether r maps kernel memory (the kernel image or a
// module) rather than a process's.
func mapsKernel(r *decode.Mmap) bool {
	mode := r.CPUMode()
	return mode == decode.CPUModeKernel || mode == decode.CPUModeGuestKernel || (r.PID == -1 && mode != decode.CPUModeUser)
}

func (s *Symbolizer) observeMmap(r *decode.Mmap) {
	if mapsKernel(r) {
		s.observeKernelMmap(r)
		return
	}
	if r.V2 && r.Misc&decode.MiscMmapBuildID != 0 && len(r.BuildID) > 0 {
		if d := s.dsos[r.Filename]; d == nil || (!d.loaded && d.buildID == nil) {
			s.addBuildID(r.Filename, r.BuildID)
		}
	}
	// perf takes MMAP2's prot, and for MMAP the DATA bit (map__new).
	exec := r.Executable()
	if r.V2 {
		exec = r.Prot&protExec != 0
	}
	m := s.userMapping(r.Filename, r.Addr, r.Addr+r.Len, r.Pgoff, r.PID, r.V2 && r.Flags&mapHugeTLB != 0, exec)
	s.space(r.PID).insert(m)
}

// userMapping builds a user mapping the way perf's map__new does:
// executable anonymous memory (//anon, /dev/zero, /anon_hugepage,
// MAP_HUGETLB) and executable memory without a DSO file ([heap], [stack*],
// /SYSV*) become the JIT map /tmp/perf-PID.map; either kind has identity
// addresses; [vdso] is the vDSO.
func (s *Symbolizer) userMapping(filename string, start, end, pgoff uint64, pid int32, huge, exec bool) mapping {
	anon := filename == "//anon" || strings.HasPrefix(filename, "/dev/zero") ||
		strings.HasPrefix(filename, "/anon_hugepage") || huge
	noDSO := strings.HasPrefix(filename, "[stack") || strings.HasPrefix(filename, "/SYSV") || filename == "[heap]"
	m := mapping{start: start, end: end, pgoff: pgoff}
	switch {
	case (anon || noDSO) && exec:
		if anon {
			m.pgoff = 0
		}
		m.identity = true
		m.dso = s.findDSO("/tmp/perf-"+itoa(pid)+".map", dsoPerfMap)
	case anon || noDSO:
		if anon {
			m.pgoff = 0
		}
		m.identity = true
		m.dso = s.findDSO(filename, dsoNoFile)
	case filename == "[vdso]":
		m.dso = s.findDSO(filename, dsoVDSO)
	case strings.HasPrefix(filename, "[") || filename == "":
		m.dso = s.findDSO(filename, dsoNoFile)
	default:
		m.dso = s.findDSO(filename, dsoUser)
	}
	return m
}

const kernelName = "[kernel.kallsyms]"

func (s *Symbolizer) observeKernelMmap(r *decode.Mmap) {
	name := r.Filename
	switch {
	case strings.HasPrefix(name, kernelName) || strings.HasPrefix(name, "[guest.kernel.kallsyms"):
		s.kernelDSO()
		s.kmapSeen = true
		if strings.HasSuffix(name, "_text") || strings.HasSuffix(name, "_stext") {
			s.kref = r.Pgoff
		}
		end := r.Addr + r.Len
		if r.Len == 0 || end < r.Addr {
			end = ^uint64(0)
		}
		s.kspace.insert(mapping{start: r.Addr, end: end, dso: s.kdso, identity: true})
		if s.kernelFrom == 0 || r.Addr < s.kernelFrom {
			s.kernelFrom = r.Addr
		}
	default:
		// A kernel module: "/lib/modules/.../name.ko[.xz]" is the DSO
		// "[name]", unless the build-id table already named a DSO by the
		// path: perf then finds that one by its short name and prints the
		// path.
		mod := moduleName(name)
		dsoName := mod
		if _, ok := s.buildIDs[name]; ok {
			dsoName = name
		}
		d := s.findDSO(dsoName, dsoModule)
		d.short = mod
		s.kspace.insert(mapping{start: r.Addr, end: r.Addr + r.Len, dso: d, identity: true})
	}
}

// moduleName turns a module path into perf's "[name]" (extension dropped,
// '-' replaced by '_').
func moduleName(p string) string {
	if strings.HasPrefix(p, "[") {
		return p
	}
	b := path.Base(p)
	if i := strings.Index(b, ".ko"); i >= 0 {
		b = b[:i]
	}
	return "[" + strings.ReplaceAll(b, "-", "_") + "]"
}

func (s *Symbolizer) kernelDSO() *dso {
	if s.kdso == nil {
		s.kdso = s.findDSO(kernelName, dsoKernel)
	}
	return s.kdso
}

// ksymUnregister is PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER.
const ksymUnregister = 1

func (s *Symbolizer) observeKsymbol(r *decode.Ksymbol) {
	if r.Len == 0 {
		return
	}
	end := r.Addr + uint64(r.Len)
	if r.KsymFlags&ksymUnregister != 0 {
		// Drop the mapping by covering it with nothing: rebuild without it.
		out := s.kspace.maps[:0]
		for _, m := range s.kspace.maps {
			if m.start == r.Addr && m.dso != nil && m.dso.kind == dsoKsym {
				continue
			}
			out = append(out, m)
		}
		s.kspace.maps = out
		return
	}
	d := s.findDSO(r.Name, dsoKsym)
	d.tab.syms = []symbol{{start: r.Addr, end: end, name: r.Name}}
	d.loaded, d.reason, d.cache = true, Resolved, nil
	s.kspace.insert(mapping{start: r.Addr, end: end, dso: d, identity: true})
}

// loadKernel reads kallsyms once and gives the kernel and module DSOs
// their symbols; the kernel map then spans the kernel symbols (perf's
// map__fixup_start/end).
func (s *Symbolizer) loadKernel() {
	if s.kloaded {
		return
	}
	s.kloaded = true
	s.fc.invalidate()
	kd := s.kernelDSO()
	if s.opts.Kallsyms == "" && s.opts.Vmlinux != "" {
		s.loadVmlinux(kd)
		return
	}
	if s.opts.Kallsyms == "" {
		kd.loaded, kd.reason = true, NoKallsyms
		return
	}
	ks, err := s.kernelSyms(s.opts.Kallsyms)
	if err != nil {
		s.noteKallsyms(err)
		kd.loaded, kd.reason = true, NoKallsyms
		return
	}
	s.noteKallsyms(ks.bad)
	ks.relocate(s.kref)
	s.ksyms = ks
	kd.tab = ks.kernel
	kd.loaded, kd.path = true, s.opts.Kallsyms
	kd.reason = NoKallsyms // an empty file, e.g. --kallsyms /dev/null
	if start, end, ok := kd.tab.span(); ok {
		kd.reason = Resolved
		// Replace the kernel mapping(s) by the symbol span.
		out := s.kspace.maps[:0]
		for _, m := range s.kspace.maps {
			if m.dso != kd {
				out = append(out, m)
			}
		}
		s.kspace.maps = out
		s.kspace.insert(mapping{start: start, end: end, dso: kd, identity: true})
		if s.kernelFrom == 0 || start < s.kernelFrom {
			s.kernelFrom = start
		}
	}
}

// isKernelAddr reports whether addr is in the kernel half (perf's
// machine__addr_cpumode).
func (s *Symbolizer) isKernelAddr(addr uint64) bool {
	if s.kernelFrom != 0 {
		return addr >= s.kernelFrom
	}
	return addr >= 0xffff800000000000
}

// snapshot returns the maps snapshot of pid from MapsDir, or nil.
func (s *Symbolizer) snapshot(pid int32) *addrSpace {
	if s.opts.MapsDir == "" {
		return nil
	}
	if as, ok := s.snapshots[pid]; ok {
		return as
	}
	s.snapshots[pid] = nil
	s.fc.invalidate()
	p := mapsSnapshotPath(s.opts.MapsDir, pid)
	if p == "" {
		return nil
	}
	entries, err := ReadMapsFile(p)
	if err != nil {
		s.snapErrs = append(s.snapErrs, err)
		if !linesSkipped(err) {
			return nil
		}
		// Bad lines were skipped: the rest of the snapshot is used.
	}
	as := &addrSpace{}
	for _, e := range entries {
		if !e.Executable() {
			continue
		}
		name := e.Path
		if name == "" {
			name = "//anon"
		}
		as.insert(s.userMapping(name, e.Start, e.End, e.Offset, pid, false, true))
	}
	s.snapshots[pid] = as
	return as
}

// MapsErrors returns the errors met reading maps snapshots (each names
// its file and line); those snapshots were not used.
func (s *Symbolizer) MapsErrors() []error { return s.snapErrs }

// Resolve fills ev with the resolved sample: its comm, its IP and its
// callchain frames (leaf first, at most Options.MaxStack addresses). The
// storage of ev.Frames is reused, so a warm Symbolizer allocates nothing
// per sample. The side-band records up to the sample's time must have been
// passed to [Symbolizer.Observe] first.
func (s *Symbolizer) Resolve(smp *stitch.Sample, ev *Event) {
	s.seq++
	ev.Sample = smp
	ev.Frames = ev.Frames[:0]
	if smp == nil || smp.Sample == nil {
		ev.Comm, ev.IP = "", Frame{}
		return
	}
	ds := smp.Sample
	t := s.thread(ds.PID, ds.TID)
	ev.Comm = t.comm
	period := ds.Period

	pid := spaceOf(t, ds.PID)
	s.resolveAddr(&ev.IP, ds.IP, ds.CPUMode(), pid, period)

	var ok bool
	ev.Frames, ok = s.appendChain(ev.Frames, ds.Callchain, pid, period, smp.ABI == decode.DeferredCookie)
	if !ok {
		return
	}
	s.unwindUser(ds, ev, s.opts.MaxStack)
	if n := len(ev.Frames); s.opts.Compat.UnwindEndsAtZero && ev.Unwound > 0 && ev.Frames[n-1].Addr == ^uint64(0) {
		// The walk read a return address of 0 (the ip below it minus 1).
		ev.Frames, ev.Unwound = ev.Frames[:n-1], ev.Unwound-1
	}
	if s.opts.SrcLine {
		s.fillSrcLines(ev)
	}
}

// appendChain appends to frames the frames of a recorded callchain
// (context markers and addresses) of a thread of process pid, at most
// Options.MaxStack addresses, and returns them. The addresses before any
// marker are user ones. cookie says a USER_DEFERRED marker is followed by
// the deferred callchain's cookie (shown as a frame of its own). ok is
// false when the callchain is dropped whole, as perf 6.1 drops it.
func (s *Symbolizer) appendChain(frames []Frame, chain []uint64, pid int32, period uint64, cookie bool) (_ []Frame, ok bool) {
	mode := decode.CPUModeUser
	maxStack := s.opts.MaxStack
	entries := 0
	inlineAll := s.opts.Compat.InlineAllChains && !s.opts.NoInline
	for i := 0; i < len(chain); i++ {
		ip := chain[i]
		if ip < decode.ContextMax {
			if maxStack > 0 && entries >= maxStack {
				break
			}
			entries++
		} else {
			switch ip {
			case decode.ContextHV:
				mode = decode.CPUModeHypervisor
			case decode.ContextKernel:
				mode = decode.CPUModeKernel
			case decode.ContextUser:
				mode = decode.CPUModeUser
			case decode.ContextUserDeferred:
				if cookie && i+1 < len(chain) {
					i++
					frames = append(frames, Frame{
						Addr: chain[i], MapAddr: chain[i], DSO: "[unknown]", DSOShort: "[unknown]",
						Reason: Special, Cookie: true,
					})
				}
				i = len(chain)
			default:
				// perf 6.1 drops the whole callchain on any other
				// context, the guest ones included.
				return frames[:0], false
			}
			continue
		}
		if inlineAll {
			frames = s.appendInlined(frames, ip, mode, pid, period)
			continue
		}
		frames = append(frames, Frame{})
		s.resolveAddr(&frames[len(frames)-1], ip, mode, pid, period)
	}
	return frames, true
}

// resolveAddrSlow fills f for address addr seen in cpumode mode by a
// thread of process pid, and returns the DSO it counted the frame against
// and whether it resolved. There is no retry in the other address space:
// perf's thread__find_map_fb retries only on single-address-space
// machines (sparc), never on x86 or arm.
func (s *Symbolizer) resolveAddrSlow(f *Frame, addr uint64, mode decode.CPUMode, pid int32, period uint64) (*dso, bool) {
	*f = Frame{Addr: addr, MapAddr: addr}
	var m *mapping
	kernel := mode == decode.CPUModeKernel
	switch mode {
	case decode.CPUModeKernel:
		m = s.kernelMap(addr)
	case decode.CPUModeUser:
		m = s.userMap(pid, addr)
	}
	if m == nil {
		f.DSO, f.DSOShort, f.Reason = "[unknown]", "[unknown]", NoMap
		s.count(&s.unknown, false, period)
		return &s.unknown, false
	}
	d := m.dso
	f.Kernel = kernel
	f.DSO, f.DSOShort, f.BuildID = d.name, d.short, d.buildIDHex
	f.MapAddr = m.mapIP(addr)
	s.load(d)
	if d == s.kdso && s.kernelPath != "" {
		f.DSO = s.kernelPath // --show-kernel-path with a vmlinux
	}
	if d.reason != Resolved {
		f.Reason = d.reason
		s.count(d, false, period)
		return d, false
	}
	sym := d.lookup(f.MapAddr)
	if sym == nil {
		f.Reason = NoSymbols
		s.count(d, false, period)
		return d, false
	}
	f.Symbol, f.Offset = sym.printName(), f.MapAddr-sym.start
	s.count(d, true, period)
	return d, true
}

func (s *Symbolizer) count(d *dso, ok bool, period uint64) {
	d.frames++
	if ok {
		return
	}
	d.unresolved++
	if d.lastSeq != s.seq {
		d.lastSeq = s.seq
		d.weight += period
	}
}

func (s *Symbolizer) kernelMap(addr uint64) *mapping {
	s.loadKernel()
	if m := s.kspace.find(addr); m != nil {
		return m
	}
	if !s.kmapSeen && s.ksyms == nil && s.isKernelAddr(addr) {
		// No kernel MMAP and no kallsyms: perf still has a kernel map.
		s.kmapSeen = true
		s.fc.invalidate()
		s.kspace.insert(mapping{start: 0xffff800000000000, end: ^uint64(0), dso: s.kernelDSO(), identity: true})
		return s.kspace.find(addr)
	}
	return nil
}

func (s *Symbolizer) userMap(pid int32, addr uint64) *mapping {
	if m := s.spaces[pid].find(addr); m != nil {
		return m
	}
	if pid < -1 {
		return nil // a retired space (retireSpace) has no snapshot
	}
	return s.snapshot(pid).find(addr)
}
