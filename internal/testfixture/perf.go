package testfixture

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Tool returns the path of the command name on PATH, skipping tb without
// it.
func Tool(tb testing.TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		tb.Skipf("%s not installed: %v", name, err)
	}
	return path
}

// RunPerf runs the machine's perf (6.1, where the goldens come from) at
// path perf hermetically, as the goldens were made: in dir (the test's
// working directory when empty), with an empty environment and HOME, no
// config, C locale and UTC. It returns perf's standard output and fails tb
// when perf does.
func RunPerf(tb testing.TB, perf, dir string, args ...string) []byte {
	tb.Helper()
	cmd := exec.Command(perf, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tb.TempDir(), "PERF_CONFIG=/dev/null", "LC_ALL=C", "TZ=UTC"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}
