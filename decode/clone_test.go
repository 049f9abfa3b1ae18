package decode_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestCopyToKeepsNil checks that CopyTo, like Clone, leaves dst's slices
// nil where the source's are, even when dst has storage to reuse, and
// copies the others.
func TestCopyToKeepsNil(t *testing.T) {
	full := decode.Sample{Callchain: []uint64{1, 2}, Raw: []byte{3}, RegsUser: []uint64{4}, Aux: []byte{5}}
	for _, src := range []decode.Sample{{}, {Callchain: []uint64{7}}, full} {
		var dst decode.Sample
		full.CopyTo(&dst) // storage to reuse
		src.CopyTo(&dst)
		want := src.Clone().(*decode.Sample)
		if (dst.Callchain == nil) != (want.Callchain == nil) || (dst.Raw == nil) != (want.Raw == nil) ||
			(dst.RegsUser == nil) != (want.RegsUser == nil) || (dst.Aux == nil) != (want.Aux == nil) {
			t.Errorf("CopyTo of %+v: %+v, want %+v", src, dst, *want)
		}
		if !slices.Equal(dst.Callchain, src.Callchain) || !bytes.Equal(dst.Raw, src.Raw) {
			t.Errorf("CopyTo of %+v: %+v", src, dst)
		}
	}
}
