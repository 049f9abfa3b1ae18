package inject

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/perfstitch/perfstitch/decode"
)

// Input is an opened recording for [Rewrite].
type Input struct {
	File *decode.File
	// Size is the input's size in bytes, -1 for a stream.
	Size  int64
	close func() error
}

// Close releases the input (and the staging file of a file-mode stream).
func (in *Input) Close() error {
	if in.close == nil {
		return nil
	}
	err := in.close()
	in.close = nil
	return err
}

// Open opens the recording to rewrite: the file name, or for "" and "-"
// the standard input stdin, which may carry either mode, as perf inject
// reads it: a regular file is read in place, a pipe-mode stream as it
// comes, and a file-mode perf.data coming through a pipe is staged in an
// unlinked temporary file first (file mode needs random access).
func Open(name string, stdin io.Reader) (*Input, error) {
	if name != "" && name != "-" {
		st, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		f, err := decode.Open(name)
		if err != nil {
			return nil, err
		}
		size := int64(-1)
		if st.Mode().IsRegular() {
			size = st.Size()
		}
		return &Input{File: f, Size: size, close: f.Close}, nil
	}
	if osf, ok := stdin.(*os.File); ok {
		if st, err := osf.Stat(); err == nil && st.Mode().IsRegular() {
			if pos, err := osf.Seek(0, io.SeekCurrent); err == nil && pos == 0 {
				f, err := decode.NewFile(osf)
				if err != nil {
					return nil, fmt.Errorf("stdin: %w", err)
				}
				return &Input{File: f, Size: st.Size(), close: f.Close}, nil
			}
		}
	}
	br := bufio.NewReaderSize(stdin, 64<<10)
	hdr, err := br.Peek(16)
	if err != nil && len(hdr) < 16 {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("stdin: header: %w", err)
	}
	if pipeHeader(hdr) {
		f, err := decode.NewPipe(br)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return &Input{File: f, Size: -1, close: f.Close}, nil
	}
	tmp, err := os.CreateTemp("", "perfstitch-inject-*")
	if err != nil {
		return nil, fmt.Errorf("stdin: stage file-mode input: %w", err)
	}
	os.Remove(tmp.Name()) // unlinked: nothing left behind
	n, err := io.Copy(tmp, br)
	if err != nil {
		tmp.Close()
		return nil, fmt.Errorf("stdin: stage file-mode input: %w", err)
	}
	f, err := decode.NewFile(tmp)
	if err != nil {
		tmp.Close()
		return nil, fmt.Errorf("stdin: %w", err)
	}
	return &Input{File: f, Size: n, close: tmp.Close}, nil
}

// pipeHeader reports whether hdr, the first 16 bytes of a stream, is a
// pipe-mode header: the magic followed by a header size of 16, in either
// byte order. Anything else is left to the file-mode decoder to judge.
func pipeHeader(hdr []byte) bool {
	const magic = 0x32454c4946524550 // "PERFILE2"
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		if o.Uint64(hdr) == magic && o.Uint64(hdr[8:]) == 16 {
			return true
		}
	}
	return false
}
