package symbolize

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MapsEntry is one line of a /proc/PID/maps file.
type MapsEntry struct {
	Start, End   uint64 // [Start, End)
	Perms        string // e.g. "r-xp"
	Offset       uint64 // file offset of Start
	Major, Minor uint32 // device
	Inode        uint64
	Path         string // "" for anonymous memory; "[vdso]", "[heap]", "/x (deleted)" as the kernel prints them
}

// Executable reports whether the mapping is executable (perms has 'x').
func (e MapsEntry) Executable() bool { return len(e.Perms) >= 3 && e.Perms[2] == 'x' }

// MapsError is a syntax error in a maps file.
type MapsError struct {
	File string // "" when parsed from a reader without a name
	Line int
	Err  error
	// Skipped counts the malformed lines skipped (this one the first);
	// 0 when the file could not be read at all.
	Skipped int
}

// Error formats the error as "FILE:LINE: message".
func (e *MapsError) Error() string {
	skipped := ""
	if e.Skipped > 0 {
		skipped = " (" + plural(e.Skipped, "bad line") + " skipped)"
	}
	if e.File == "" {
		return fmt.Sprintf("maps line %d: %v%s", e.Line, e.Err, skipped)
	}
	return fmt.Sprintf("%s:%d: %v%s", e.File, e.Line, e.Err, skipped)
}

// Unwrap returns the underlying error.
func (e *MapsError) Unwrap() error { return e.Err }

// ParseMaps parses the /proc/PID/maps format strictly: every non-empty
// line must be "START-END PERMS OFFSET MAJ:MIN INODE [PATH]" with hex
// addresses, offset and device, a decimal inode, and START < END. name
// labels errors (a *MapsError). A malformed line is skipped and the others
// returned, with a *MapsError naming the first and counting them all
// (Skipped); a read error ends the entries there.
func ParseMaps(name string, r io.Reader) ([]MapsEntry, error) {
	var out []MapsEntry
	var bad *MapsError
	sc := bufio.NewScanner(limitReader(r))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		e, err := parseMapsLine(text)
		if err != nil {
			if bad == nil {
				bad = &MapsError{File: name, Line: line, Err: err}
			}
			bad.Skipped++
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &MapsError{File: name, Line: line + 1, Err: err}
	}
	if bad != nil {
		return out, bad
	}
	return out, nil
}

func parseMapsLine(s string) (MapsEntry, error) {
	var e MapsEntry
	field := func() (string, error) {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return "", errors.New("too few fields")
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		f := s[:i]
		s = s[i:]
		return f, nil
	}
	rng, err := field()
	if err != nil {
		return e, err
	}
	lo, hi, ok := strings.Cut(rng, "-")
	if !ok {
		return e, fmt.Errorf("address range %q: missing '-'", rng)
	}
	if e.Start, err = parseHex(lo, "start address"); err != nil {
		return e, err
	}
	if e.End, err = parseHex(hi, "end address"); err != nil {
		return e, err
	}
	if e.Start >= e.End {
		return e, fmt.Errorf("address range %q: start not below end", rng)
	}
	if e.Perms, err = field(); err != nil {
		return e, err
	}
	if !validPerms(e.Perms) {
		return e, fmt.Errorf("permissions %q: want [r-][w-][x-][ps]", e.Perms)
	}
	off, err := field()
	if err != nil {
		return e, err
	}
	if e.Offset, err = parseHex(off, "offset"); err != nil {
		return e, err
	}
	dev, err := field()
	if err != nil {
		return e, err
	}
	maj, min, ok := strings.Cut(dev, ":")
	if !ok {
		return e, fmt.Errorf("device %q: missing ':'", dev)
	}
	ma, err := strconv.ParseUint(maj, 16, 32)
	if err != nil {
		return e, fmt.Errorf("device %q: %w", dev, err)
	}
	mi, err := strconv.ParseUint(min, 16, 32)
	if err != nil {
		return e, fmt.Errorf("device %q: %w", dev, err)
	}
	e.Major, e.Minor = uint32(ma), uint32(mi)
	ino, err := field()
	if err != nil {
		return e, err
	}
	if e.Inode, err = strconv.ParseUint(ino, 10, 64); err != nil {
		return e, fmt.Errorf("inode %q: %w", ino, err)
	}
	e.Path = strings.TrimLeft(s, " \t")
	return e, nil
}

func parseHex(s, what string) (uint64, error) {
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", what, s, err)
	}
	return v, nil
}

func validPerms(p string) bool {
	return len(p) == 4 &&
		(p[0] == 'r' || p[0] == '-') &&
		(p[1] == 'w' || p[1] == '-') &&
		(p[2] == 'x' || p[2] == '-') &&
		(p[3] == 'p' || p[3] == 's')
}

// ReadMapsFile parses the maps file at path.
func ReadMapsFile(path string) ([]MapsEntry, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMaps(path, f)
}

// mapsSnapshotPath returns the maps file for pid under dir: DIR/PID.maps,
// else DIR/PID/maps; "" when neither exists.
func mapsSnapshotPath(dir string, pid int32) string {
	for _, p := range []string{
		filepath.Join(dir, strconv.Itoa(int(pid))+".maps"),
		filepath.Join(dir, strconv.Itoa(int(pid)), "maps"),
	} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
