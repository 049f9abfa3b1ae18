package output

import "io"

// asyncWriter is a double-buffered writer: Write fills one buffer while a
// goroutine writes the previous one to the destination, so formatting and
// the write system calls overlap. The goroutine starts with the first full
// buffer (small outputs never start it) and Flush joins it; every error of
// the destination is returned by the next Write or by Flush.
// A written buffer comes back on free with the goroutine's error so far.
type asyncWriter struct {
	w    io.Writer
	size int
	cur  []byte
	err  error // sticky error seen by the caller

	running  bool
	full     chan []byte  // buffers to write
	free     chan written // written buffers
	done     chan struct{}
	inflight int
	spare    []byte
}

// written is a buffer handed back by the writing goroutine, with the first
// error it met so far.
type written struct {
	b   []byte
	err error
}

func newAsyncWriter(w io.Writer, size int) *asyncWriter {
	return &asyncWriter{w: w, size: size, cur: make([]byte, 0, size)}
}

// Write buffers p.
func (a *asyncWriter) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n := len(p)
	for len(p) > 0 {
		room := a.size - len(a.cur)
		if room == 0 {
			if err := a.handOff(); err != nil {
				return n - len(p), err
			}
			continue
		}
		k := min(room, len(p))
		a.cur = append(a.cur, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// buffer returns the buffer to append output to directly, saving the copy
// of Write; the caller must give the result back to commit before any
// other call.
func (a *asyncWriter) buffer() []byte { return a.cur }

// commit takes back the buffer from buffer with output appended, and hands
// it to the writing goroutine once it holds size bytes or more.
func (a *asyncWriter) commit(b []byte) error {
	a.cur = b
	if a.err != nil {
		a.cur = a.cur[:0]
		return a.err
	}
	if len(a.cur) >= a.size {
		return a.handOff()
	}
	return nil
}

// handOff gives the full buffer to the writing goroutine and takes an
// empty one.
func (a *asyncWriter) handOff() error {
	if !a.running {
		a.running = true
		a.full = make(chan []byte, 1)
		a.free = make(chan written, 2)
		a.done = make(chan struct{})
		if a.spare == nil {
			a.spare = make([]byte, 0, a.size)
		}
		go a.loop(a.full, a.free, a.done)
	}
	a.full <- a.cur
	a.inflight++
	if a.spare != nil {
		a.cur, a.spare = a.spare[:0], nil
		return nil
	}
	r := <-a.free
	a.inflight--
	a.cur = r.b[:0]
	if r.err != nil {
		a.err = r.err
	}
	return a.err
}

func (a *asyncWriter) loop(full <-chan []byte, free chan<- written, done chan<- struct{}) {
	var err error
	for b := range full {
		if err == nil {
			_, err = a.w.Write(b)
		}
		free <- written{b, err}
	}
	close(done)
}

// Flush writes everything buffered and stops the goroutine.
func (a *asyncWriter) Flush() error {
	if !a.running {
		if len(a.cur) > 0 && a.err == nil {
			_, a.err = a.w.Write(a.cur)
		}
		a.cur = a.cur[:0]
		return a.err
	}
	if len(a.cur) > 0 {
		a.full <- a.cur
		a.inflight++
		a.cur = nil
	}
	close(a.full)
	for ; a.inflight > 0; a.inflight-- {
		r := <-a.free
		if r.err != nil && a.err == nil {
			a.err = r.err
		}
		if a.cur == nil {
			a.cur = r.b[:0]
		} else {
			a.spare = r.b[:0]
		}
	}
	<-a.done
	a.running = false
	if a.cur == nil {
		a.cur = make([]byte, 0, a.size)
	}
	return a.err
}
