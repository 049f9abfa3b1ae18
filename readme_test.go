package main_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/cmd"
	"github.com/perfstitch/perfstitch/internal/iostreams"
)

// Every ```sh block in README.md is preceded by a marker that says how
// this test checks it, so no command in the README can rot unnoticed:
//
//	<!-- readme-test: run -->          run every line (see runLine)
//	<!-- readme-test: run; a=b c=d --> the same, after linking a to b and c to d
//	<!-- readme-test: ci -->           each line is a line of .ci/run, which runs it
//	<!-- readme-test: install -->      go install of this module's main package
//	<!-- readme-test: record -->       run where perf is installed and can record
//
// Lines run in a fresh directory that links testdata to the repository's.
// perfstitch (or `go run .`) runs in-process through cmd.Run; every other
// stage of a pipeline runs through sh when its program is installed, and is
// left out (with a log line) when not.

// block is one fenced sh block of the README.
type block struct {
	line     int               // line number of the opening fence
	kind     string            // the marker's kind
	stage    map[string]string // names to link into the directory, to repository paths
	commands []string
}

var collapsedRE = regexp.MustCompile(`^\S.* [0-9]+$`)

var markerRE = regexp.MustCompile(`^<!-- readme-test: ([a-z]+)(?:; (.*?))? -->$`)

func parseReadme(t *testing.T, path string) []block {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		blocks  []block
		marker  []string // submatches of the last marker, until a block takes it
		markerN int
		cur     *block
		cont    string
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			switch {
			case strings.HasPrefix(line, "```"):
				if cont != "" {
					t.Errorf("%s:%d: block ends in a line continuation", path, n)
				}
				blocks = append(blocks, *cur)
				cur = nil
			case cont != "" || strings.HasSuffix(line, `\`):
				cont += strings.TrimSuffix(strings.TrimSpace(line), `\`) + " "
				if !strings.HasSuffix(line, `\`) {
					cur.commands = append(cur.commands, strings.Join(strings.Fields(cont), " "))
					cont = ""
				}
			default:
				if s := strings.TrimSpace(line); s != "" && !strings.HasPrefix(s, "#") {
					cur.commands = append(cur.commands, s)
				}
			}
			continue
		}
		if m := markerRE.FindStringSubmatch(line); m != nil {
			marker, markerN = m, n
			continue
		}
		if info, ok := strings.CutPrefix(line, "```"); ok {
			if info != "sh" {
				// Output, listings, anything that is not a command.
				if fence := skipFence(sc, &n); !fence {
					t.Fatalf("%s:%d: unterminated code block", path, n)
				}
				continue
			}
			if marker == nil {
				t.Errorf("%s:%d: sh block without a readme-test marker: say how it is checked", path, n)
				marker = []string{"", "unchecked", ""}
			}
			cur = &block{line: n, kind: marker[1], stage: map[string]string{}}
			for _, kv := range strings.Fields(marker[2]) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Errorf("%s:%d: marker stages %q, want name=path", path, markerN, kv)
				}
				cur.stage[k] = v
			}
			marker = nil
			continue
		}
		if marker != nil && strings.TrimSpace(line) != "" {
			t.Errorf("%s:%d: readme-test marker not followed by an sh block", path, markerN)
			marker = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	return blocks
}

// skipFence consumes lines up to and including the closing fence.
func skipFence(sc *bufio.Scanner, n *int) bool {
	for sc.Scan() {
		*n++
		if strings.HasPrefix(sc.Text(), "```") {
			return true
		}
	}
	return false
}

// TestReadmeCommands runs or checks every command of README.md.
func TestReadmeCommands(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseReadme(t, "README.md")
	kinds := map[string]int{}
	for _, b := range blocks {
		kinds[b.kind]++
		if len(b.commands) == 0 {
			t.Errorf("README.md:%d: empty sh block", b.line)
		}
	}
	// The two set-up commands must stay: a demo run and the test command.
	if kinds["run"] == 0 || kinds["ci"] == 0 {
		t.Errorf("README.md has %d run and %d ci blocks; want the demo run and the test command", kinds["run"], kinds["ci"])
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
			switch b.kind {
			case "ci":
				checkCI(t, root, b)
			case "install":
				checkInstall(t, root, b)
			case "run":
				runBlock(t, root, b)
			case "record":
				if _, err := exec.LookPath("perf"); err != nil {
					t.Skipf("perf is not installed: %v", err)
				}
				// perf before 6.19 accepts fp,defer and records ordinary
				// callchains, which perfstitch reads as well: the commands
				// still run, only nothing is deferred. A perf line that
				// fails (no permission, no perf events in a container)
				// skips the rest of the block.
				runBlock(t, root, b)
			default:
				t.Errorf("README.md:%d: unknown readme-test kind %q", b.line, b.kind)
			}
		})
	}
}

// checkCI checks that .ci/run runs each command of b verbatim.
func checkCI(t *testing.T, root string, b block) {
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(ci), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, c := range b.commands {
		if !lines[c] {
			t.Errorf("README.md:%d: .ci/run does not run %q as a line of its own", b.line, c)
		}
	}
}

// checkInstall checks `go install PATH@VERSION`: PATH must be this module,
// whose root package must be a command. (Running it would need the
// published module.)
func checkInstall(t *testing.T, root string, b block) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	main, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^package main$`).Match(main) {
		t.Error("main.go is not package main")
	}
	for _, c := range b.commands {
		f := strings.Fields(c)
		if len(f) != 3 || f[0] != "go" || f[1] != "install" {
			t.Errorf("README.md:%d: %q is not `go install PATH@VERSION`", b.line, c)
			continue
		}
		path, version, ok := strings.Cut(f[2], "@")
		if !ok || path != string(m[1]) || version == "" {
			t.Errorf("README.md:%d: %q does not install %s@VERSION", b.line, c, m[1])
		}
	}
}

// runBlock runs the commands of b, in order, in a new directory.
func runBlock(t *testing.T, root string, b block) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	for name, target := range b.stage {
		abs := filepath.Join(root, filepath.FromSlash(target))
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("README.md:%d: staged %s: %v", b.line, name, err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if b.kind == "record" {
		// The workload the recording example profiles.
		prog := "#!/bin/sh\ni=0\nwhile [ $i -lt 50000 ]; do i=$((i+1)); done\n"
		if err := os.WriteFile(filepath.Join(dir, "myprog"), []byte(prog), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, c := range b.commands {
		runLine(t, b.line, c)
	}
}

// runLine runs one command line, a pipeline of stages, in the current
// directory: perfstitch (or `go run .`) in-process, anything else through
// sh, each stage reading the previous one's output. A perfstitch stage may
// end in `> FILE`. When a stage's program is not installed, the stages from
// there on are not run (and logged); when a perf stage fails, the rest of
// the block is skipped (perf cannot record everywhere).
func runLine(t *testing.T, line int, c string) {
	var in []byte
	for _, stage := range strings.Split(c, " | ") {
		words, err := splitWords(stage)
		if err != nil || len(words) == 0 {
			t.Fatalf("README.md:%d: %q: bad stage %q: %v", line, c, stage, err)
		}
		var args []string
		switch {
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == ".":
			args = words[3:]
		case words[0] == "perfstitch":
			args = words[1:]
		default:
			if missing := missingPrograms(stage); len(missing) > 0 {
				// A program with a stand-in is checked by it; any other
				// missing program skips the block, which says so.
				if check, ok := standIns[words[0]]; ok && len(missing) == 1 && missing[0] == words[0] {
					if err := check(in); err != nil {
						t.Fatalf("README.md:%d: %q: %s would reject its input: %v", line, stage, words[0], err)
					}
					t.Logf("README.md:%d: %s is not installed: checked its input with a stand-in instead", line, words[0])
					return
				}
				t.Skipf("README.md:%d: cannot run %q: %s not installed", line, stage, strings.Join(missing, ", "))
			}
			sh := exec.Command("sh", "-c", stage)
			sh.Env = scratchEnv()
			sh.Stdin = bytes.NewReader(in)
			var out, errOut bytes.Buffer
			sh.Stdout, sh.Stderr = &out, &errOut
			if err := sh.Run(); err != nil {
				if words[0] == "perf" {
					t.Skipf("README.md:%d: %q cannot run here: %v\n%s", line, stage, err, errOut.Bytes())
				}
				t.Fatalf("README.md:%d: %q: %v\n%s", line, stage, err, errOut.Bytes())
			}
			in = out.Bytes()
			continue
		}
		in = runPerfstitch(t, line, stage, args, in)
	}
}

// runPerfstitch runs perfstitch with args in-process, with stdin as its
// standard input, and returns its standard output (also written to FILE
// for a trailing `> FILE`). It must succeed and print something (or write
// the file of its -o).
func runPerfstitch(t *testing.T, line int, stage string, args []string, stdin []byte) []byte {
	var redirect string
	if n := len(args); n >= 2 && args[n-2] == ">" {
		redirect, args = args[n-1], args[:n-2]
	}
	for _, a := range args {
		if strings.ContainsAny(a, "<>|;&$`") {
			t.Fatalf("README.md:%d: %q: shell syntax %q in a perfstitch command is not supported here", line, stage, a)
		}
	}
	io, in, out, errOut := iostreams.Test()
	in.Write(stdin)
	home := t.TempDir()
	f := &cmd.Factory{IO: io, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	if code := cmd.Run(t.Context(), f, args); code != cmd.ExitOK {
		t.Fatalf("README.md:%d: %q exited %d\nstderr:\n%s", line, stage, code, errOut)
	}
	if out.Len() == 0 && !wroteFile(args) {
		t.Fatalf("README.md:%d: %q printed nothing (stderr %q)", line, stage, errOut)
	}
	t.Logf("README.md:%d: %q: %d bytes of output", line, stage, out.Len())
	if strings.Contains(stage, "--format collapsed") {
		// What flamegraph.pl reads: "frame;frame;... count" per line.
		for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if !collapsedRE.MatchString(l) {
				t.Fatalf("README.md:%d: %q: output line %d is not a collapsed stack: %q", line, stage, i+1, l)
			}
		}
	}
	if redirect != "" {
		if err := os.WriteFile(redirect, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	return out.Bytes()
}

// wroteFile reports whether args name an output file (-o FILE, as
// perfstitch inject takes it) that is not empty: such a command prints
// nothing on stdout.
func wroteFile(args []string) bool {
	for i, a := range args {
		if a == "-o" && i+1 < len(args) && args[i+1] != "-" {
			st, err := os.Stat(args[i+1])
			return err == nil && st.Size() > 0
		}
	}
	return false
}

// standIns check the input of a README pipeline stage whose program is
// not installed (and not installable: Debian has no flamegraph package).
var standIns = map[string]func([]byte) error{
	// flamegraph.pl reads folded stacks, "frame;frame;... count" per line.
	"flamegraph.pl": func(in []byte) error {
		if len(in) == 0 {
			return errors.New("no folded stacks")
		}
		for i, l := range strings.Split(strings.TrimSuffix(string(in), "\n"), "\n") {
			if !collapsedRE.MatchString(l) {
				return fmt.Errorf("line %d is not a folded stack: %q", i+1, l)
			}
		}
		return nil
	},
}

// scratchEnv is the environment of the commands run through sh: HOME is
// the current (scratch) directory, so nothing (perf's build-id cache, for
// one) is written to the real home directory.
func scratchEnv() []string {
	dir, _ := os.Getwd()
	return append(os.Environ(), "HOME="+dir)
}

// missingPrograms returns the programs of the pipeline c that are not on
// PATH.
func missingPrograms(c string) []string {
	var missing []string
	for _, stage := range strings.Split(c, "|") {
		words := strings.Fields(stage)
		if len(words) == 0 {
			continue
		}
		prog := words[0]
		if strings.Contains(prog, "/") {
			continue
		}
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, prog)
		}
	}
	return missing
}

// splitWords splits a command line into words the way sh does for plain
// words and single- or double-quoted strings (no expansions).
func splitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool
		quote rune
	)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b  c", []string{"a", "b", "c"}},
		{`script -F 'comm,tid' "x y"`, []string{"script", "-F", "comm,tid", "x y"}},
		{`a ''`, []string{"a", ""}},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if err != nil || strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") || len(got) != len(tt.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := splitWords(`a "b`); err == nil {
		t.Error(`splitWords("a \"b") succeeded, want an error`)
	}
}
