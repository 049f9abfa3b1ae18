package output

import (
	"bytes"
	"errors"
	"testing"
)

// failAfter accepts n bytes, then fails.
type failAfter struct {
	bytes.Buffer
	n int
}

var errBroken = errors.New("broken")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.Len()+len(p) > w.n {
		return 0, errBroken
	}
	return w.Buffer.Write(p)
}

func TestAsyncWriter(t *testing.T) {
	var want bytes.Buffer
	for i := 0; i < 5000; i++ {
		want.WriteString("line of output number ")
		want.WriteByte(byte('0' + i%10))
		want.WriteByte('\n')
	}
	for _, size := range []int{7, 64, 4096, 1 << 20} {
		var got bytes.Buffer
		a := newAsyncWriter(&got, size)
		data := want.Bytes()
		for len(data) > 0 {
			k := min(len(data), 13)
			if n, err := a.Write(data[:k]); n != k || err != nil {
				t.Fatalf("size %d: Write = %d, %v", size, n, err)
			}
			data = data[k:]
		}
		if err := a.Flush(); err != nil {
			t.Fatal(err)
		}
		// Reusable after Flush.
		a.Write([]byte("tail\n"))
		if err := a.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String()+"tail\n" {
			t.Errorf("size %d: output differs (%d bytes, want %d)", size, got.Len(), want.Len()+5)
		}
	}
	// Errors stick and surface from Write or Flush.
	w := &failAfter{n: 1000}
	a := newAsyncWriter(w, 64)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		_, err = a.Write([]byte("0123456789"))
	}
	if ferr := a.Flush(); !errors.Is(err, errBroken) && !errors.Is(ferr, errBroken) {
		t.Errorf("write error lost: Write %v, Flush %v", err, ferr)
	}
}

// TestAsyncWriterCommit checks the append-in-place path (buffer/commit),
// mixed with Write, across hand-offs, and that an error sticks.
func TestAsyncWriterCommit(t *testing.T) {
	for _, size := range []int{7, 64, 4096, 1 << 20} {
		var want, got bytes.Buffer
		a := newAsyncWriter(&got, size)
		for i := range 3000 {
			line := []byte("sample line " + string(rune('a'+i%26)) + "\n")
			want.Write(line)
			if i%3 == 0 {
				if _, err := a.Write(line); err != nil {
					t.Fatalf("size %d: Write: %v", size, err)
				}
				continue
			}
			if err := a.commit(append(a.buffer(), line...)); err != nil {
				t.Fatalf("size %d: commit: %v", size, err)
			}
		}
		if err := a.Flush(); err != nil {
			t.Fatalf("size %d: Flush: %v", size, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("size %d: output differs (%d bytes, want %d)", size, got.Len(), want.Len())
		}
	}
	w := &failAfter{n: 100}
	a := newAsyncWriter(w, 64)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = a.commit(append(a.buffer(), "0123456789\n"...))
	}
	if err == nil {
		err = a.Flush()
	}
	if !errors.Is(err, errBroken) {
		t.Errorf("error = %v, want %v", err, errBroken)
	}
}
