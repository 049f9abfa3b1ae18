package symbolize

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ownVDSOPath names this process's own vDSO among the candidate files of
// a [vdso] DSO. perf 6.1 gives a [vdso] mapping for which the recording
// has no build id (pipe mode, for one) a copy of perf's own vDSO, written
// to a temporary file (vdso.c, machine__findnew_vdso); run on the machine
// that recorded, that is the recorded vDSO. With --symfs perf looks for
// that file below the symfs and finds nothing, and so does perfstitch.
const ownVDSOPath = "[vdso of this process]"

// maxVDSOSize bounds the vDSO image read from memory (a few pages in
// practice).
const maxVDSOSize = 1 << 20

// readOwnVDSO returns this process's vDSO image: its [vdso] mapping, read
// through /proc/self/mem. It fails where there is no such mapping (not
// Linux).
func readOwnVDSO() ([]byte, error) {
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	defer maps.Close()
	var start, end uint64
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasSuffix(line, " [vdso]") {
			continue
		}
		rng, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(rng, "-")
		if !ok {
			break
		}
		start, err = strconv.ParseUint(lo, 16, 64)
		if err == nil {
			end, err = strconv.ParseUint(hi, 16, 64)
		}
		if err != nil {
			return nil, fmt.Errorf("/proc/self/maps: %q: %w", line, err)
		}
		break
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if end <= start || end-start > maxVDSOSize || start > 1<<63-1 {
		return nil, errors.New("no [vdso] mapping in /proc/self/maps")
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	img := make([]byte, end-start)
	if _, err := mem.ReadAt(img, int64(start)); err != nil {
		return nil, fmt.Errorf("reading the vDSO: %w", err)
	}
	if !bytes.HasPrefix(img, []byte("\x7fELF")) {
		return nil, errors.New("the [vdso] mapping is not an ELF image")
	}
	return img, nil
}
