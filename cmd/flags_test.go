package cmd

import (
	"slices"
	"testing"
)

func TestTimeRanges(t *testing.T) {
	const first, last = 100e9, 200e9
	tests := []struct {
		in      string
		want    []TimeRange
		wantErr bool
	}{
		{in: "1.5,2", want: []TimeRange{{Start: 1_500_000_000, End: 2_000_000_000}}},
		{in: ",2274.398389", want: []TimeRange{{Start: 0, End: 2274_398_389_000}}},
		{in: "2274.000000001,", want: []TimeRange{{Start: 2274_000_000_001, End: 0}}},
		{in: "10%/2", want: []TimeRange{{Start: 110e9, End: 120e9}}},
		{in: "0%-10%,50%-100%", want: []TimeRange{{Start: 100e9, End: 110e9}, {Start: 150e9, End: 200e9}}},
		{in: "12", wantErr: true},
		{in: "2,1", wantErr: true},
		{in: "1.0123456789,", wantErr: true},
		{in: "x,", wantErr: true},
		{in: "10%/11", wantErr: true},
		{in: "20%-10%", wantErr: true},
		{in: "10%", wantErr: true},
	}
	for _, tt := range tests {
		var tr TimeRanges
		err := tr.Set(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Set(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		f := (&Filter{Time: tr}).session()
		got, err := f.TimeRanges(first, last)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q resolves to %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	var tr TimeRanges
	_ = tr.Set("10%/1")
	f := (&Filter{Time: tr}).session()
	if _, err := f.TimeRanges(0, 0); err == nil {
		t.Error("percent range without a sample time range: no error")
	}
}

func TestCPUList(t *testing.T) {
	var l CPUList
	if err := l.Set("0,2-4,7"); err != nil {
		t.Fatal(err)
	}
	if want := (CPUList{0, 2, 3, 4, 7}); !slices.Equal(l, want) {
		t.Errorf("got %v, want %v", l, want)
	}
	if !l.Has(3) || l.Has(5) || !(CPUList{}).Has(5) {
		t.Error("Has is wrong")
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "0-99999999"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("Set(%q): no error", bad)
		}
	}
}
