// Package buildinfo says which perfstitch this is: the version, commit and
// build date that a release build injects with the linker, or, for a binary
// built by `go install`, what the Go toolchain recorded in it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// The linker sets these three in release builds (see .goreleaser.yaml):
//
//	-X github.com/perfstitch/perfstitch/internal/buildinfo.version=1.2.3
//
// They are variables only because -X can set nothing else; nothing in the
// program assigns them. Read them through [Get].
var (
	version string
	commit  string
	date    string
)

// Info describes a perfstitch binary. Empty fields are unknown.
type Info struct {
	// Version is the release version without a leading "v" ("1.2.3"), a Go
	// pseudo-version for a `go install` of an untagged commit, or "(devel)".
	Version string
	// Commit is the full git commit hash the binary was built from.
	Commit string
	// Date is the commit or build time, RFC 3339.
	Date string
	// Modified is true when the binary was built from a work tree with
	// uncommitted changes (known only from the Go toolchain's VCS stamp).
	Modified bool
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string
	// Platform is GOOS/GOARCH of the binary.
	Platform string
}

// Get returns the build information of the running binary.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, date, bi)
}

// resolve prefers the values the linker injected and fills the gaps from
// the build information the Go toolchain embeds (bi may be nil).
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	info := Info{
		Version:   strings.TrimPrefix(version, "v"),
		Commit:    commit,
		Date:      date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi == nil {
		if info.Version == "" {
			info.Version = "(devel)"
		}
		return info
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	if info.Version == "" && bi.Main.Version != "" {
		info.Version = strings.TrimPrefix(bi.Main.Version, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if info.Commit == "" {
				info.Commit = s.Value
			}
		case "vcs.time":
			if info.Date == "" {
				info.Date = s.Value
			}
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	return info
}

// String formats the information as one line, for `perfstitch version`:
//
//	perfstitch version 1.2.3 (commit 0123456789ab, 2026-11-30T08:00:00Z, go1.26.8 linux/amd64)
func (i Info) String() string {
	var details []string
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if i.Modified {
			c += "-dirty"
		}
		details = append(details, "commit "+c)
	}
	if i.Date != "" {
		details = append(details, i.Date)
	}
	details = append(details, i.GoVersion+" "+i.Platform)
	return fmt.Sprintf("perfstitch version %s (%s)", i.Version, strings.Join(details, ", "))
}
