package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingWriter records each Write it is given.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	buf    bytes.Buffer
	err    error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.writes++
	return c.buf.Write(p)
}

func (c *countingWriter) snapshot() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes, c.buf.String()
}

// TestLogWriterBatches: many lines reach the output whole, in order, in
// far fewer writes than lines, and nothing is lost at Close.
func TestLogWriterBatches(t *testing.T) {
	out := &countingWriter{}
	w := NewLogWriter(out, time.Hour) // only size and Close flush here
	var want strings.Builder
	for i := range 5000 {
		line := fmt.Sprintf(`{"msg":"request","n":%d}`+"\n", i)
		want.WriteString(line)
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	writes, got := out.snapshot()
	if got != want.String() {
		t.Fatalf("output differs from the lines written (%d against %d bytes)", len(got), want.Len())
	}
	if maxWrites := want.Len()/flushBytes + 2; writes > maxWrites {
		t.Errorf("%d writes for %d bytes, want at most %d", writes, want.Len(), maxWrites)
	}
	// After Close a line goes out at once.
	w.Write([]byte("late\n"))
	if _, got := out.snapshot(); !strings.HasSuffix(got, "late\n") {
		t.Error("a line written after Close was not written out")
	}
}

// TestLogWriterInterval: a lone line is written out by the periodic flush,
// without Close.
func TestLogWriterInterval(t *testing.T) {
	out := &countingWriter{}
	w := NewLogWriter(out, time.Millisecond)
	defer w.Close()
	w.Write([]byte("one\n"))
	// Usually a millisecond; the deadline only stops a hang (a loaded
	// machine can starve the flush for seconds).
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, got := out.snapshot(); got == "one\n" {
			return
		}
	}
	t.Fatal("the periodic flush did not write the line within a minute")
}

// TestLogWriterBounds: a line larger than the buffer goes out alone and
// whole; the buffer never grows past its bound; a write error is kept.
func TestLogWriterBounds(t *testing.T) {
	out := &countingWriter{}
	w := NewLogWriter(out, time.Hour)
	w.Write([]byte("a\n"))
	big := bytes.Repeat([]byte("x"), maxBytes+10)
	if n, err := w.Write(big); err != nil || n != len(big) {
		t.Fatalf("big line: %d, %v", n, err)
	}
	if cap(w.buf) > maxBytes {
		t.Errorf("buffer grew to %d bytes, bound %d", cap(w.buf), maxBytes)
	}
	if _, got := out.snapshot(); got != "a\n"+string(big) {
		t.Errorf("got %d bytes, want the first line then the big one", len(got))
	}
	out.mu.Lock()
	out.err = errors.New("disk full")
	out.mu.Unlock()
	w.Write([]byte("b\n"))
	if err := w.Flush(); err == nil {
		t.Error("Flush hid the write error")
	}
	if _, err := w.Write([]byte("c\n")); err == nil {
		t.Error("Write after a failed flush reported no error")
	}
	w.Close()
}

// TestJSONLoggerRequestLine: the Middleware's request line through
// NewJSONLogger's fast path is the JSON object slog's own handler writes
// (same keys, values and order), for plain and escaped strings, numbers
// and an annotated value of another kind.
func TestJSONLoggerRequestLine(t *testing.T) {
	attrs := []slog.Attr{
		slog.String("request_id", "abc"), slog.String("method", "GET"), slog.String("route", `GET /x/{id} "q" é`),
		slog.Int("status", 404), slog.Float64("duration_ms", 0.125), slog.String("code", "not_found"),
		slog.Any("key_id", []string{"k1"}), slog.Bool("cached", true),
	}
	var fast, std bytes.Buffer
	NewJSONLogger(&fast, nil).Handler().(*jsonHandler).requestLine(slog.LevelInfo, "request", attrs)
	slog.New(slog.NewJSONHandler(&std, nil)).LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
	var a, b map[string]any
	if err := json.Unmarshal(fast.Bytes(), &a); err != nil {
		t.Fatalf("fast line is not JSON: %v: %s", err, fast.String())
	}
	json.Unmarshal(std.Bytes(), &b)
	if _, err := time.Parse(time.RFC3339Nano, a["time"].(string)); err != nil {
		t.Errorf("time %q: %v", a["time"], err)
	}
	delete(a, "time")
	delete(b, "time")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("fast line\n%v\nslog's\n%v", a, b)
	}
	keys := func(s string) []string {
		var out []string
		d := json.NewDecoder(strings.NewReader(s))
		d.Token()
		for d.More() {
			k, _ := d.Token()
			out = append(out, k.(string))
			var v any
			d.Decode(&v)
		}
		return out
	}
	if ka, kb := keys(fast.String()), keys(std.String()); !reflect.DeepEqual(ka, kb) {
		t.Errorf("key order %v, slog's %v", ka, kb)
	}
	// Below the level nothing is written.
	var quiet bytes.Buffer
	if NewJSONLogger(&quiet, slog.LevelWarn).Handler().(*jsonHandler).requestLine(slog.LevelInfo, "request", attrs) || quiet.Len() > 0 {
		t.Error("an Info line was written at level Warn")
	}
}
