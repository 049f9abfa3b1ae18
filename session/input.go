package session

import (
	"io"
	"os"

	"github.com/perfstitch/perfstitch/decode"
)

// openInput opens the input named name: "-" (or "" while stdin is a
// named pipe) is a pipe-mode stream on stdin, anything else a file
// (perf.data for ""); a file-mode perf.data on stdin is read as a file
// (openStdin). size is the file size, -1 for a stream.
func openInput(name string, stdin io.Reader) (*decode.File, int64, error) {
	if name == "" {
		name = "perf.data"
		if in, ok := stdin.(*os.File); ok {
			if st, err := in.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
				name = "-"
			}
		}
	}
	if name == "-" {
		return openStdin(stdin)
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, 0, err
	}
	if st.IsDir() {
		// perf record --threads: a directory of data files.
		f, err := decode.OpenDir(name)
		if err != nil {
			return nil, 0, err
		}
		return f, -1, nil
	}
	f, err := decode.Open(name)
	if err != nil {
		return nil, 0, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, nil
}
