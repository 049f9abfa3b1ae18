// Package decode reads Linux perf.data files — file mode and pipe mode, either
// byte order, zstd-compressed or not — and delivers their contents as a stream
// of typed records.
//
// The format is specified by include/uapi/linux/perf_event.h (kernel records,
// struct perf_event_attr) and tools/perf/Documentation/perf.data-file-format.txt,
// tools/perf/util/header.c and tools/perf/util/session.c (file layout,
// perf-tool records, feature sections). Time ordering follows
// tools/perf/util/ordered-events.c: records are released round by round at
// PERF_RECORD_FINISHED_ROUND, so memory is bounded by one round, not the file.
//
// Typical use:
//
//	f, err := decode.Open("perf.data")
//	if err != nil { ... }
//	defer f.Close()
//	rs := f.Records(decode.TimeOrder)
//	for rs.Next() {
//		switch r := rs.Record().(type) {
//		case *decode.Sample:
//			...
//		}
//	}
//	if err := rs.Err(); err != nil { ... }
//
// # Bad input
//
// Malformed input yields a [*FormatError] naming the file offset, the record
// type and the field; every complete record before the damage is still
// delivered. No allocation is sized from the file without a bound, and no input
// makes the package panic (the decoders are fuzzed).
//
// The API is not yet stable.
package decode
