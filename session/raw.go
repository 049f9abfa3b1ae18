package session

import "github.com/perfstitch/perfstitch/decode"

// rawTap is the stitcher's source when Options.Raw is set: it hands each
// record the decoder delivers, with its bytes, to the callback before the
// stitcher sees it. The stitcher pulls one record at a time and delivers
// what it made of it before pulling the next, so on one goroutine the
// callbacks and the items Next yields come in perf's order.
type rawTap struct {
	rs *decode.Records
	fn func(r decode.Record, raw []byte)
}

func (t *rawTap) Next() bool {
	if !t.rs.Next() {
		return false
	}
	t.fn(t.rs.Record(), t.rs.Raw())
	return true
}

func (t *rawTap) Record() decode.Record { return t.rs.Record() }
func (t *rawTap) Err() error            { return t.rs.Err() }
