package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestScriptFields: -F weight, ins_lat, retire_lat, data_src, phys_addr,
// data_page_size, code_page_size, cgroup, flags, callindent and tod on
// the encoder-written recordings of testdata/fields (gen.go), against
// perf 6.1 and perf 7.3.4 (testdata/fields/goldens.sh; cgroup and
// retire_lat are perf 7.3.4's only).
func TestScriptFields(t *testing.T) {
	dir := testfixture.Testdata(t, "fields")
	if _, off := time.Unix(1796126400, 0).In(time.Local).Zone(); off != 0 {
		t.Skip("local time zone is not UTC; the tod goldens print UTC")
	}
	sets := []struct{ name, input, args string }{
		{"script-mem", "perf.data", "-F comm,tid,time,event,flags,data_src,weight,ins_lat,ip,sym,dso,phys_addr,data_page_size,code_page_size,tod"},
		{"script-mem-G", "perf.data", "-G -F comm,tid,time,event,flags,data_src,weight,ins_lat,ip,sym,dso,phys_addr,data_page_size,code_page_size,tod,callindent"},
		{"script-tod-ns", "perf.data", "-G --ns -F +tod --show-task-events --show-mmap-events"},
		{"script-weight", "weight.data", "-G -F comm,tid,time,weight"},
		{"script-cgroup", "perf.data", "-G -F comm,tid,time,cgroup,retire_lat,ins_lat,weight"},
	}
	n := 0
	for _, s := range sets {
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			golden := filepath.Join(d.dir, s.name+".txt")
			if _, err := os.Stat(golden); err != nil {
				continue // a field perf 6.1 does not have
			}
			n++
			t.Run(s.name+"/"+d.compat, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", filepath.Join(testfixture.Testdata(t, "fp"), "symfs"),
					"--kallsyms", testfixture.Testdata(t, "kallsyms")}
				args = append(append(args, splitArgs(s.args)...), filepath.Join(dir, s.input))
				testfixture.MatchFile(t, golden, runScriptArgs(t, args...))
			})
		}
	}
	if n != 9 {
		t.Errorf("%d goldens, want 9", n)
	}
}

// TestScriptFieldsRefused: the fields perf 6.1 does not have are usage
// errors in its dialect, and a field the samples do not carry fails with
// perf's reason, as in both perfs.
func TestScriptFieldsRefused(t *testing.T) {
	fields := filepath.Join(testfixture.Testdata(t, "fields"), "perf.data")
	fp := filepath.Join(testfixture.Testdata(t, "fp"), "perf.data")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compat", "6.1", "-F", "+cgroup", fields}, `invalid field requested: "cgroup"`},
		{[]string{"--compat", "6.1", "-F", "comm,retire_lat", fields}, `invalid field requested: "retire_lat"`},
		{[]string{"-F", "+weight", fp}, "do not have WEIGHT attribute set, cannot print 'weight' field"},
		{[]string{"-F", "+ins_lat", filepath.Join(testfixture.Testdata(t, "fields"), "weight.data")}, "do not have WEIGHT_STRUCT attribute set, cannot print 'ins_lat' field"},
		{[]string{"-F", "+data_src", fp}, "do not have DATA_SRC attribute set"},
		{[]string{"-F", "+phys_addr", fp}, "do not have PHYS_ADDR attribute set"},
		{[]string{"-F", "+cgroup", fp}, "perf record --all-cgroups"},
		{[]string{"-F", "+tod", filepath.Join(testfixture.Testdata(t, "fields"), "weight.data")}, "Can't provide 'tod' time, missing clock data."},
	} {
		f, _, errOut := testFactory()
		code := Run(context.Background(), f, append([]string{"script"}, c.args...))
		if code == ExitOK || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want a failure saying %q", c.args, code, errOut, c.want)
		}
	}
}
