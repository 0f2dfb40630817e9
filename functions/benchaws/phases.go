package main

import (
	"slices"
	"time"
)

// coldPhases splits a cold start, from the invocation sent to the answer
// read, by what the function was doing as seen from the latency proxies:
//
//   - before its first S3 or DynamoDB request: the emulator starting the
//     runtime process, Go's package initialisation, reading the
//     environment and loading the AWS SDK's configuration;
//   - with at least one request in flight (the latency paid: the fewer
//     sequential round trips, the less);
//   - between its first request and its last response with none in
//     flight: work done between round trips made one after another
//     (decoding an index root, opening the next thing);
//   - after its last response: the first request's own work and the
//     answer's way back.
type coldPhases struct {
	ToFirstIO time.Duration
	IOBusy    time.Duration
	IOGaps    time.Duration
	AfterIO   time.Duration
}

// splitCold splits the cold start [t0, done] by the spans of the requests
// made meanwhile (those of every proxy, in any order). Without requests,
// the whole of it is before the first.
func splitCold(t0, done time.Time, spans []span) coldPhases {
	if len(spans) == 0 {
		return coldPhases{ToFirstIO: done.Sub(t0)}
	}
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b span) int { return a.start.Compare(b.start) })
	var busy time.Duration
	curStart, curEnd := s[0].start, s[0].end
	for _, x := range s[1:] {
		if x.start.After(curEnd) {
			busy += curEnd.Sub(curStart)
			curStart, curEnd = x.start, x.end
		} else if x.end.After(curEnd) {
			curEnd = x.end
		}
	}
	busy += curEnd.Sub(curStart)
	last := s[0].end
	for _, x := range s {
		if x.end.After(last) {
			last = x.end
		}
	}
	first := s[0].start
	return coldPhases{
		ToFirstIO: first.Sub(t0),
		IOBusy:    busy,
		IOGaps:    last.Sub(first) - busy,
		AfterIO:   done.Sub(last),
	}
}
