package report

import "testing"

func TestParseSortKeysPerfNames(t *testing.T) {
	tests := []struct {
		in      string
		want    []SortKey
		wantErr string
	}{
		{in: "symbol", want: []SortKey{SortSym}},
		{in: "sym,SRCL,co", want: []SortKey{SortSym, SortSrcline, SortComm}},
		{in: "s", want: []SortKey{SortSym}}, // symbol is perf's first key starting with s
		{in: "dso_s,symbol_size,p", want: []SortKey{SortDSOSize, SortSymSize, SortPID}},
		{in: "time,sample,period,cpu,parent,srcfile", want: []SortKey{SortTime, SortSample, SortPeriod, SortCPU, SortParent, SortSrcfile}},
		{in: "tid", wantErr: `unknown sort key "tid"`},
		{in: "weight", wantErr: `sort key "weight" (perf's weight) is not supported`},
		{in: ",", wantErr: "empty sort key list"},
	}
	for _, tt := range tests {
		got, err := ParseSortKeys(tt.in)
		if tt.wantErr != "" {
			if err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
				t.Errorf("ParseSortKeys(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("ParseSortKeys(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ParseSortKeys(%q) = %v, want %v", tt.in, got, tt.want)
				break
			}
		}
	}
}

func TestParseTimeQuantum(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		bad  bool
	}{
		{in: "100ms", want: 100_000_000},
		{in: "2s", want: 2_000_000_000},
		{in: "7us", want: 7_000},
		{in: "500", want: 500},
		{in: "500ns", want: 500},
		{in: "0ms", bad: true},
		{in: "ms", bad: true},
		{in: "5min", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseTimeQuantum(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseTimeQuantum(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestIPCColumn(t *testing.T) {
	for in, want := range map[string]bool{"symbol": true, "dso,symbol_size": true, "sym": false, "comm,dso,sym": false} {
		if got := IPCColumn(in); got != want {
			t.Errorf("IPCColumn(%q) = %v, want %v", in, got, want)
		}
	}
}
