package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestSimulateCmd runs the hidden simulate command: good flag sets write a
// file that decodes with deferred records, bad ones are usage errors.
func TestSimulateCmd(t *testing.T) {
	in := testfixture.Testdata(t, "fp", "perf.data")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("testdata/fp absent: %v", err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode ExitCode
		wantABI  decode.DeferredABI
		wantErr  string
	}{
		{"cookie", []string{"--abi", "cookie"}, ExitOK, decode.DeferredCookie, ""},
		{"seed with drops", []string{"--abi", "seed", "--drop-every", "3"}, ExitOK, decode.DeferredSeed, ""},
		{"tracking", []string{"--via-event", "tracking", "--duplicate", "--no-sample-id-all"}, ExitOK, decode.DeferredCookie, ""},
		{"bad abi", []string{"--abi", "v16"}, ExitUsage, 0, "seed or cookie"},
		{"bad via", []string{"--via-event", "dummy"}, ExitUsage, 0, "sample id"},
		{"seed via", []string{"--abi", "seed", "--via-event", "5"}, ExitUsage, 0, "need --abi cookie"},
		{"negative drops", []string{"--drop-every", "-1"}, ExitUsage, 0, "negative"},
		{"unknown id", []string{"--via-event", "999999"}, ExitError, 0, "no event has sample id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.data")
			ios, _, _, errOut := iostreams.Test()
			f := &Factory{IO: ios, Getenv: func(string) string { return "" }}
			args := append([]string{"simulate", "-i", in, "-o", out}, tt.args...)
			code := Run(context.Background(), f, args)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut)
			}
			if tt.wantErr != "" {
				if !strings.Contains(errOut.String(), tt.wantErr) {
					t.Errorf("stderr %q does not mention %q", errOut, tt.wantErr)
				}
				if _, err := os.Stat(out); err == nil && code == ExitError {
					t.Errorf("failed run left %s behind", out)
				}
				return
			}
			df, err := decode.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer df.Close()
			rs := df.Records(decode.FileOrder)
			var records int
			for rs.Next() {
				if r, ok := rs.Record().(*decode.CallchainDeferred); ok {
					records++
					if r.ABI != tt.wantABI {
						t.Fatalf("record ABI %v, want %v", r.ABI, tt.wantABI)
					}
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if records == 0 {
				t.Error("no deferred records written")
			}
		})
	}
}
