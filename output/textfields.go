package output

import (
	"strconv"
	"time"

	"github.com/perfstitch/perfstitch/decode"
)

// This file formats the sample fields of perf script -F that come from
// sample_type bits other than the IP and callchain: flags, data_src,
// weight, ins_lat, retire_lat, cgroup (after the event name and addr),
// phys_addr, data_page_size, code_page_size (after the IP or callchain),
// and tod (before the time), in process_event's order
// (tools/perf/builtin-script.c).

// headerExtraFields are printed after the addr field.
const headerExtraFields = FieldDataSrc | FieldWeight | FieldInsLat | FieldRetireLat | FieldCgroup

// trailerFields are printed after the IP or the callchain.
const trailerFields = FieldPhysAddr | FieldDataPageSize | FieldCodePageSize

// CgroupNames maps cgroup ids to the paths PERF_RECORD_CGROUP records
// gave them, as perf keeps them for -F cgroup (cgroup__findnew: the first
// record of an id names it). The zero value is empty and ready to use.
type CgroupNames struct{ names map[uint64]string }

// Add records the path of r's cgroup unless the id is named already.
func (c *CgroupNames) Add(r *decode.Cgroup) {
	if c.names == nil {
		c.names = map[uint64]string{}
	}
	if _, ok := c.names[r.CgroupID]; !ok {
		c.names[r.CgroupID] = r.Path
	}
}

// Name returns the path of cgroup id, or "unknown" as perf prints it.
func (c *CgroupNames) Name(id uint64) string {
	if c != nil {
		if n, ok := c.names[id]; ok {
			return n
		}
	}
	return "unknown"
}

// appendFlags appends perf_sample__fprintf_flags for a sample without
// branch flags: two spaces, the empty flag string padded to 21, a space.
func appendFlags(b []byte) []byte {
	return append(b, "                        "...)
}

// appendHeaderExtra appends data_src, weight, ins_lat, retire_lat and
// cgroup as the fields ask.
func (t *Text) appendHeaderExtra(b []byte, fields Field, s *decode.Sample) []byte {
	if fields&FieldDataSrc != 0 {
		b = t.appendDataSrc(b, s.DataSrc)
	}
	weight, insLat, retireLat := s.Weight, uint64(0), uint64(0)
	if s.Format&decode.SampleWeightStruct != 0 && s.Format&decode.SampleWeight == 0 {
		// union perf_sample_weight: var1_dw, var2_w, var3_w.
		weight, insLat, retireLat = s.Weight&0xffffffff, s.Weight>>32&0xffff, s.Weight>>48
	}
	if fields&FieldWeight != 0 {
		b = appendUintPad(b, weight, 16)
	}
	if fields&FieldInsLat != 0 {
		b = appendUintPad(b, insLat, 16)
	}
	if fields&FieldRetireLat != 0 {
		b = appendUintPad(b, retireLat, 16)
	}
	if fields&FieldCgroup != 0 {
		b = append(b, ' ')
		b = append(b, t.opts.Cgroups.Name(s.Cgroup)...)
	}
	return b
}

// appendTrailer appends phys_addr and the page sizes as the fields ask.
func appendTrailer(b []byte, fields Field, s *decode.Sample) []byte {
	if fields&FieldPhysAddr != 0 {
		b = appendHexPad(b, s.PhysAddr, 16)
	}
	if fields&FieldDataPageSize != 0 {
		b = appendPageSize(append(b, ' '), s.DataPageSize)
	}
	if fields&FieldCodePageSize != 0 {
		b = appendPageSize(append(b, ' '), s.CodePageSize)
	}
	return b
}

// appendPageSize appends get_page_size_name: N/A for 0, else
// unit_number__scnprintf's number and unit (divided by 1024 while the
// quotient is above 1, at most to G: 1024 stays "1024B").
func appendPageSize(b []byte, n uint64) []byte {
	if n == 0 {
		return append(b, "N/A"...)
	}
	const units = "BKMG"
	i := 0
	for n/1024 > 1 && i < 3 {
		n /= 1024
		i++
	}
	b = strconv.AppendUint(b, n, 10)
	return append(b, units[i])
}

// appendTod appends tod_scnprintf and a space: the sample time moved onto
// the wall clock with CLOCK_DATA, in the local time zone, with
// microseconds (nanoseconds with --ns).
func (t *Text) appendTod(b []byte, tm uint64) []byte {
	cd := t.opts.ClockData
	if cd == nil {
		return append(b, "disabled "...)
	}
	tod := cd.WallClockNS + (tm - cd.ClockIDTimeNS) // modulo 2^64, as perf's u64
	sec, nsec := tod/1e9, tod%1e9
	loc := t.opts.Location
	if loc == nil {
		loc = time.Local
	}
	b = time.Unix(int64(sec), 0).In(loc).AppendFormat(b, "2006-01-02 15:04:05")
	b = append(b, '.')
	if t.opts.NS {
		b = appendZeroPad(b, nsec, 9)
	} else {
		b = appendZeroPad(b, nsec/1000, 6)
	}
	return append(b, ' ')
}

// appendDataSrc appends data_src__fprintf: the value in hex (%16lx), a
// space and its decoding, cut to 99 bytes (perf's char out[100]) and
// padded to the longest such text printed so far.
func (t *Text) appendDataSrc(b []byte, v uint64) []byte {
	n := len(b)
	b = appendHexPad(b, v, 16)
	b = append(b, ' ')
	b = appendMemInfo(b, v, t.opts.Compat.DataSrcLevelNum)
	if len(b)-n > 99 {
		b = b[:n+99]
	}
	w := len(b) - n
	t.dataSrcWidth = max(t.dataSrcWidth, w)
	for range t.dataSrcWidth - w {
		b = append(b, ' ')
	}
	return b
}
