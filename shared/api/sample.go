package api

import (
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
)

// lineSampler bounds the request lines a Middleware writes a second, as
// high-rate Go loggers do by default: the first perSecond lines of each
// second are written, past them one in perSecond, and the others are
// counted. A second that left lines out gets one line of its own,
// "requests not logged", with their count by status, written when the
// next second's first request is, or one second after its end at the
// latest. Answers of 500 and above are always written. Under a load of
// 50,000 searches a second, a line each was what a reader of the server's
// output (a terminal, a log shipper) had to take in, beside the server.
type lineSampler struct {
	perSecond int64
	after     func(d time.Duration, f func()) // time.AfterFunc; tests replace it
	now       func() time.Time
	summarize func(sec int64, count int64, byStatus map[int]int64)

	mu      sync.Mutex
	sec     int64         // the second counted
	lines   int64         // request lines of sec, written or not
	left    map[int]int64 // lines of sec left out, by status
	pending bool          // a summary of sec is scheduled
}

func newLineSampler(perSecond int, logger *slog.Logger) *lineSampler {
	s := &lineSampler{perSecond: int64(perSecond), after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }, now: time.Now,
		left: map[int]int64{}}
	s.summarize = func(sec, count int64, byStatus map[int]int64) {
		attrs := make([]any, 0, len(byStatus))
		for _, st := range slices.Sorted(maps.Keys(byStatus)) {
			attrs = append(attrs, slog.Int64(strconv.Itoa(st), byStatus[st]))
		}
		logger.Info("requests not logged", "second", time.Unix(sec, 0).UTC().Format(time.RFC3339), "count", count,
			slog.Group("by_status", attrs...))
	}
	return s
}

// write reports whether the line of a request that started at t and was
// answered with status is written.
func (s *lineSampler) write(t time.Time, status int) bool {
	if status >= 500 {
		return true
	}
	sec := t.Unix()
	s.mu.Lock()
	defer s.mu.Unlock()
	if sec > s.sec {
		s.summaryLocked()
		s.sec, s.lines = sec, 0
	}
	s.lines++
	if s.lines <= s.perSecond || s.lines%s.perSecond == 0 {
		return true
	}
	s.left[status]++
	if !s.pending {
		s.pending = true
		s.after(time.Unix(sec+1, 0).Sub(s.now())+10*time.Millisecond, s.tick)
	}
	return false
}

// tick writes the summary of a second that has ended.
func (s *lineSampler) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = false
	if s.now().Unix() > s.sec {
		s.summaryLocked()
		return
	}
	if len(s.left) > 0 { // the clock was early: try again
		s.pending = true
		s.after(time.Unix(s.sec+1, 0).Sub(s.now())+10*time.Millisecond, s.tick)
	}
}

func (s *lineSampler) summaryLocked() {
	if len(s.left) == 0 {
		return
	}
	var n int64
	for _, c := range s.left {
		n += c
	}
	s.summarize(s.sec, n, s.left)
	s.left = map[int]int64{}
}
