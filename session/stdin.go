package session

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/perfstitch/perfstitch/decode"
)

// openStdin opens the recording on standard input. A pipe-mode stream
// is read as one; a file-mode perf.data is read as a file: in place when
// stdin is a regular file (`-i - < perf.data`), else copied to an
// unlinked temporary file first (`cat perf.data | perfstitch script -i
// -`), since its header points at sections out of stream order.
func openStdin(stdin io.Reader) (*decode.File, int64, error) {
	if in, ok := stdin.(*os.File); ok {
		if st, err := in.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := in.Seek(0, io.SeekCurrent); err == nil && off == 0 && fileMode(in) {
				f, err := decode.NewFile(in)
				if err != nil {
					return nil, 0, fmt.Errorf("stdin: %w", err)
				}
				return f, st.Size(), nil
			}
		}
	}
	br := bufio.NewReaderSize(stdin, 64<<10)
	head, _ := br.Peek(16)
	if !isFileHeader(head) {
		f, err := decode.NewPipe(br)
		if err != nil {
			return nil, 0, fmt.Errorf("stdin: %w", err)
		}
		return f, -1, nil
	}
	tmp, err := os.CreateTemp("", "perfstitch-stdin-*.data")
	if err != nil {
		return nil, 0, fmt.Errorf("stdin: a file-mode perf.data on a pipe needs a temporary copy: %w", err)
	}
	os.Remove(tmp.Name()) // the open file keeps it until Close
	n, err := io.Copy(tmp, br)
	if err != nil {
		tmp.Close()
		return nil, 0, fmt.Errorf("stdin: copying the file-mode perf.data: %w", err)
	}
	f, err := decode.NewFile(tmp)
	if err != nil {
		tmp.Close()
		return nil, 0, fmt.Errorf("stdin: %w", err)
	}
	f.SetCloser(tmp)
	return f, n, nil
}

// fileMode reports whether the file at its start is a file-mode
// perf.data (reading through ReadAt, so the offset does not move).
func fileMode(f *os.File) bool {
	var head [16]byte
	n, _ := f.ReadAt(head[:], 0)
	return isFileHeader(head[:n])
}

// isFileHeader reports whether head starts a file-mode perf.data: the
// magic in either byte order and a header size other than the pipe
// header's 16.
func isFileHeader(head []byte) bool {
	if len(head) < 16 {
		return false
	}
	var size uint64
	switch {
	case bytes.Equal(head[:8], []byte("PERFILE2")):
		size = binary.LittleEndian.Uint64(head[8:])
	case bytes.Equal(head[:8], []byte("2ELIFREP")):
		size = binary.BigEndian.Uint64(head[8:])
	default:
		return false
	}
	return size != 16
}
