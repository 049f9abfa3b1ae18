package stats

import (
	"bufio"
	"io"
)

// WriteStitching prints the recording, record and stitching tables of
// [Stats.WriteTable], without the events' sample counts and the
// symbolization summary: the audit of a run that stitches without
// symbolizing (perfstitch inject), for which those are not collected.
func (st *Stats) WriteStitching(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, write := range []func(*bufio.Writer) error{st.writeRecording, st.writeRecords, st.writeStitch} {
		if err := write(bw); err != nil {
			return err
		}
	}
	return bw.Flush()
}
