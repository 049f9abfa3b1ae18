package encode

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// unhex decodes hex digits, ignoring spaces and newlines.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordLayouts checks encoded records against layouts computed by hand
// from perf-format.md (independently of the decoder).
func TestRecordLayouts(t *testing.T) {
	// One event as in the deferred-callchain cover letter: sample_type
	// IP|TID|TIME|CALLCHAIN|PERIOD, sample_id_all.
	fp := &decode.EventAttr{Size: 136, SampleType: 0x127, Flags: decode.AttrSampleIDAll}
	tidTime := &decode.EventAttr{Size: 64, SampleType: decode.SampleTID | decode.SampleTime, Flags: decode.AttrSampleIDAll}
	tests := []struct {
		name  string
		order binary.ByteOrder
		rec   decode.Record
		attr  *decode.EventAttr
		want  string
	}{
		{
			name:  "sample LE (t1.data example, 72 bytes)",
			order: binary.LittleEndian,
			rec: &decode.Sample{RecordCommon: decode.RecordCommon{Misc: 2, PID: 6431, TID: 6431, Time: 277240019526},
				IP: 0x7fe3899f462a, Period: 250000, Callchain: []uint64{decode.ContextUser, 0x7fe3899f462a, 0}},
			attr: fp,
			want: `09000000 0200 4800
				2a469f89e37f0000  1f1900001f190000  46faca8c40000000  90d0030000000000
				0300000000000000  00feffffffffffff  2a469f89e37f0000  0000000000000000`,
		},
		{
			name:  "CALLCHAIN_DEFERRED cookie ABI LE (cover letter: size 64, cookie 0xb00000006)",
			order: binary.LittleEndian,
			rec: &decode.CallchainDeferred{RecordCommon: decode.RecordCommon{Misc: 2, PID: 2312, TID: 2312, Time: 0x0102030405060708},
				ABI: decode.DeferredCookie, Cookie: 0xb00000006, IPs: []uint64{0x7f18fe337fa7, 0x7f18fe330e0f, 0x7f18fe331448}},
			attr: fp,
			want: `16000000 0200 4000
				060000000b000000  0300000000000000
				a77f33fe187f0000  0f0e33fe187f0000  481433fe187f0000
				0809000008090000  0807060504030201`,
		},
		{
			name:  "CALLCHAIN_DEFERRED seed ABI BE ({nr, PERF_CONTEXT_USER, ips}, trailer pid/tid as u32 fields)",
			order: binary.BigEndian,
			rec: &decode.CallchainDeferred{RecordCommon: decode.RecordCommon{Misc: 2, PID: 10, TID: 12, Time: 0x0102030405060708},
				ABI: decode.DeferredSeed, IPs: []uint64{0x401040}},
			attr: tidTime,
			want: `00000016 0002 0030
				0000000000000002  fffffffffffffe00  0000000000401040
				0000000a0000000c  0102030405060708`,
		},
		{
			name:  "MMAP2 LE, filename padded to 8, trailer",
			order: binary.LittleEndian,
			rec: &decode.Mmap{RecordCommon: decode.RecordCommon{Misc: 2, PID: 1, TID: 2, Time: 3, TrailerPID: 4, TrailerTID: 5},
				V2: true, Addr: 0x401000, Len: 0x1000, Pgoff: 0x1000, Maj: 254, Min: 1, Ino: 9, InoGeneration: 10,
				Prot: 5, Flags: 2, Filename: "/bin/a"},
			attr: tidTime,
			want: `0a000000 0200 6000
				0100000002000000  0010400000000000  0010000000000000  0010000000000000
				fe00000001000000  0900000000000000  0a00000000000000  0500000002000000
				2f62696e2f610000
				0400000005000000  0300000000000000`,
		},
		{
			name:  "COMPRESSED2 BE: data_size, payload, zero padding",
			order: binary.BigEndian,
			rec:   &decode.Compressed{V2: true, Data: []byte{0x28, 0xb5, 0x2f, 0xfd, 1}},
			want:  `00000053 0000 0018  0000000000000005  28b52ffd01000000`,
		},
		{
			name:  "COMPRESSED LE: unpadded",
			order: binary.LittleEndian,
			rec:   &decode.Compressed{Data: []byte{0x28, 0xb5, 0x2f, 0xfd, 1}},
			want:  `51000000 0000 0d00  28b52ffd01`,
		},
		{
			name:  "HEADER_BUILD_ID LE with size byte, filename padded to 64",
			order: binary.LittleEndian,
			rec: &decode.HeaderBuildID{RecordCommon: decode.RecordCommon{Misc: 0x8002}, BuildPID: -1,
				BuildID: []byte{1, 2, 3, 4}, Filename: "x"},
			want: `43000000 0280 6400  ffffffff  01020304 00000000000000000000000000000000  04000000
				78` + strings.Repeat("00", 63),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendRecord(nil, tt.order, tt.rec, tt.attr)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, tt.want); !bytes.Equal(got, want) {
				t.Errorf("AppendRecord =\n%s\nwant\n%s", hex.Dump(got), hex.Dump(want))
			}
		})
	}
}

// TestAttrLayout checks perf_event_attr in both byte orders: the size
// versions, and the flags word of a big-endian writer (bitfields from the
// most significant bit, multi-bit precise_ip keeping its bit order).
func TestAttrLayout(t *testing.T) {
	a := &decode.EventAttr{Type: 1, Size: 72, Config: 2, SamplePeriod: 4000, SampleType: 0x127, ReadFormat: 0x14,
		Flags:   decode.AttrDisabled | decode.AttrFreq | 2<<15 | decode.AttrSampleIDAll | decode.AttrDeferOutput,
		Config1: 0x11, Config2: 0x22, BranchSampleType: 0x33}
	le := AppendAttr(nil, binary.LittleEndian, a)
	wantLE := unhex(t, `01000000 48000000 0200000000000000 a00f000000000000 2701000000000000 1400000000000000
		01040500 80000000 00000000 00000000 1100000000000000 2200000000000000`)
	if !bytes.Equal(le, wantLE) {
		t.Errorf("LE attr =\n%s\nwant\n%s", hex.Dump(le), hex.Dump(wantLE))
	}
	be := AppendAttr(nil, binary.BigEndian, a)
	wantBE := unhex(t, `00000001 00000048 0000000000000002 0000000000000fa0 0000000000000127 0000000000000014
		80212000 01000000 00000000 00000000 0000000000000011 0000000000000022`)
	if !bytes.Equal(be, wantBE) {
		t.Errorf("BE attr =\n%s\nwant\n%s", hex.Dump(be), hex.Dump(wantBE))
	}
	for _, tt := range []struct {
		size uint32
		want int
	}{{0, 64}, {64, 64}, {104, 104}, {128, 128}, {136, 136}, {144, 144}, {160, 160}} {
		b := AppendAttr(nil, binary.LittleEndian, &decode.EventAttr{Size: tt.size, Config4: 0xff})
		if len(b) != tt.want {
			t.Errorf("size %d: %d bytes, want %d", tt.size, len(b), tt.want)
		}
		if got := binary.LittleEndian.Uint32(b[4:]); got != tt.size {
			t.Errorf("size %d: size field %d", tt.size, got)
		}
		if tt.want >= 144 && b[136] != 0xff {
			t.Errorf("size %d: config4 not at offset 136", tt.size)
		}
	}
}

// TestBranchFlagsBE: a big-endian perf_branch_entry keeps each bitfield's
// value, mirrored at the top of the word.
func TestBranchFlagsBE(t *testing.T) {
	// mispred (bit 0), cycles 0x1234 (bits 4-19), type 5 (bits 20-23)
	le := uint64(1 | 0x1234<<4 | 5<<20)
	want := uint64(1<<63 | 0x1234<<(64-4-16) | 5<<(64-20-4))
	if got := branchFlagsWord(le, binary.BigEndian); got != want {
		t.Errorf("branchFlagsWord = %#x, want %#x", got, want)
	}
}

// TestFileLayout checks the header, id arrays and attrs of a file with one
// VER7 attr and no records, and the pipe header.
func TestFileLayout(t *testing.T) {
	a := &decode.EventAttr{Type: 1, Size: 128, IDs: []uint64{72, 73}, Name: "cpu-clock"}
	img := encodeFile(t, Options{Attrs: []*decode.EventAttr{a}, Meta: &decode.Meta{Features: []decode.Feature{decode.FeatureEventDesc}}}, nil)
	le := binary.LittleEndian
	if string(img[:8]) != "PERFILE2" {
		t.Errorf("magic %q", img[:8])
	}
	want := []uint64{104, 144, 120, 144, 264, 0, 0, 0, 1 << decode.FeatureEventDesc, 0, 0, 0}
	for i, w := range want {
		if got := le.Uint64(img[8+8*i:]); got != w {
			t.Errorf("header word %d = %d, want %d", i+1, got, w)
		}
	}
	if le.Uint64(img[104:]) != 72 || le.Uint64(img[112:]) != 73 {
		t.Errorf("ids at 104: % x", img[104:120])
	}
	if got := le.Uint64(img[120+128:]); got != 104 {
		t.Errorf("ids section offset %d, want 104", got)
	}
	if got := le.Uint64(img[120+136:]); got != 16 {
		t.Errorf("ids section size %d, want 16", got)
	}
	// feature table at data end (264): one section, EVENT_DESC, right after.
	if off, size := le.Uint64(img[264:]), le.Uint64(img[272:]); off != 280 || int(off+size) != len(img) {
		t.Errorf("EVENT_DESC section {%d, %d}, file %d bytes", off, size, len(img))
	}

	be := encodeFile(t, Options{Pipe: true, ByteOrder: binary.BigEndian}, nil)
	wantPipe := unhex(t, `3245 4c49 4652 4550 0000000000000010  00000050 0000 0010 0000000000000020`)
	if !bytes.Equal(be, wantPipe) {
		t.Errorf("empty BE pipe =\n%s\nwant\n%s", hex.Dump(be), hex.Dump(wantPipe))
	}
}
