package output

import "github.com/perfstitch/perfstitch/stitch"

// showsCookie reports whether perf prints the cookie entry of a deferred
// callchain as "(cookie)" for sample s: while the sample is still flagged
// deferred, that is not merged, and not delivered after a cookie mismatch
// (whose recorded chain perf prints as it is). s is nil for the chain of
// a side-band record.
func showsCookie(s *stitch.Sample) bool { return s == nil || s.State != stitch.CookieMismatch }
