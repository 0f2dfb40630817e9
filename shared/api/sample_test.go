package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/internal/syncbuf"
)

// A fake clock and timer for the sampler.
type sampleClock struct {
	now   time.Time
	fired []func()
}

func testSampler(perSecond int) (*lineSampler, *sampleClock, *[]string) {
	c := &sampleClock{now: time.Unix(1_800_000_000, 0)}
	var summaries []string
	s := newLineSampler(perSecond, nil)
	s.now = func() time.Time { return c.now }
	s.after = func(d time.Duration, f func()) {
		if d <= 0 || d > 1100*time.Millisecond {
			panic("summary scheduled " + d.String() + " away")
		}
		c.fired = append(c.fired, f)
	}
	s.summarize = func(sec, count int64, byStatus map[int]int64) {
		b, _ := json.Marshal(byStatus)
		summaries = append(summaries, time.Unix(sec, 0).UTC().Format("15:04:05")+" "+string(b)+" "+time.Duration(count).String())
	}
	return s, c, &summaries
}

// The sampler writes the first lines of a second, then one in
// perSecond, always the 5xx, and sums up each second it left lines out
// of once, when the next second starts or its timer fires.
func TestLineSampler(t *testing.T) {
	s, c, summaries := testSampler(100)
	written := 0
	for i := range 1000 {
		status := 200
		if i%10 == 9 {
			status = 404
		}
		if s.write(c.now.Add(time.Duration(i)*time.Millisecond/2), status) {
			written++
		}
	}
	if !s.write(c.now, 503) || !s.write(c.now, 500) {
		t.Fatal("a 5xx line was left out")
	}
	// 100 first lines, then lines 200, 300, ..., 1000.
	if written != 109 {
		t.Fatalf("%d of 1000 lines written, want 109", written)
	}
	if len(*summaries) != 0 || len(c.fired) != 1 {
		t.Fatalf("before the second ended: %v summaries, %d timers", *summaries, len(c.fired))
	}
	// The next second's first request writes the summary; the timer then
	// finds nothing left to sum up.
	c.now = c.now.Add(time.Second)
	if !s.write(c.now, 200) {
		t.Fatal("the first line of a second was left out")
	}
	c.fired[0]()
	// 891 left out: 900 after the first 100, less 9 written. The 404s are
	// every tenth line; of lines 101-1000 they are 90, less the 9 written
	// (lines 200, 300, ..., 1000): 81.
	if want := []string{"08:00:00 {\"200\":810,\"404\":81} 891ns"}; strings.Join(*summaries, "|") != strings.Join(want, "|") {
		t.Fatalf("summaries %q, want %q", *summaries, want)
	}
	// The rest of that second is busy, then quiet: its timer writes its
	// summary (lines 101-151 of the second, all 429s, left out).
	for range 150 {
		s.write(c.now, 429)
	}
	if len(c.fired) != 2 {
		t.Fatalf("%d timers", len(c.fired))
	}
	c.fired[1]() // early: the second has not ended, try again
	if len(*summaries) != 1 || len(c.fired) != 3 {
		t.Fatalf("an early timer: %q, %d timers", *summaries, len(c.fired))
	}
	c.now = c.now.Add(1010 * time.Millisecond)
	c.fired[2]()
	if got := (*summaries)[len(*summaries)-1]; len(*summaries) != 2 || got != "08:00:01 {\"429\":51} 51ns" {
		t.Fatalf("summaries %q", *summaries)
	}
}

// Through the Middleware: LinesPerSecond bounds the lines written, 0
// writes every one, and the sampler is safe for concurrent requests.
func TestMiddlewareSamplesLines(t *testing.T) {
	for _, tc := range []struct {
		perSecond, min, max int
	}{{0, 400, 400}, {10, 10 + 39, 2*10 + 39}} {
		var buf syncbuf.Buffer
		h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), Options{Logger: NewJSONLogger(&buf, nil), LinesPerSecond: tc.perSecond})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 100 {
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
				}
			})
		}
		wg.Wait()
		lines := bytes.Count(buf.Bytes(), []byte(`"msg":"request"`))
		if lines < tc.min || lines > tc.max {
			t.Errorf("LinesPerSecond %d: %d request lines of 400, want %d to %d", tc.perSecond, lines, tc.min, tc.max)
		}
	}
}
