// Package encode writes Linux perf.data files from the record types of
// package decode: file mode (104-byte header, attrs with id arrays, data,
// feature sections) and pipe mode (16-byte header, HEADER_ATTR and
// HEADER_FEATURE records), in either byte order, optionally with the records
// zstd-compressed into PERF_RECORD_COMPRESSED (81) or COMPRESSED2 (83)
// containers the way perf record -z writes them.
//
// The layouts follow include/uapi/linux/perf_event.h (kernel records, struct
// perf_event_attr), tools/lib/perf/include/perf/event.h (perf-tool records)
// and tools/perf/util/header.c (file header, features); see
// ../shared/docs/perf-format.md. A big-endian file is what perf on a
// big-endian machine writes: every integer in big-endian order, and the
// bitfields of perf_event_attr and perf_branch_entry laid out the way a
// big-endian compiler allocates them (from the most significant bit).
//
// [Writer] writes whole files; [AppendRecord], [AppendAttr] and [Builder]
// build single records and structures, also deliberately malformed ones, for
// tests.
//
// The API is not yet stable.
package encode
