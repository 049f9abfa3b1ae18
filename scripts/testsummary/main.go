// Command testsummary reads `go test -json` on standard input and prints
// what plain `go test` would (each package's ok, FAIL or no-test-files
// line, and the output of failed tests), then which tests skipped and
// why, grouped by reason, and a closing count:
//
//	tests: 812 passed, 0 failed, 34 skipped
//
// It exits 1 when a test or package failed, 0 otherwise. .ci/run pipes
// the README's `go test ./...` (with -json added through GOFLAGS) into it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Output     string
}

// summary is what the events add up to.
type summary struct {
	passed, failed, skipped int
	// skips maps a reason to the tests (package.Test) that skipped for it.
	skips map[string][]string
	// output holds each running test's output lines, until it ends.
	output map[string][]string
	fail   bool
}

func main() {
	s := &summary{skips: map[string][]string{}, output: map[string][]string{}}
	if err := s.read(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(1)
	}
	s.write(os.Stdout)
	if s.fail {
		os.Exit(1)
	}
}

// read consumes the events of r, printing go test's plain output to w as
// it comes. Lines that are not JSON pass through unchanged.
func (s *summary) read(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		s.add(e, w)
	}
	return sc.Err()
}

// add accounts for one event.
func (s *summary) add(e event, w io.Writer) {
	key := e.Package + "." + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(w, e.Output)
	case e.Action == "build-fail":
		s.fail = true
	case e.Test == "":
		// The package's own lines: ok, FAIL, [no test files], panics;
		// not the PASS line that only go test -v prints.
		if e.Action == "output" && e.Output != "PASS\n" {
			fmt.Fprint(w, e.Output)
		}
		if e.Action == "fail" {
			s.fail = true
		}
	case e.Action == "output":
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "pass":
		s.passed++
		delete(s.output, key)
	case e.Action == "fail":
		s.failed++
		s.fail = true
		// What plain go test prints for a failed test: its output
		// without the === lines of -v.
		for _, l := range s.output[key] {
			if !strings.HasPrefix(l, "=== ") {
				fmt.Fprint(w, l)
			}
		}
		delete(s.output, key)
	case e.Action == "skip":
		s.skipped++
		reason := generalize(skipReason(s.output[key]), e.Test)
		s.skips[reason] = append(s.skips[reason], strings.TrimPrefix(key, modulePrefix(e.Package)))
		delete(s.output, key)
	}
}

// modulePrefix is the part of a package path that the summary leaves out
// of test names: everything up to the module's last element.
func modulePrefix(pkg string) string {
	const module = "github.com/perfstitch/"
	if strings.HasPrefix(pkg, module) {
		return module
	}
	return ""
}

// logLineRE matches a t.Log or t.Skip line: "    file_test.go:12: text".
var logLineRE = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)

// skipReason is the message a skipped test gave, its last log line, or
// "no reason given".
func skipReason(lines []string) string {
	reason := ""
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		if m := logLineRE.FindStringSubmatch(l); m != nil {
			reason = m[1]
		}
	}
	if reason == "" {
		return "no reason given"
	}
	return reason
}

// generalize writes "*" for the last part of a subtest's name (test is
// "TestX/corpus/c-nopie") where its skip reason repeats it as a path
// element, so that subtests skipped for one reason ("open
// .../corpus/*/dump-head.txt: ...") count together.
func generalize(reason, test string) string {
	i := strings.LastIndex(test, "/")
	if i < 0 {
		return reason
	}
	return strings.ReplaceAll(reason, "/"+test[i+1:]+"/", "/*/")
}

// write prints the skip summary and the closing count.
func (s *summary) write(w io.Writer) {
	if s.skipped > 0 {
		reasons := make([]string, 0, len(s.skips))
		for r := range s.skips {
			reasons = append(reasons, r)
		}
		// Most common reason first, then alphabetically.
		sort.Slice(reasons, func(i, j int) bool {
			a, b := len(s.skips[reasons[i]]), len(s.skips[reasons[j]])
			if a != b {
				return a > b
			}
			return reasons[i] < reasons[j]
		})
		fmt.Fprintf(w, "\nskipped %d tests:\n", s.skipped)
		for _, r := range reasons {
			tests := s.skips[r]
			sort.Strings(tests)
			names := strings.Join(tests, ", ")
			if len(tests) > 3 {
				names = strings.Join(tests[:3], ", ") + fmt.Sprintf(", and %d more", len(tests)-3)
			}
			fmt.Fprintf(w, "%5d  %s\n       (%s)\n", len(tests), r, names)
		}
	}
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
}
