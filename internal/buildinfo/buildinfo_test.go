package buildinfo

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	goVersion := runtime.Version()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	installed := &debug.BuildInfo{
		GoVersion: "go1.26.1",
		Main:      debug.Module{Path: "github.com/perfstitch/perfstitch", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "89abcdef0123456789abcdef0123456789abcdef"},
			{Key: "vcs.time", Value: "2026-11-29T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	devel := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
		wantString            string
	}{
		{
			name:    "release build: ldflags win",
			version: "v1.2.3", commit: "0123456789abcdef0123456789abcdef01234567", date: "2026-11-30T08:00:00Z",
			bi: installed,
			want: Info{Version: "1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567",
				Date: "2026-11-30T08:00:00Z", Modified: true, GoVersion: "go1.26.1", Platform: platform},
			wantString: "perfstitch version 1.2.3 (commit 0123456789ab-dirty, 2026-11-30T08:00:00Z, go1.26.1 " + platform + ")",
		},
		{
			name: "go install: module version and vcs stamp",
			bi:   installed,
			want: Info{Version: "0.3.0", Commit: "89abcdef0123456789abcdef0123456789abcdef",
				Date: "2026-11-29T10:00:00Z", Modified: true, GoVersion: "go1.26.1", Platform: platform},
			wantString: "perfstitch version 0.3.0 (commit 89abcdef0123-dirty, 2026-11-29T10:00:00Z, go1.26.1 " + platform + ")",
		},
		{
			name:       "go build without vcs",
			bi:         devel,
			want:       Info{Version: "(devel)", GoVersion: "go1.26.1", Platform: platform},
			wantString: "perfstitch version (devel) (go1.26.1 " + platform + ")",
		},
		{
			name:       "no build info at all",
			want:       Info{Version: "(devel)", GoVersion: goVersion, Platform: platform},
			wantString: "perfstitch version (devel) (" + goVersion + " " + platform + ")",
		},
		{
			name:       "short commit kept whole",
			version:    "2.0.0-next",
			commit:     "abc1234",
			want:       Info{Version: "2.0.0-next", Commit: "abc1234", GoVersion: goVersion, Platform: platform},
			wantString: "perfstitch version 2.0.0-next (commit abc1234, " + goVersion + " " + platform + ")",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.version, tt.commit, tt.date, tt.bi)
			if got != tt.want {
				t.Errorf("resolve:\n\thave %#v\n\twant %#v", got, tt.want)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String:\n\thave %q\n\twant %q", s, tt.wantString)
			}
		})
	}
}

func TestGet(t *testing.T) {
	got := Get()
	if got.Version == "" || got.GoVersion == "" || got.Platform == "" {
		t.Errorf("Get() = %#v, want Version, GoVersion and Platform set", got)
	}
}

// TestGoreleaserLdflags checks that every -X flag of .goreleaser.yaml
// names a string variable of this package, so a rename cannot silently
// stop releases from carrying their version.
func TestGoreleaserLdflags(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/perfstitch/perfstitch/internal/buildinfo"
	set := regexp.MustCompile(`-X `+regexp.QuoteMeta(pkg)+`\.(\w+)=`).FindAllSubmatch(cfg, -1)
	vars := map[string]*string{"version": &version, "commit": &commit, "date": &date}
	seen := map[string]bool{}
	for _, m := range set {
		name := string(m[1])
		if _, ok := vars[name]; !ok {
			t.Errorf(".goreleaser.yaml sets %s.%s, which is not one of the variables -X can set", pkg, name)
		}
		seen[name] = true
	}
	for name := range vars {
		if !seen[name] {
			t.Errorf(".goreleaser.yaml does not set %s.%s", pkg, name)
		}
	}
}
