package api

import (
	"io"
	"sync"
	"time"
)

// LogWriter buffers log lines and writes them out in batches: when the
// buffer passes flushBytes, every interval, and on Flush or Close. The
// local server logs one line per request; written one by one, each line
// was a write system call and, on a pipe, a wake-up of the reader, which
// cost more than a search (issue 34: a request's line took 7 to 13% of
// the server's CPU). A line reaches the output at most interval after it
// was logged; a crash loses at most that much (the server flushes on
// shutdown). Lambda functions do not use it: their environment can be
// frozen between invocations with lines still in the buffer.
//
// Memory is bounded: a Write that would take the buffer past maxBytes
// flushes first, so the buffer holds at most maxBytes plus one line.
type LogWriter struct {
	mu     sync.Mutex
	out    io.Writer
	buf    []byte
	err    error // the first write error; later lines are dropped
	closed bool  // after Close every line is written at once
	stop   chan struct{}
	done   chan struct{}
}

const (
	flushBytes = 32 << 10
	maxBytes   = 64 << 10
)

// NewLogWriter buffers lines for out and flushes them every interval
// (100 ms when zero or less) until Close.
func NewLogWriter(out io.Writer, interval time.Duration) *LogWriter {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	w := &LogWriter{out: out, buf: make([]byte, 0, maxBytes), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				w.Flush()
			case <-w.stop:
				return
			}
		}
	}()
	return w
}

// Write adds p (one or more whole lines, as slog's handlers write them) to
// the buffer. It never blocks on the output unless the buffer is full.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if len(w.buf)+len(p) > maxBytes {
		w.flushLocked()
	}
	if len(p) > maxBytes { // a line larger than the buffer goes out alone
		if _, err := w.out.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= flushBytes || w.closed {
		w.flushLocked()
	}
	return len(p), nil
}

// Flush writes out what is buffered and returns the first write error.
func (w *LogWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	return w.err
}

func (w *LogWriter) flushLocked() {
	if len(w.buf) == 0 || w.err != nil {
		return
	}
	_, w.err = w.out.Write(w.buf)
	w.buf = w.buf[:0]
}

// Close stops the periodic flush and flushes what is left. Lines written
// after Close are written out at once.
func (w *LogWriter) Close() error {
	select {
	case <-w.stop:
	default:
		close(w.stop)
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.flushLocked()
	return w.err
}
