package symbolize

import (
	"bytes"
	"path"
	"strings"
)

// preloader reads, on goroutines of its own, the symbols a recording is
// going to need, so that loading overlaps decoding instead of stalling the
// first samples: kallsyms, and the user DSOs of the build-id table (perf
// record lists exactly the DSOs that got samples). Each goroutine works on
// private copies and ends by itself; the results are taken over, on the
// Symbolizer's goroutine, by the first load that needs them, and only when
// that DSO matches the one preloaded (name, kind and build id), so the
// outcome is the same as loading it there.
type preloader struct {
	kpath    string
	kallsyms chan kallsymsResult // nil: kallsyms not preloaded
	users    map[string]*userPreload
}

type kallsymsResult struct {
	ks  *kernelSyms
	err error
}

// userPreload is one user DSO being loaded: d holds the result once done
// is closed.
type userPreload struct {
	done chan struct{}
	d    *dso
}

// startPreload starts the preloading goroutines for s (called by New).
func (s *Symbolizer) startPreload() {
	if p := s.opts.Kallsyms; p != "" {
		ch := make(chan kallsymsResult, 1)
		go func() {
			ks, err := loadKallsyms(p)
			ch <- kallsymsResult{ks, err}
		}()
		s.pre.kpath, s.pre.kallsyms = p, ch
	}
	if s.opts.Meta == nil {
		return
	}
	var list []*userPreload
	for _, b := range s.opts.Meta.BuildIDs {
		name := b.Filename
		if !preloadable(name) || s.pre.users[name] != nil {
			continue
		}
		d := newDSO(name, dsoUser)
		d.setBuildID(s.buildIDs[name])
		u := &userPreload{done: make(chan struct{}), d: d}
		if s.pre.users == nil {
			s.pre.users = map[string]*userPreload{}
		}
		s.pre.users[name] = u
		list = append(list, u)
	}
	if len(list) == 0 {
		return
	}
	// A private Symbolizer: loadUser reads only its options.
	loader := &Symbolizer{opts: s.opts, dem: s.dem}
	go func() {
		for _, u := range list {
			u.d.reason = NoSymbols
			loader.loadUser(u.d)
			u.d.loaded = true
			close(u.done)
		}
	}()
}

// preloadable reports whether a build-id table entry names an ELF file
// that a user mapping would load as a dsoUser (not anonymous or JIT
// memory, not a kernel module).
func preloadable(name string) bool {
	if !strings.HasPrefix(name, "/") || strings.HasPrefix(name, "//") {
		return false
	}
	for _, p := range []string{"/dev/zero", "/anon_hugepage", "/SYSV", "/tmp/perf-"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return !strings.Contains(path.Base(name), ".ko")
}

// takeUser gives d the preloaded symbols of its file, waiting for them,
// and reports whether it did; false means d must be loaded here.
func (s *Symbolizer) takeUser(d *dso) bool {
	u := s.pre.users[d.name]
	if u == nil || d.kind != dsoUser {
		return false
	}
	delete(s.pre.users, d.name)
	if d.buildIDHex != u.d.buildIDHex || !bytes.Equal(d.buildID, u.d.buildID) {
		return false
	}
	<-u.done
	d.tab, d.path, d.reason, d.mismatches = u.d.tab, u.d.path, u.d.reason, u.d.mismatches
	d.noDWARF = u.d.noDWARF
	return true
}

// kernelSyms returns the parsed kallsyms file at path, preloaded when it
// can.
func (s *Symbolizer) kernelSyms(path string) (*kernelSyms, error) {
	if s.pre.kallsyms != nil && s.pre.kpath == path {
		r := <-s.pre.kallsyms
		s.pre.kallsyms = nil
		return r.ks, r.err
	}
	return loadKallsyms(path)
}
