package encode_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
)

// Decode a recording, change its samples and write it again: here every
// sample loses the user part of its callchain, and the result is a
// big-endian pipe-mode stream with zstd-compressed records.
func Example() {
	f, err := decode.Open("../testdata/fp/perf.data")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	var out bytes.Buffer
	w, err := encode.NewWriter(&out, encode.Options{
		Pipe:      true,
		ByteOrder: binary.BigEndian,
		Attrs:     f.Attrs,
		Meta:      &f.Meta,
		Compress:  decode.RecordTypeCompressed,
	})
	if err != nil {
		log.Fatal(err)
	}
	rs := f.Records(decode.FileOrder)
	for rs.Next() {
		r := rs.Record()
		if s, ok := r.(*decode.Sample); ok {
			for i, ip := range s.Callchain {
				if ip == decode.ContextUser {
					s.Callchain = s.Callchain[:i]
					break
				}
			}
		}
		if err := w.WriteRecord(r); err != nil {
			log.Fatal(err)
		}
	}
	if err := rs.Err(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// Read it back.
	g, err := decode.NewPipe(&out)
	if err != nil {
		log.Fatal(err)
	}
	samples, user := 0, 0
	rs = g.Records(decode.FileOrder)
	for rs.Next() {
		if s, ok := rs.Record().(*decode.Sample); ok {
			samples++
			for _, ip := range s.Callchain {
				if ip == decode.ContextUser {
					user++
				}
			}
		}
	}
	fmt.Println(g.Header.Pipe, g.Header.ByteOrder, samples, user, rs.Err())
	// Output: true BigEndian 120 0 <nil>
}
