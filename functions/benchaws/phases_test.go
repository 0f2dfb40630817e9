package main

import (
	"testing"
	"time"
)

func TestSplitCold(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }

	// No requests: all of it before the first.
	if got := splitCold(t0, at(120), nil); got != (coldPhases{ToFirstIO: ms(120)}) {
		t.Errorf("no requests: %+v", got)
	}
	// A manifest read, then two index opens side by side (overlapping,
	// given out of order), a gap, one page read, then the answer.
	spans := []span{
		{at(110), at(150), "an open"},
		{at(100), at(122), "the manifest"},
		{at(125), at(147), "the other open, overlapping the first"},
		{at(160), at(181), "a page"},
	}
	got := splitCold(t0, at(200), spans)
	want := coldPhases{ToFirstIO: ms(100), IOBusy: ms(50 + 21), IOGaps: ms(10), AfterIO: ms(19)}
	if got != want {
		t.Errorf("splitCold = %+v, want %+v", got, want)
	}
	if sum := got.ToFirstIO + got.IOBusy + got.IOGaps + got.AfterIO; sum != ms(200) {
		t.Errorf("phases add up to %v, want the whole 200ms", sum)
	}
}
