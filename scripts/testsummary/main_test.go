package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSummary: go test's plain lines pass through, a failed test's output
// is printed, skips are grouped by reason, and the closing count is
// right.
func TestSummary(t *testing.T) {
	const p = `"Package":"github.com/perfstitch/perfstitch/cmd"`
	in := strings.Join([]string{
		`{"Action":"run",` + p + `,"Test":"TestA"}`,
		`{"Action":"output",` + p + `,"Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass",` + p + `,"Test":"TestA"}`,
		`{"Action":"output",` + p + `,"Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output",` + p + `,"Test":"TestB","Output":"    b_test.go:9: corpus absent\n"}`,
		`{"Action":"output",` + p + `,"Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip",` + p + `,"Test":"TestB"}`,
		`{"Action":"output",` + p + `,"Test":"TestC","Output":"    c_test.go:3: corpus absent\n"}`,
		`{"Action":"skip",` + p + `,"Test":"TestC"}`,
		`{"Action":"skip",` + p + `,"Test":"TestD"}`,
		`{"Action":"output",` + p + `,"Test":"TestE","Output":"=== RUN   TestE\n"}`,
		`{"Action":"output",` + p + `,"Test":"TestE","Output":"    e_test.go:1: boom\n"}`,
		`{"Action":"output",` + p + `,"Test":"TestE","Output":"--- FAIL: TestE (0.00s)\n"}`,
		`{"Action":"fail",` + p + `,"Test":"TestE"}`,
		`{"Action":"output",` + p + `,"Output":"FAIL\tgithub.com/perfstitch/perfstitch/cmd\t0.1s\n"}`,
		`{"Action":"fail",` + p + `}`,
		`not json`,
	}, "\n")
	s := &summary{skips: map[string][]string{}, output: map[string][]string{}}
	var out bytes.Buffer
	if err := s.read(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	s.write(&out)
	want := "    e_test.go:1: boom\n--- FAIL: TestE (0.00s)\n" +
		"FAIL\tgithub.com/perfstitch/perfstitch/cmd\t0.1s\n" +
		"not json\n" +
		"\nskipped 3 tests:\n" +
		"    2  corpus absent\n       (perfstitch/cmd.TestB, perfstitch/cmd.TestC)\n" +
		"    1  no reason given\n       (perfstitch/cmd.TestD)\n" +
		"\ntests: 1 passed, 1 failed, 3 skipped\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if !s.fail {
		t.Error("a failed test did not make the summary fail")
	}
}

func TestAllPass(t *testing.T) {
	s := &summary{skips: map[string][]string{}, output: map[string][]string{}}
	var out bytes.Buffer
	in := `{"Action":"pass","Package":"x","Test":"T"}` + "\n" + `{"Action":"output","Package":"x","Output":"PASS\n"}` + "\n" +
		`{"Action":"output","Package":"x","Output":"ok  \tx\t0.1s\n"}`
	if err := s.read(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	s.write(&out)
	if s.fail || out.String() != "ok  \tx\t0.1s\n\ntests: 1 passed, 0 failed, 0 skipped\n" {
		t.Errorf("fail %v, output %q", s.fail, out.String())
	}
}

func TestGeneralize(t *testing.T) {
	tests := []struct{ reason, test, want string }{
		{"open /s/corpus/c-nopie/dump.txt: no such file", "TestDump/corpus/c-nopie", "open /s/corpus/*/dump.txt: no such file"},
		{"open /s/corpus/c-nopie/dump.txt: no such file", "TestDump", "open /s/corpus/c-nopie/dump.txt: no such file"},
		{"no samples in the dump", "TestDump/external/armv7", "no samples in the dump"},
	}
	for _, tt := range tests {
		if got := generalize(tt.reason, tt.test); got != tt.want {
			t.Errorf("generalize(%q, %q) = %q, want %q", tt.reason, tt.test, got, tt.want)
		}
	}
}
