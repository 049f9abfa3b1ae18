//go:build ignore

// gen.go writes testdata/warnings/perf.data from testdata/fp/perf.data with
// package encode: the records perf warns about after a run
// (perf_session__warn_about_errors in tools/perf/util/session.c), which a
// healthy recording of this machine does not have:
//
//   - two LOST_SAMPLES records (3 and 4 samples lost) among the first 40
//     samples: 7 of 47, over perf's 5% ("Processed 47 samples and lost
//     14.89%!");
//
//   - two FINISHED_ROUND records, after the 10th and the 20th sample, and
//     two samples after them stamped before the first round's end ("2 out
//     of order events recorded.").
//
//     go run gen.go    (in testdata/warnings)
package main

import (
	"fmt"
	"os"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

// samples is how many samples of fp are kept.
const samples = 40

func main() {
	if err := write("perf.data"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(name string) error {
	f, err := decode.Open("../fp/perf.data")
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	defer out.Close()
	w, err := encode.NewWriter(out, encode.Options{Attrs: f.Attrs, Meta: &f.Meta})
	if err != nil {
		return err
	}
	rs := f.Records(decode.FileOrder)
	n := 0
	var early [2]uint64 // the times of samples 2 and 3
	for rs.Next() {
		r := rs.Record()
		s, ok := r.(*decode.Sample)
		if !ok {
			if _, round := r.(*decode.FinishedRound); round && n >= samples {
				continue // fp's own round comes after every sample
			}
			if err := w.WriteRecord(r); err != nil {
				return err
			}
			continue
		}
		if n == samples {
			continue
		}
		c := s.RecordCommon
		switch n {
		case 2, 3:
			early[n-2] = s.Time
		case 10, 20:
			if err := w.WriteRecord(&decode.FinishedRound{}); err != nil {
				return err
			}
		case 25, 26:
			s.Time, s.RecordCommon.Time = early[n-25], early[n-25]
		case 5, 30:
			lost := &decode.LostSamples{RecordCommon: c, Lost: uint64(3 + n/30)}
			lost.Misc = 0
			if err := w.WriteRecord(lost); err != nil {
				return err
			}
		}
		if err := w.WriteRecord(s); err != nil {
			return err
		}
		n++
	}
	if err := rs.Err(); err != nil {
		return err
	}
	if err := w.WriteRecord(&decode.FinishedRound{}); err != nil {
		return err
	}
	return w.Close()
}
