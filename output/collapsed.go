package output

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/symbolize"
)

// CollapsedOptions are the options of stackcollapse-perf.pl that
// perfstitch supports.
type CollapsedOptions struct {
	// PID appends "-PID" to the process name (--pid); TID appends
	// "-PID/TID" (--tid). Unlike stackcollapse-perf.pl fed with perf's
	// default fields (which has no pid and prints "-?"), the real pid is
	// used, as when perf script is run with -F comm,pid,tid,....
	PID, TID bool
	// Kernel appends "_[k]" to kernel frames (--kernel), JIT appends
	// "_[j]" to frames of /tmp/perf-PID.map (--jit); All sets both (--all).
	Kernel, JIT, All bool
	// Addrs writes unresolved frames as "[dso <addr>]" (--addrs).
	Addrs bool
	// EventFilter keeps only samples of the named event; "" keeps the
	// event of the first sample (--event-filter).
	EventFilter string
	// Compat is the perf release whose perf script output is folded
	// (--compat); the zero value means [compat.Default].
	Compat compat.Dialect
}

// Collapsed aggregates samples into folded stacks, one line per distinct
// stack with its summed period, sorted, exactly as
// `perf script | stackcollapse-perf.pl` prints them. It writes in Flush.
type Collapsed struct {
	w    *asyncWriter
	warn io.Writer
	opts CollapsedOptions
	set  eventSet // perf script's default fields, per event

	counts    map[string]*uint64
	filter    string
	defaulted bool
	warned    bool
	stack     []byte
	head      []byte
	names     *[1 << foldedBits]foldedName
}

// foldedBits sizes the folded-name cache: 1<<foldedBits entries.
const foldedBits = 15

// NewCollapsed returns a Collapsed writer on w. Diagnostics that
// stackcollapse-perf.pl prints on stderr (the event filter note) go to
// warn, which may be nil.
func NewCollapsed(w io.Writer, warn io.Writer, attrs func() []*decode.EventAttr, opts CollapsedOptions) *Collapsed {
	if opts.All {
		opts.Kernel, opts.JIT = true, true
	}
	if opts.Compat.Version == "" {
		opts.Compat = compat.Default
	}
	return &Collapsed{
		w:      newAsyncWriter(w, bufferSize),
		warn:   warn,
		opts:   opts,
		set:    eventSet{attrs: attrs},
		counts: make(map[string]*uint64),
		filter: opts.EventFilter,
	}
}

// Add folds one sample.
func (c *Collapsed) Add(ev *symbolize.Event) error {
	cfg, err := c.set.config(ev.Attr)
	if err != nil || cfg == nil || cfg.fields == 0 {
		return err
	}
	// A sample printed on one line (no callchain) never ends in a blank
	// line, so stackcollapse-perf.pl never counts it.
	if cfg.fields&FieldIP == 0 || !cfg.callchain || ev.Format&decode.SampleCallchain == 0 {
		return nil
	}
	period := uint64(1)
	if cfg.fields&FieldEvent != 0 {
		if p := ev.Sample.Period; cfg.fields&FieldPeriod != 0 && p != 0 {
			period = p
		}
		event := cfg.name
		if i := strings.LastIndexAny(event, " \t"); i >= 0 {
			event = event[i+1:]
		}
		switch {
		case c.filter == "":
			c.filter = event
			c.defaulted = true
		case event != c.filter:
			if c.defaulted && !c.warned && c.warn != nil {
				io.WriteString(c.warn, "Filtering for events of type: "+event+"\n")
			}
			c.warned = true
			return nil
		}
	}
	pname, ok := c.pname(cfg, ev)
	if !ok {
		return nil
	}
	java := strings.HasPrefix(pname, "java")

	frames := ev.Frames
	if len(frames) > symbolize.DefaultMaxStack {
		frames = frames[:symbolize.DefaultMaxStack]
	}
	// Frames are leaf first; the folded stack is root first.
	st := append(c.stack[:0], pname...)
	for i := len(frames) - 1; i >= 0; i-- {
		st = c.appendFrame(st, &frames[i], ev, java)
	}
	c.stack = st
	if n := c.counts[string(st)]; n != nil { // no allocation for a known stack
		*n += period
	} else {
		v := period
		c.counts[string(st)] = &v
	}
	return nil
}

// pname returns the process name stackcollapse-perf.pl derives from the
// header line, and false when it would ignore the sample (empty or "0").
func (c *Collapsed) pname(cfg *evConfig, ev *symbolize.Event) (string, bool) {
	comm := commOf(ev.Comm, ev.Sample.TID)
	name := comm
	if len(comm) < 2 || strings.ContainsAny(comm, " \t\n\r\f\v") || cfg.fields&FieldComm == 0 {
		c.head = c.appendHead(c.head[:0], cfg, ev)
		var ok bool
		if name, ok = headName(c.head); !ok {
			return "", false
		}
	}
	switch {
	case c.opts.TID:
		name += "-" + strconv.Itoa(int(ev.Sample.PID)) + "/" + strconv.Itoa(int(ev.Sample.TID))
	case c.opts.PID:
		name += "-" + strconv.Itoa(int(ev.Sample.PID))
	}
	if strings.IndexByte(name, ' ') >= 0 {
		name = strings.ReplaceAll(name, " ", "_")
	}
	if name == "" || name == "0" {
		return "", false
	}
	return name, true
}

// appendHead appends the start of the line perf script prints for a
// sample with a callchain, as far as stackcollapse-perf.pl's pattern for
// the process name can reach: the comm, then the default fields (tid, never
// pid; cpu; time in microseconds; period; event). The period, a number
// between blanks, is always printed, so every match ends by then; the addr
// of raw events comes last with no blank after it and cannot end one.
func (c *Collapsed) appendHead(b []byte, cfg *evConfig, ev *symbolize.Event) []byte {
	s := ev.Sample.Sample
	f := cfg.fields
	if f&FieldComm != 0 {
		b = append(b, commOf(ev.Comm, s.TID)...)
		b = append(b, ' ')
	}
	if f&FieldTID != 0 {
		b = appendIntPad(b, int64(s.TID), c.opts.Compat.PidWidth)
		b = append(b, ' ')
	}
	if f&FieldCPU != 0 {
		b = append(b, '[')
		if c := int64(int32(s.CPU)); c < 0 {
			b = appendZeroPad(append(b, '-'), uint64(-c), 2)
		} else {
			b = appendZeroPad(b, uint64(c), 3)
		}
		b = append(b, ']', ' ')
	}
	if f&FieldTime != 0 {
		var tmp [32]byte
		ts := appendZeroPad(append(strconv.AppendUint(tmp[:0], s.Time/1e9, 10), '.'), s.Time%1e9/1000, 6)
		b = append(appendPadLeftBytes(b, ts, 12), ':', ' ')
	}
	if f&FieldPeriod != 0 {
		b = append(appendUintPad(b, s.Period, 10), ' ')
	}
	if f&FieldEvent != 0 {
		b = append(appendPadLeft(b, cfg.name, c.set.nameWidth), ':', ' ')
	}
	return b
}

// headName returns the process name stackcollapse-perf.pl takes from the
// start of a sample's line, head: what its pattern
// ^(\S.+?)\s+(\d+)/*(\d+)*\s+ captures as Go's regexp reads it. That is
// the shortest run of at least two characters (UTF-8 runes) from a
// non-blank one, without a line break, that blanks, a number (pid, or
// pid/tid) and a blank follow; blanks are tab, line feed, form feed,
// carriage return and space.
func headName(head []byte) (string, bool) {
	if len(head) == 0 || isBlank(head[0]) {
		return "", false
	}
	_, p := utf8.DecodeRune(head)
	for p < len(head) {
		r, n := utf8.DecodeRune(head[p:])
		if r == '\n' {
			return "", false
		}
		p += n
		if numberFollows(head[p:]) {
			return string(head[:p]), true
		}
	}
	return "", false
}

// numberFollows reports whether s starts with blanks, digits, slashes,
// digits (the last two optional) and a blank.
func numberFollows(s []byte) bool {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	j := i
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	if i == 0 || j == i {
		return false
	}
	for j < len(s) && s[j] == '/' {
		j++
	}
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	return j < len(s) && isBlank(s[j])
}

// isBlank is \s of Go's regexp.
func isBlank(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// foldedName caches the folded name of the frames at one address (key);
// sym, dso, inlined and java are what the name was computed from (a
// mapping can change, and an inline frame shares its caller's address,
// so they are checked on every use). The cache is
// direct-mapped: an entry is replaced by the next key that hashes to it.
type foldedName struct {
	key      uint64
	sym, dso string
	inlined  bool
	java     bool
	set      bool
	name     string
}

// appendFrame appends ";func" for one frame, as stackcollapse-perf.pl
// turns the line "ip sym+off (dso)" into a function name. Names are
// cached by address: a recording has few distinct frames and many
// samples.
func (c *Collapsed) appendFrame(st []byte, fr *symbolize.Frame, ev *symbolize.Event, java bool) []byte {
	if fr.Cookie && showsCookie(ev.Sample) {
		return st // "(cookie)": skipped like a process name
	}
	if c.opts.Addrs && fr.Symbol == "" {
		return c.foldFrame(st, fr, java) // the name holds the map address
	}
	// Keyed by address alone: processes share libraries and the kernel,
	// and the name depends only on what the entry checks.
	k := fr.Addr
	if c.names == nil {
		c.names = new([1 << foldedBits]foldedName)
	}
	f := &c.names[(k*0x9e3779b97f4a7c15)>>(64-foldedBits)]
	if f.set && f.key == k && f.sym == fr.Symbol && f.dso == fr.DSO && f.inlined == fr.Inlined && f.java == java {
		return append(st, f.name...)
	}
	n := len(st)
	st = c.foldFrame(st, fr, java)
	*f = foldedName{key: k, sym: fr.Symbol, dso: fr.DSO, inlined: fr.Inlined, java: java, set: true, name: string(st[n:])}
	return st
}

// foldFrame computes what appendFrame appends.
func (c *Collapsed) foldFrame(st []byte, fr *symbolize.Frame, java bool) []byte {
	raw := fr.Symbol
	switch {
	case raw == "":
		raw = "[unknown]"
	case raw[0] == '(':
		return st // stackcollapse-perf.pl skips "(...)" names
	}
	mod := fr.DSO
	switch {
	case fr.Inlined:
		// perf script prints "name+0xOFF (inlined)", and the script's
		// frame regex takes the last parenthesised text as the module:
		// so no "_[k]" or "_[j]" for inline frames.
		mod = "inlined"
	case mod == "":
		mod = "[unknown]"
	}
	pieces := strings.Split(raw, "->")
	for len(pieces) > 0 && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1] // Perl's split drops trailing empty fields
	}
	for i, piece := range pieces {
		f := piece
		if f == "[unknown]" {
			if mod != "[unknown]" {
				f = mod
				if j := strings.LastIndexByte(f, '/'); j >= 0 {
					f = f[j+1:]
				}
			} else {
				f = "unknown"
			}
			if c.opts.Addrs {
				addr := fr.MapAddr
				if c.opts.Compat.AbsoluteCallchainAddrs {
					addr = fr.Addr
				}
				f = "[" + f + " <" + strconv.FormatUint(addr, 16) + ">]"
			} else {
				f = "[" + f + "]"
			}
		}
		f = tidyGeneric(f)
		if java && strings.Contains(f, "/") {
			f = strings.TrimPrefix(f, "L")
		}
		switch {
		case i > 0:
			if !strings.Contains(f, "_[i]") {
				f += "_[i]"
			}
		case c.opts.Kernel && (strings.HasPrefix(mod, "[") || strings.HasSuffix(mod, "vmlinux")) && !strings.Contains(mod, "unknown"):
			f += "_[k]"
		case c.opts.JIT && isPerfMap(mod):
			if !strings.Contains(f, "_[j]") {
				f += "_[j]"
			}
		}
		st = append(st, ';')
		st = append(st, f...)
	}
	return st
}

// tidyGeneric is stackcollapse-perf.pl's $tidy_generic step.
func tidyGeneric(f string) string {
	f = strings.ReplaceAll(f, ";", ":")
	goMethod := false
	if i := strings.Index(f, ".("); i >= 0 && strings.Contains(f[i+2:], ").") {
		goMethod = true
	}
	if !goMethod {
		for i := 0; i < len(f); i++ {
			if f[i] == '(' && !strings.HasPrefix(f[i+1:], "anonymous namespace)") {
				f = f[:i]
				break
			}
		}
	}
	if strings.ContainsAny(f, `"'`) {
		f = strings.NewReplacer(`"`, "", `'`, "").Replace(f)
	}
	return f
}

// isPerfMap matches m:/tmp/perf-\d+\.map:.
func isPerfMap(mod string) bool {
	for {
		i := strings.Index(mod, "/tmp/perf-")
		if i < 0 {
			return false
		}
		rest := mod[i+len("/tmp/perf-"):]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n > 0 && strings.HasPrefix(rest[n:], ".map") {
			return true
		}
		mod = mod[i+1:]
	}
}

// sortedStacks returns the folded stacks, sorted bytewise as Perl's sort
// does.
func (c *Collapsed) sortedStacks() []string {
	keys := make([]string, 0, len(c.counts))
	for k := range c.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Flush writes the folded stacks, sorted bytewise as Perl's sort does.
func (c *Collapsed) Flush() error {
	var b []byte
	for _, k := range c.sortedStacks() {
		b = append(b[:0], k...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, *c.counts[k], 10)
		b = append(b, '\n')
		if _, err := c.w.Write(b); err != nil {
			return err
		}
	}
	return c.w.Flush()
}
