// Package stats gathers what perfstitch stats prints: what the file says
// about the recording, the samples of each event, the record counts of
// perf report --stats, lost and throttled samples, the stitcher's
// counters and how well the profile symbolized, and prints it as tables,
// perf's text or JSON.
package stats
