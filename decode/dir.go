package decode

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// OpenDir opens a recording in perf's directory format, which perf record
// --threads writes: DIR/data is a perf.data file (header, attrs, features
// and the records of perf's main thread) and DIR/data.0, DIR/data.1, …
// hold the records of each reader thread, without a header. The records of
// all files make one recording, delivered in time order as perf merges
// them: the whole recording is sorted (FINISHED_ROUND of one file does not
// bound the others), so a record and the records it refers to may sit in
// different files. Offsets of records after DIR/data count on from the end
// of its data section, file after file.
func OpenDir(dir string) (*File, error) {
	f, err := Open(filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	if f.Header.Pipe {
		f.Close()
		return nil, fmt.Errorf("%s: %w", dir, errors.New("directory data file is in pipe format"))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Close()
		return nil, err
	}
	type part struct {
		n    int
		name string
	}
	var parts []part
	for _, e := range ents {
		num, ok := strings.CutPrefix(e.Name(), "data.")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			continue
		}
		parts = append(parts, part{n, e.Name()})
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
	readers := []io.Reader{f.data}
	closers := multiCloser{f.closer}
	for _, p := range parts {
		fh, err := os.Open(filepath.Join(dir, p.name))
		if err != nil {
			closers.Close()
			return nil, err
		}
		readers = append(readers, fh)
		closers = append(closers, fh)
	}
	if f.dataEnd >= 0 {
		readers[0] = io.LimitReader(f.data, f.dataEnd-f.base)
	}
	f.data = io.MultiReader(readers...)
	f.dataEnd = -1
	f.closer = closers
	f.wholeSort = true
	return f, nil
}

// multiCloser closes every file of a directory recording.
type multiCloser []io.Closer

// Close closes them all and returns the first error.
func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
