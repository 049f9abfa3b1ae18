package output

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// JSONOptions change the JSON Lines output.
type JSONOptions struct {
	// HideCallchain leaves out "frames" (-G).
	HideCallchain bool
	// MaxStack caps the number of frames; 0 means [symbolize.DefaultMaxStack].
	MaxStack int
}

// JSON writes one JSON object per line for every sample and side-band
// record (docs/json.md; schema in docs/json.schema.json). Addresses are
// hex strings ("0x…"), since JSON numbers above 2^53 lose precision in
// most readers. It is a [RecordSink].
type JSON struct {
	w     *asyncWriter
	opts  JSONOptions
	attrs func() []*decode.EventAttr
	buf   []byte
}

// NewJSON returns a JSON Lines writer on w; attrs returns the recording's
// events (used for records without a known event).
func NewJSON(w io.Writer, attrs func() []*decode.EventAttr, opts JSONOptions) *JSON {
	if opts.MaxStack <= 0 {
		opts.MaxStack = symbolize.DefaultMaxStack
	}
	return &JSON{w: newAsyncWriter(w, bufferSize), opts: opts, attrs: attrs, buf: make([]byte, 0, 4096)}
}

var abiNames = [...]string{decode.DeferredNone: "none", decode.DeferredSeed: "seed", decode.DeferredCookie: "cookie"}

// Add writes one sample object.
func (j *JSON) Add(ev *symbolize.Event) error {
	s := ev.Sample.Sample
	b := append(j.buf[:0], `{"type":"sample"`...)
	b = j.appendEvent(b, s.Attr)
	b = append(b, `,"comm":`...)
	b = appendJSONString(b, commOf(ev.Comm, s.TID))
	b = appendCommon(b, &s.RecordCommon, s.PID, s.TID)
	if s.Format&decode.SamplePeriod != 0 {
		b = append(b, `,"period":`...)
		b = strconv.AppendUint(b, s.Period, 10)
	}
	if s.Format&decode.SampleIP != 0 {
		b = append(b, `,"ip":`...)
		b = appendJSONHex(b, s.IP)
	}
	if s.Format&decode.SampleAddr != 0 {
		b = append(b, `,"addr":`...)
		b = appendJSONHex(b, s.Addr)
	}
	b = append(b, `,"stitch":`...)
	b = appendJSONString(b, ev.Sample.State.String())
	if ev.Sample.ABI != decode.DeferredNone && int(ev.Sample.ABI) < len(abiNames) {
		b = append(b, `,"abi":`...)
		b = appendJSONString(b, abiNames[ev.Sample.ABI])
		if ev.Sample.ABI == decode.DeferredCookie {
			b = append(b, `,"cookie":`...)
			b = appendJSONHex(b, ev.Sample.Cookie)
		}
	}
	b = append(b, `,"sym":`...)
	b = appendFrame(b, &ev.IP)
	if !j.opts.HideCallchain && s.Format&decode.SampleCallchain != 0 {
		b = j.appendFrames(b, ev.Frames)
	}
	b = append(b, '}', '\n')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *JSON) appendEvent(b []byte, attr *decode.EventAttr) []byte {
	if attr == nil && j.attrs != nil {
		if as := j.attrs(); len(as) > 0 {
			attr = as[0]
		}
	}
	if attr == nil {
		return b
	}
	b = append(b, `,"event":`...)
	return appendJSONString(b, attr.Name)
}

func (j *JSON) appendFrames(b []byte, frames []symbolize.Frame) []byte {
	if len(frames) > j.opts.MaxStack {
		frames = frames[:j.opts.MaxStack]
	}
	b = append(b, `,"frames":[`...)
	for i := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFrame(b, &frames[i])
	}
	return append(b, ']')
}

// appendCommon appends pid, tid, cpu and time_ns as the record has them.
func appendCommon(b []byte, c *decode.RecordCommon, pid, tid int32) []byte {
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	if c.Format&decode.SampleCPU != 0 {
		b = append(b, `,"cpu":`...)
		b = strconv.AppendUint(b, uint64(c.CPU), 10)
	}
	if c.Format&decode.SampleTime != 0 {
		b = append(b, `,"time_ns":`...)
		b = strconv.AppendUint(b, c.Time, 10)
	}
	return b
}

// appendFrame appends one frame object.
func appendFrame(b []byte, f *symbolize.Frame) []byte {
	b = append(b, `{"ip":`...)
	b = appendJSONHex(b, f.Addr)
	b = append(b, `,"map_addr":`...)
	b = appendJSONHex(b, f.MapAddr)
	if f.Symbol != "" {
		b = append(b, `,"symbol":`...)
		b = appendJSONString(b, f.Symbol)
		b = append(b, `,"offset":`...)
		b = strconv.AppendUint(b, f.Offset, 10)
	}
	dso := f.DSO
	if dso == "" {
		dso = "[unknown]"
	}
	b = append(b, `,"dso":`...)
	b = appendJSONString(b, dso)
	if f.BuildID != "" {
		b = append(b, `,"build_id":`...)
		b = appendJSONString(b, f.BuildID)
	}
	b = append(b, `,"kernel":`...)
	b = strconv.AppendBool(b, f.Kernel)
	b = append(b, `,"resolved":`...)
	b = strconv.AppendBool(b, f.Symbol != "")
	if f.Symbol == "" {
		b = append(b, `,"reason":`...)
		r := f.Reason
		if r == symbolize.Resolved {
			r = symbolize.NoSymbols
		}
		b = appendJSONString(b, r.Name())
	}
	if f.Cookie {
		b = append(b, `,"cookie":true`...)
	}
	if f.Inlined {
		b = append(b, `,"inlined":true`...)
	}
	return append(b, '}')
}

// AddRecord writes one side-band record object: mmap, comm, fork, exit,
// lost or deferred_callchain. Other records are ignored.
func (j *JSON) AddRecord(r *Record) error {
	c := r.Common()
	b := j.buf[:0]
	switch rr := r.Record.(type) {
	case *decode.Mmap:
		b = append(b, `{"type":"mmap"`...)
		b = appendCommon(b, c, rr.PID, rr.TID)
		b = append(b, `,"start":`...)
		b = appendJSONHex(b, rr.Addr)
		b = append(b, `,"len":`...)
		b = appendJSONHex(b, rr.Len)
		b = append(b, `,"pgoff":`...)
		b = appendJSONHex(b, rr.Pgoff)
		b = append(b, `,"executable":`...)
		b = strconv.AppendBool(b, rr.Executable())
		if len(rr.BuildID) > 0 {
			b = append(b, `,"build_id":"`...)
			for _, x := range rr.BuildID {
				b = appendHex02(b, uint32(x))
			}
			b = append(b, '"')
		}
		b = append(b, `,"filename":`...)
		b = appendJSONString(b, rr.Filename)
	case *decode.Comm:
		b = append(b, `{"type":"comm"`...)
		b = appendCommon(b, c, rr.PID, rr.TID)
		b = append(b, `,"comm":`...)
		b = appendJSONString(b, rr.Comm)
		b = append(b, `,"exec":`...)
		b = strconv.AppendBool(b, rr.Exec())
	case *decode.Fork:
		b = append(b, `{"type":"fork"`...)
		b = appendCommon(b, c, rr.PID, rr.TID)
		b = appendParent(b, rr.PPID, rr.PTID)
	case *decode.Exit:
		b = append(b, `{"type":"exit"`...)
		b = appendCommon(b, c, rr.PID, rr.TID)
		b = appendParent(b, rr.PPID, rr.PTID)
	case *decode.Lost:
		b = append(b, `{"type":"lost"`...)
		b = appendCommon(b, c, c.PID, c.TID)
		b = append(b, `,"lost":`...)
		b = strconv.AppendUint(b, rr.Lost, 10)
	case *decode.CallchainDeferred:
		b = append(b, `{"type":"deferred_callchain"`...)
		b = j.appendEvent(b, c.Attr)
		b = append(b, `,"comm":`...)
		b = appendJSONString(b, commOf(r.Comm, c.TID))
		b = appendCommon(b, c, c.PID, c.TID)
		if rr.ABI == decode.DeferredCookie {
			b = append(b, `,"cookie":`...)
			b = appendJSONHex(b, rr.Cookie)
		}
		if !j.opts.HideCallchain {
			b = j.appendFrames(b, r.Frames)
		}
	default:
		return nil
	}
	b = append(b, '}', '\n')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func appendParent(b []byte, ppid, ptid int32) []byte {
	b = append(b, `,"ppid":`...)
	b = strconv.AppendInt(b, int64(ppid), 10)
	b = append(b, `,"ptid":`...)
	return strconv.AppendInt(b, int64(ptid), 10)
}

// Flush writes what is buffered.
func (j *JSON) Flush() error { return j.w.Flush() }

// appendJSONHex appends v as a JSON string "0x…".
func appendJSONHex(b []byte, v uint64) []byte {
	b = append(b, '"', '0', 'x')
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaping as encoding/json
// does (invalid UTF-8 becomes U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
