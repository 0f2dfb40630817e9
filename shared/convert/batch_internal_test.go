package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPlainString checks the batch's fast path against json.Unmarshal: it
// takes the plain strings, and leaves escapes, non-ASCII and non-strings to
// json.
func TestPlainString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw    string
		wantOK bool
	}{
		{`"NW-25-24-1-W5"`, true},
		{`""`, true},
		{`"A-2-F/93-P-11"`, true},
		{`"NW\u002d25"`, false},
		{`"a\"b"`, false},
		{`"é"`, false},
		{"\"\xff\"", false},
		{"\"a\tb\"", false},
		{`12`, false},
		{`null`, false},
		{`"`, false},
		{`["x"]`, false},
	} {
		got, ok := plainString([]byte(tc.raw))
		if ok != tc.wantOK {
			t.Errorf("plainString(%s) ok = %v, want %v", tc.raw, ok, tc.wantOK)
			continue
		}
		if !ok {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(tc.raw), &want); err != nil || got != want {
			t.Errorf("plainString(%s) = %q; json.Unmarshal = %q, %v", tc.raw, got, want, err)
		}
	}
}

// FuzzPlainString: whatever plainString accepts, json.Unmarshal reads as
// the same string.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"NW-25-24-1-W5"`, `"a\"b"`, `"é"`, "\"\xff\"", `12`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := plainString(raw)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil || got != want {
			t.Fatalf("plainString(%q) = %q; json.Unmarshal = %q, %v", raw, got, want, err)
		}
	})
}

// eachConcurrently calls fn once for every index, whatever the number of
// workers, including fewer items than a worker's minimum.
func TestEachConcurrently(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 7, 8, 16, 100, 1000} {
		for _, workers := range []int{0, 1, 2, 8, 200} {
			seen := make([]atomic.Int32, n)
			eachConcurrently(n, workers, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n %d, workers %d: index %d called %d times", n, workers, i, c)
				}
			}
		}
	}
}

// batchWorkers keeps at least minPerWorker locations a goroutine by
// default, and takes a BatchWorkers set (a Lambda waiting on S3) as it is.
func TestBatchWorkers(t *testing.T) {
	t.Parallel()
	h := &Handler{}
	if got, want := h.batchWorkers(100), min(runtime.GOMAXPROCS(0), 100/minPerWorker); got != want {
		t.Errorf("default, 100 locations: %d workers, want %d", got, want)
	}
	if got := h.batchWorkers(minPerWorker - 1); got > 1 {
		t.Errorf("default, %d locations: %d workers, want one", minPerWorker-1, got)
	}
	h.BatchWorkers = MaxBatch
	if got := h.batchWorkers(100); got != MaxBatch {
		t.Errorf("BatchWorkers %d, 100 locations: %d workers", MaxBatch, got)
	}
}

// With as many workers as locations, every lookup is under way before any
// returns: a batch on S3 waits on one round of reads, not on eight.
func TestEachConcurrentlyAllAtOnce(t *testing.T) {
	t.Parallel()
	const n = 50
	var started sync.WaitGroup
	started.Add(n)
	done := make(chan struct{})
	go func() {
		eachConcurrently(n, n, func(int) { started.Done(); started.Wait() })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a lookup waiting on one not started: never done
		t.Fatal("with as many workers as items, the items did not all run at once")
	}
}

// plainArray splits the bodies batches send, and leaves every other body
// to json.
func TestPlainArray(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want []string // nil: not plain
	}{
		{`["NW-25-24-1-W5","10-36-42-3-W5"]`, []string{`"NW-25-24-1-W5"`, `"10-36-42-3-W5"`}},
		{" [ \"a\" ,\n\t\"b\" ] \r\n", []string{`"a"`, `"b"`}},
		{`[]`, []string{}},
		{` [ ] `, []string{}},
		{`[""]`, []string{`""`}},
		{`null`, nil},
		{`["a",]`, nil},
		{`["a" "b"]`, nil},
		{`["a"]x`, nil},
		{`["a"`, nil},
		{`["a\"b"]`, nil},
		{`["é"]`, nil},
		{`[1]`, nil},
		{`{"a":1}`, nil},
		{`[`, nil},
		{``, nil},
	} {
		got, ok := plainArray([]byte(tc.body))
		if ok != (tc.want != nil) {
			t.Errorf("plainArray(%q): ok %v", tc.body, ok)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("plainArray(%q) = %q, want %q", tc.body, got, tc.want)
			continue
		}
		for i := range got {
			if string(got[i]) != tc.want[i] {
				t.Errorf("plainArray(%q)[%d] = %s, want %s", tc.body, i, got[i], tc.want[i])
			}
		}
	}
}

// FuzzPlainArray: whatever plainArray accepts, json.Unmarshal reads as the
// same items.
func FuzzPlainArray(f *testing.F) {
	for _, s := range []string{`["NW-25-24-1-W5", "10-36-42-3-W5"]`, `[]`, `["a\"b"]`, `[1,"a"]`, ` ["a"] `, `["a",]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := plainArray(body)
		if !ok {
			return
		}
		var want []json.RawMessage
		if err := json.Unmarshal(body, &want); err != nil || want == nil || len(got) != len(want) {
			t.Fatalf("plainArray(%q) = %q; json.Unmarshal = %q, %v", body, got, want, err)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("plainArray(%q)[%d] = %s; json.Unmarshal: %s", body, i, got[i], want[i])
			}
		}
	})
}

// Batches are resolved as many at a time as there are cores, the others
// waiting their turn; a request given up while waiting leaves; on Lambda
// (BatchWorkers set) nothing waits.
func TestAdmitBatch(t *testing.T) {
	h := NewHandler(nil)
	r := httptest.NewRequest("POST", "/batch/legal-location", nil)
	var held []func()
	for range runtime.GOMAXPROCS(0) {
		release, err := h.admitBatch(r)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	admitted := make(chan struct{})
	go func() {
		release, err := h.admitBatch(r)
		if err == nil {
			release()
		}
		close(admitted)
	}()
	select {
	case <-admitted:
		t.Fatal("a batch past the cores' number was admitted at once")
	case <-time.After(50 * time.Millisecond):
	}
	held[0]()
	<-admitted // admitted once a slot is free (a hang fails the test's timeout)
	if held[0], _ = h.admitBatch(r); held[0] == nil {
		t.Fatal("the freed slot was not given")
	}
	// Every slot taken: a request given up while waiting gets its error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.admitBatch(r.WithContext(ctx)); err == nil {
		t.Error("a canceled request was admitted with every slot taken")
	}
	for _, release := range held {
		release()
	}
	h.BatchWorkers = 100
	for range 3 * runtime.GOMAXPROCS(0) {
		if _, err := h.admitBatch(r); err != nil {
			t.Fatal(err)
		}
	}
}
