package decode

import (
	"encoding/binary"
	"testing"
)

// TestFeaturesInfoShort: every proper prefix of a well-formed section of
// the -I features is reported as malformed (or parses to less), never
// panics, and the whole section parses to the expected values.
func TestFeaturesInfoShort(t *testing.T) {
	le := func(vs ...any) []byte {
		var b []byte
		for _, v := range vs {
			switch v := v.(type) {
			case uint32:
				b = binary.LittleEndian.AppendUint32(b, v)
			case uint64:
				b = binary.LittleEndian.AppendUint64(b, v)
			case string:
				n := (len(v) + 1 + 7) / 8 * 8
				b = binary.LittleEndian.AppendUint32(b, uint32(n))
				b = append(b, v...)
				b = append(b, make([]byte, n-len(v))...)
			}
		}
		return b
	}
	for _, c := range []struct {
		f     Feature
		b     []byte
		check func(m *Meta) bool
	}{
		{FeatureNUMATopology, le(uint32(1), uint32(0), uint64(100), uint64(50), "0-1"),
			func(m *Meta) bool {
				return len(m.NUMANodes) == 1 && m.NUMANodes[0].CPUs == "0-1" && m.NUMANodes[0].MemFree == 50
			}},
		{FeatureCache, le(uint32(1), uint32(1), uint32(1), uint32(64), uint32(512), uint32(2), "Data", "64K", "0"),
			func(m *Meta) bool { return len(m.Caches) == 1 && m.Caches[0].Size == "64K" && m.Caches[0].Ways == 2 }},
		{FeatureMemTopology, le(uint64(1), uint64(0x8000000), uint64(1), uint64(0), uint64(40), uint64(40), uint64(0xff00ffffff)),
			func(m *Meta) bool {
				return m.MemTopology != nil && len(m.MemTopology.Nodes) == 1 && m.MemTopology.Nodes[0].Set[0] == 0xff00ffffff
			}},
		{FeatureCPUPMUCaps, le(uint32(1), "max_precise", "0"),
			func(m *Meta) bool {
				return m.HasCPUPMUCaps && len(m.CPUPMUCaps) == 1 && m.CPUPMUCaps[0] == "max_precise=0"
			}},
		{FeaturePMUCaps, le(uint32(1), uint32(1), "a", "b", "ibs_op"),
			func(m *Meta) bool {
				return len(m.PMUCaps) == 1 && m.PMUCaps[0].PMU == "ibs_op" && m.PMUCaps[0].Caps[0] == "a=b"
			}},
		{FeatureHybridTopology, le(uint32(1), "cpu_core", "0-7"),
			func(m *Meta) bool { return len(m.HybridNodes) == 1 && m.HybridNodes[0].CPUs == "0-7" }},
		{FeatureEMachine, le(uint32(62), uint32(0)),
			func(m *Meta) bool { return m.EMachine != nil && m.EMachine.Machine == 62 }},
		{FeatureClnSize, le(uint32(64)),
			func(m *Meta) bool { return m.HasClnSize && m.CachelineSize == 64 }},
	} {
		var m Meta
		m.add(c.f, c.b, endian{}, 0)
		if len(m.Errors) != 0 || !c.check(&m) {
			t.Errorf("feature %d: parsed %+v, errors %v", c.f, m, m.Errors)
		}
		if m.Raw[c.f] == nil {
			t.Errorf("feature %d: not kept raw", c.f)
		}
		for n := 0; n < len(c.b); n++ {
			var m Meta
			m.add(c.f, c.b[:n], endian{}, 0)
			if len(m.Errors) == 0 && c.check(&m) {
				t.Errorf("feature %d: %d of %d bytes parse as the whole", c.f, n, len(c.b))
			}
		}
	}
	// CPU_DOMAIN_INFO needs the CPU count of NRCPUS.
	var m Meta
	m.NrCPUsAvail = 1
	m.add(FeatureCPUDomainInfo, le(uint32(17), uint32(1), uint32(0), uint32(1), uint32(0), "MC", "3", "0-1"), endian{}, 0)
	d := m.CPUDomainInfo
	if d == nil || len(d.CPUs) != 1 || len(d.CPUs[0].Domains) != 1 || d.CPUs[0].Domains[0].Name != "MC" || d.CPUs[0].Domains[0].CPUList != "0-1" {
		t.Errorf("CPU_DOMAIN_INFO: %+v", d)
	}
}
