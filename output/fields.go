package output

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
)

// Field is a perf script output field (perf script -F).
type Field uint32

// Output fields, named as perf script -F names them.
const (
	FieldComm    Field = 1 << iota // comm
	FieldTID                       // tid
	FieldPID                       // pid
	FieldTime                      // time
	FieldCPU                       // cpu
	FieldEvent                     // event
	FieldIP                        // ip (and the callchain)
	FieldSym                       // sym
	FieldSymOff                    // symoff
	FieldDSO                       // dso
	FieldAddr                      // addr
	FieldPeriod                    // period
	FieldSrcline                   // srcline (under the IP and each callchain entry)
	FieldMisc                      // misc (cpumode and record flags)
	// FieldTod is tod, the wall-clock time from the recording's
	// CLOCK_DATA (the script command fails with perf's message when the
	// recording has none).
	FieldTod
	FieldFlags        // flags (branch flags; blank for samples without any)
	FieldDataSrc      // data_src (PERF_SAMPLE_DATA_SRC, decoded)
	FieldWeight       // weight (PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT's var1_dw)
	FieldCallindent   // callindent (branch-trace call depth; nothing for other events)
	FieldPhysAddr     // phys_addr (PERF_SAMPLE_PHYS_ADDR)
	FieldDataPageSize // data_page_size (PERF_SAMPLE_DATA_PAGE_SIZE)
	FieldCodePageSize // code_page_size (PERF_SAMPLE_CODE_PAGE_SIZE)
	FieldInsLat       // ins_lat (WEIGHT_STRUCT's var2_w)
	FieldCgroup       // cgroup (PERF_SAMPLE_CGROUP, named by CGROUP records; perf 6.5 and later)
	FieldRetireLat    // retire_lat (WEIGHT_STRUCT's var3_w; perf 6.5 and later)
)

// FieldsSince61 are the fields perf 6.1 does not know ("Invalid field
// requested"): the script command refuses them in the 6.1 dialect.
const FieldsSince61 = FieldCgroup | FieldRetireLat

// fieldNames is perf's all_output_options order for the fields supported.
var fieldNames = []struct {
	name string
	f    Field
}{
	{"comm", FieldComm}, {"tid", FieldTID}, {"pid", FieldPID}, {"time", FieldTime},
	{"cpu", FieldCPU}, {"event", FieldEvent}, {"ip", FieldIP}, {"sym", FieldSym},
	{"dso", FieldDSO}, {"addr", FieldAddr}, {"symoff", FieldSymOff}, {"srcline", FieldSrcline},
	{"period", FieldPeriod}, {"flags", FieldFlags}, {"data_src", FieldDataSrc}, {"weight", FieldWeight},
	{"callindent", FieldCallindent}, {"phys_addr", FieldPhysAddr}, {"misc", FieldMisc}, {"tod", FieldTod},
	{"data_page_size", FieldDataPageSize}, {"code_page_size", FieldCodePageSize}, {"ins_lat", FieldInsLat},
	{"cgroup", FieldCgroup}, {"retire_lat", FieldRetireLat},
}

// FieldNames lists the field names -F accepts, for help and completion.
func FieldNames() []string {
	names := make([]string, len(fieldNames))
	for i, n := range fieldNames {
		names[i] = n.name
	}
	return names
}

// Names returns the names of the fields in f, in perf's order.
func (f Field) Names() []string {
	var names []string
	for _, n := range fieldNames {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return names
}

func (f Field) name() string {
	for _, n := range fieldNames {
		if n.f == f {
			return n.name
		}
	}
	return "?"
}

// FieldsMode says how a [Fields] value changes perf's default fields.
type FieldsMode uint8

// Fields modes.
const (
	FieldsDefault FieldsMode = iota // no -F: perf's defaults per event type
	FieldsSet                       // -F a,b,c: exactly these fields
	FieldsModify                    // -F +a,-b: the defaults plus and minus some
)

// Fields is the value of perf script's -F/--fields option. The zero value
// means perf's defaults. It implements pflag.Value.
type Fields struct {
	Mode   FieldsMode
	Only   Field // FieldsSet: the fields to print
	Add    Field // FieldsModify: fields added to the defaults
	Remove Field // FieldsModify: fields removed from the defaults
	// Typed limits the list to events of one type ("sw:comm,tid"); the
	// others keep perf's defaults.
	Typed     bool
	EventType decode.AttrType // the event type of a Typed list
	raw       string
}

// fieldTypes are perf script's -F event-type prefixes.
var fieldTypes = map[string]decode.AttrType{
	"hw": decode.AttrTypeHardware, "sw": decode.AttrTypeSoftware, "trace": decode.AttrTypeTracepoint,
	"raw": decode.AttrTypeRaw, "break": decode.AttrTypeBreakpoint,
}

// ParseFields parses a perf -F list: "comm,tid,ip" or "+period,-cpu".
// An event-type prefix ("sw:comm,tid") limits it to events of that type.
func ParseFields(s string) (Fields, error) {
	var fs Fields
	if err := fs.Set(s); err != nil {
		return Fields{}, err
	}
	return fs, nil
}

// Set parses s (see [ParseFields]).
func (fs *Fields) Set(s string) error {
	var out Fields
	out.raw = s
	if prefix, rest, ok := strings.Cut(s, ":"); ok {
		t, known := fieldTypes[prefix]
		switch {
		case prefix == "synth":
			return errors.New("event type prefix \"synth:\" in -F: perfstitch synthesizes no events (Intel PT and other AUX area traces are not decoded)")
		case !known:
			return fmt.Errorf("invalid event type %q in -F (known: hw, sw, trace, raw, break)", prefix)
		}
		out.Typed, out.EventType, s = true, t, rest
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("empty field list")
	}
	for _, tok := range strings.Split(s, ",") {
		mode := FieldsSet
		switch {
		case strings.HasPrefix(tok, "+"), strings.HasPrefix(tok, "-"):
			mode = FieldsModify
		}
		if out.Mode != FieldsDefault && out.Mode != mode {
			return errors.New("cannot mix +-field with overridden fields")
		}
		out.Mode = mode
		name := strings.TrimLeft(tok, "+-")
		var f Field
		for _, n := range fieldNames {
			if n.name == name {
				f = n.f
			}
		}
		if f == 0 {
			return fmt.Errorf("invalid field requested: %q (known: %s)", name, strings.Join(FieldNames(), ", "))
		}
		switch {
		case mode == FieldsSet:
			out.Only |= f
		case tok[0] == '+':
			out.Add |= f
			out.Remove &^= f
		default:
			out.Remove |= f
			out.Add &^= f
		}
	}
	*fs = out
	return nil
}

// Wants reports whether the list asks for field f for some event type
// (a set list naming it, or +f).
func (fs *Fields) Wants(f Field) bool { return fs.userSet()&f != 0 }

// Named returns the fields of f the list names explicitly (a set list, or
// +field and -field).
func (fs *Fields) Named(f Field) Field { return (fs.userSet() | fs.Remove) & f }

// String returns the list as given.
func (fs *Fields) String() string { return fs.raw }

// Type names the flag value type in help output.
func (fs *Fields) Type() string { return "fields" }

// userSet returns the fields the user named explicitly.
func (fs *Fields) userSet() Field {
	switch fs.Mode {
	case FieldsSet:
		return fs.Only
	case FieldsModify:
		return fs.Add
	}
	return 0
}

// defaultFields are perf's output[] defaults per event type; newer
// lists perf 7.3.4's raw-event retire_lat.
func defaultFields(t decode.AttrType, newer bool) Field {
	const common = FieldComm | FieldTID | FieldCPU | FieldTime | FieldEvent
	switch t {
	case decode.AttrTypeTracepoint:
		return common
	case decode.AttrTypeRaw:
		f := common | FieldIP | FieldSym | FieldSymOff | FieldDSO | FieldPeriod | FieldAddr |
			FieldDataSrc | FieldWeight | FieldPhysAddr | FieldDataPageSize | FieldCodePageSize | FieldInsLat
		if newer {
			f |= FieldRetireLat
		}
		return f
	}
	return common | FieldIP | FieldSym | FieldSymOff | FieldDSO | FieldPeriod
}

// resolveFields computes the fields printed for events of attr's type, the
// way perf_session__check_output_opt does for the first event of each
// type: fields the samples cannot provide are dropped when they are
// defaults and are an error when the user asked for them.
func resolveFields(fs *Fields, attr *decode.EventAttr, newer bool) (Field, error) {
	if fs.Typed && fs.EventType != attr.Type {
		fs = &Fields{}
	}
	fields := defaultFields(attr.Type, newer)
	switch fs.Mode {
	case FieldsSet:
		fields = fs.Only
	case FieldsModify:
		fields = (fields | fs.Add) &^ fs.Remove
	}
	user := fs.userSet()
	st := attr.SampleType
	check := func(need decode.SampleFormat, msg string, f Field) error {
		if fields&f == 0 || st&need != 0 {
			return nil
		}
		if user&f != 0 {
			return fmt.Errorf("samples for '%s' event do not have %s attribute set, cannot print '%s' field", attr.Name, msg, f.name())
		}
		fields &^= f
		return nil
	}
	if err := check(decode.SampleIP, "IP", FieldIP); err != nil {
		return 0, err
	}
	if err := check(decode.SampleAddr, "ADDR", FieldAddr); err != nil {
		return 0, err
	}
	if err := check(decode.SampleDataSrc, "DATA_SRC", FieldDataSrc); err != nil {
		return 0, err
	}
	if err := check(decode.SampleWeight|decode.SampleWeightStruct, "WEIGHT", FieldWeight); err != nil {
		return 0, err
	}
	if fields&FieldSym != 0 && fields&(FieldIP|FieldAddr) == 0 {
		return 0, errors.New("display of symbols requested but neither sample IP nor sample address is selected")
	}
	if fields&FieldSymOff != 0 && fields&FieldSym == 0 {
		return 0, errors.New("display of offsets requested but symbol is not selected")
	}
	if fields&FieldDSO != 0 && fields&(FieldIP|FieldAddr) == 0 {
		return 0, errors.New("display of DSO requested but no address to convert")
	}
	if fields&(FieldPID|FieldTID) != 0 && st&decode.SampleTID == 0 {
		if user&(FieldPID|FieldTID) != 0 {
			return 0, fmt.Errorf("samples for '%s' event do not have TID attribute set, cannot print 'tid' field", attr.Name)
		}
		fields &^= FieldPID | FieldTID
	}
	if err := check(decode.SampleTime, "TIME", FieldTime); err != nil {
		return 0, err
	}
	if err := check(decode.SampleCPU, "CPU", FieldCPU); err != nil {
		return 0, err
	}
	for _, c := range []struct {
		need decode.SampleFormat
		msg  string
		f    Field
	}{
		{decode.SamplePhysAddr, "PHYS_ADDR", FieldPhysAddr},
		{decode.SampleDataPageSize, "DATA_PAGE_SIZE", FieldDataPageSize},
		{decode.SampleCodePageSize, "CODE_PAGE_SIZE", FieldCodePageSize},
		{decode.SampleWeightStruct, "WEIGHT_STRUCT", FieldInsLat},
		{decode.SampleCgroup, "CGROUP", FieldCgroup},
		{decode.SampleWeightStruct, "WEIGHT_STRUCT", FieldRetireLat},
	} {
		if err := check(c.need, c.msg, c.f); err != nil {
			if c.f == FieldCgroup {
				err = fmt.Errorf("%w (hint: run 'perf record --all-cgroups ...')", err)
			}
			return 0, err
		}
	}
	// PERIOD is not checked: perf 6.1 prints attr.sample_period for
	// samples without PERF_SAMPLE_PERIOD, which decode puts in
	// Sample.Period.
	return fields, nil
}

// Equal reports whether fs and o select the same fields (the text they
// were parsed from does not matter). go-cmp uses it.
func (fs Fields) Equal(o Fields) bool {
	return fs.Mode == o.Mode && fs.Only == o.Only && fs.Add == o.Add && fs.Remove == o.Remove &&
		fs.Typed == o.Typed && fs.EventType == o.EventType
}
