package stitch

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
)

// fill sets every field reachable in v to a non-zero value, in place;
// empty slices get two elements.
func fill(v reflect.Value, n *uint64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fill(v.Index(i), n)
		}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		*n++
		v.SetUint(*n)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		*n++
		v.SetInt(int64(*n))
	case reflect.String:
		*n++
		v.SetString("s")
	}
}

// TestCopySampleDeep fails when decode.Sample gains a slice field that
// Sample.CopyTo (with which the stitcher holds samples) does not copy: a
// held sample would then share storage with the source cursor.
func TestCopySampleDeep(t *testing.T) {
	var src decode.Sample
	var n uint64
	fill(reflect.ValueOf(&src).Elem(), &n)
	src.Attr = nil
	want := *src.Clone().(*decode.Sample)

	var dst decode.Sample
	(&decode.Sample{Callchain: []uint64{9, 9, 9, 9}}).CopyTo(&dst) // give dst storage to reuse
	src.CopyTo(&dst)
	var m uint64 = 1000
	fill(reflect.ValueOf(&src).Elem(), &m) // overwrite the source in place
	if diff := cmp.Diff(want, dst); diff != "" {
		t.Errorf("copy shares storage with its source (-want +got):\n%s", diff)
	}
}
