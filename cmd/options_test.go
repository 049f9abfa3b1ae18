package cmd

import "testing"

// TestBuildIDDir checks which build-id cache is used: --buildid-dir, else
// the symfs's own .debug (as perf, which skips the local cache when given
// a symfs), else $HOME/.debug.
func TestBuildIDDir(t *testing.T) {
	home := func(string) string { return "/home/u" }
	tests := []struct {
		name string
		o    CommonOptions
		want string
	}{
		{"home", CommonOptions{Getenv: home}, "/home/u/.debug"},
		{"no home", CommonOptions{Getenv: func(string) string { return "" }}, ""},
		{"symfs", CommonOptions{Getenv: home, Symfs: "/sym"}, "/sym/.debug"},
		{"flag wins", CommonOptions{Getenv: home, Symfs: "/sym", BuildIDDir: "/cache"}, "/cache"},
	}
	for _, tt := range tests {
		if got := buildIDDir(&tt.o); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
