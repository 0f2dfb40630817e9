package ingest

import (
	"strings"
	"testing"
)

func TestNoticesCountsDistinctValues(t *testing.T) {
	var ns Notices
	for i := 0; i < 5; i++ {
		ns.Add(Notice{File: "w.csv", Line: 10 + i, Column: "WellStatusMode", Value: "NEWMODE", Reason: "status left unknown"})
	}
	ns.Add(Notice{File: "w.csv", Line: 40, Column: "WellStatusMode", Value: "OTHER", Reason: "status left unknown"})
	if ns.Total() != 6 {
		t.Fatalf("Total = %d, want 6", ns.Total())
	}
	lines := ns.Lines()
	if len(lines) != 2 {
		t.Fatalf("Lines = %q, want 2 distinct", lines)
	}
	if !strings.Contains(lines[0], "w.csv:10:") || !strings.Contains(lines[0], "(5 rows)") {
		t.Errorf("first line %q: want the first occurrence and its count", lines[0])
	}
	var nilNS *Notices
	nilNS.Add(Notice{})
	if nilNS.Total() != 0 || nilNS.Lines() != nil {
		t.Error("a nil *Notices must discard")
	}
}

func TestBadValueNamesEverything(t *testing.T) {
	err := BadValue("ATS_V4_1.SEQ", 4, "point code", "ZZ", []string{"NE", "NW"})
	got := err.Error()
	for _, want := range []string{"ATS_V4_1.SEQ:4", "point code", `"ZZ"`, "NE, NW"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

func TestLayoutBannerSaysGuessed(t *testing.T) {
	l := Layout{Dataset: "SK Crown dispositions", Publisher: "Saskatchewan", Form: "CSV", Evidence: "column names"}
	if !strings.HasPrefix(l.Banner(), "WARNING") || !strings.Contains(l.Banner(), "GUESSED") {
		t.Errorf("guessed banner %q", l.Banner())
	}
	l.Verified = true
	if strings.Contains(l.Banner(), "GUESSED") {
		t.Errorf("verified banner %q", l.Banner())
	}
}
