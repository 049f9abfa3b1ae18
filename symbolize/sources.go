package symbolize

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// maxSourceSize bounds what is read of a text symbol source (a kallsyms
// copy, a maps snapshot): /proc/kallsyms is about 10 MB, a maps file a few
// hundred KB, and /dev/zero must not be read without end.
const maxSourceSize = 64 << 20

// maxDeviceSize bounds what is read of a character device given as a
// symbol source.
const maxDeviceSize = 1 << 20

// errTooLarge is the error of a symbol source larger than its limit.
var errTooLarge = errors.New("file too large")

// ErrNotRegular is the error of a symbol source that is neither a
// regular file nor a character device (a directory, a FIFO, a socket).
var ErrNotRegular = errors.New("not a regular file")

// CheckSourceFile reports whether path can be a text symbol source: a
// regular file (/proc/kallsyms is one, of size zero) or a character
// device (/dev/null is an empty one; /dev/zero is cut at the size
// limit). A FIFO is refused: it could block the run for ever.
func CheckSourceFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := st.Mode(); !m.IsRegular() && m&os.ModeCharDevice == 0 {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return nil
}

// openRegular opens path for reading if [CheckSourceFile] accepts it.
func openRegular(path string) (*os.File, error) {
	if err := CheckSourceFile(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// limitReader returns r cut after maxSourceSize bytes, with errTooLarge
// as the error of the byte after.
func limitReader(r io.Reader) io.Reader {
	return &capReader{r: r, left: maxSourceSize}
}

type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// LineError is a malformed line of a text symbol source (a kallsyms
// copy): the line was skipped and the rest of the file used, as perf
// does. Skipped counts every skipped line of the file, this one included.
type LineError struct {
	File    string
	Line    int
	Err     error
	Skipped int
}

// Error formats the error as "FILE:LINE: message (N bad lines skipped)".
func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d: %v (%s skipped)", e.File, e.Line, e.Err, plural(e.Skipped, "bad line"))
}

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// SourceErrors returns the problems met reading the symbol sources given
// by the options (kallsyms not readable, its malformed lines skipped) and
// the maps snapshots (see [Symbolizer.MapsErrors]), in the order met.
func (s *Symbolizer) SourceErrors() []error {
	out := append([]error(nil), s.srcErrs...)
	return append(out, s.snapErrs...)
}

// noteKallsyms keeps a problem of the kallsyms file (nil: none).
func (s *Symbolizer) noteKallsyms(err error) {
	if err == nil {
		return
	}
	var le *LineError
	if !errors.As(err, &le) {
		err = fmt.Errorf("kallsyms: %w (kernel symbols not resolved)", err)
	}
	s.srcErrs = append(s.srcErrs, err)
}

// linesSkipped reports whether err is a *MapsError for skipped lines
// (the file's other entries are good).
func linesSkipped(err error) bool {
	var me *MapsError
	return errors.As(err, &me) && me.Skipped > 0
}

// anyRegular reports whether one of the paths is a regular file: a DSO
// candidate that exists but did not open as ELF is BadFile, not NotFound.
func anyRegular(paths map[string]bool) bool {
	for p := range paths {
		if p != ownVDSOPath && isRegular(p) {
			return true
		}
	}
	return false
}
