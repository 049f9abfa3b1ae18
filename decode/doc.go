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
// # Ordering
//
// [TimeOrder] reproduces perf's delivery order: kernel records with a
// timestamp are queued; a FINISHED_ROUND is delivered as soon as it is read
// and then releases the queued records up to the newest timestamp of the
// round before it; records without a timestamp and perf-tool records
// (types 64 and up, including COMPRESSED containers) pass at once; the
// rest is released at the end. The records of a COMPRESSED/COMPRESSED2
// container follow the container through the same queue. Queued records
// are kept as their bytes and decoded when delivered, as perf does.
// [FileOrder] delivers records as they are stored.
//
// # Offsets
//
// [RecordCommon.Offset] is the file offset of a record. Pipe-mode offsets
// count from the byte after the 16-byte pipe header (perf script -D's
// "0x98@pipe"). Records decompressed from a container carry the
// container's offset and their offset in the decompressed stream in
// InnerOffset (perf 6.1 -D prints the first container's offset for all of
// them).
//
// # Bad input
//
// Malformed input yields a [*FormatError] naming the file offset, the record
// type and the field; every complete record before the damage is still
// delivered. Damage that loses the record framing (a truncated file, a size
// below 8, a payload running past the end) ends the iteration with that
// error from [Records.Err]. A record whose own fields are bad (a callchain nr
// past its end, an unknown sample id, a short body) is skipped and counted in
// [Stats].Skipped with the *FormatError in [Stats].Warnings; a bad feature
// section lands in [Meta].Errors. No allocation is sized from the file
// without a bound (the zstd window is capped at 8 MiB), and no input makes
// the package panic (FuzzFile, FuzzPipe).
//
// The API is not yet stable.
package decode
