package api

import "sync"

// Buffers keeps the byte buffers answers and log lines are built in: a
// body goes out in one Write, which keeps nothing of it (io.Writer), so
// its buffer serves the next request instead of being allocated and
// cleared again (a 30 KB body's allocation was 7% of an operator's
// dispositions page). A buffer grown past Max is left to the collector,
// so that the pool holds at most Max bytes per buffer whatever a request
// wrote. The zero value with Max set is ready to use.
type Buffers struct {
	Max  int
	pool sync.Pool
}

// Get returns an empty buffer: build in *b, then Put b back.
func (p *Buffers) Get() *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

// Put keeps *b, emptied, for a later Get, unless it grew past Max. Nothing
// may use b afterwards.
func (p *Buffers) Put(b *[]byte) {
	if cap(*b) > p.Max {
		return
	}
	*b = (*b)[:0]
	p.pool.Put(b)
}
