package ingest

import (
	"fmt"
	"strings"
	"sync"
)

// Layout is a file layout as a publisher ships it, as one reader
// recognises it. Every reader declares the layouts it reads, so that
// `meridian ingest … -check` can say, per file, what it took the file to
// be and how sure the team is of that layout.
type Layout struct {
	Dataset   string // the product: "AltaLIS ATS v4.1 coordinates"
	Publisher string // "AltaLIS"
	Form      string // this form of it: "ATS_V4_1.SEQ fixed-width text"
	// Verified is true when docs/real-layouts.md holds evidence of the
	// real layout (a service field list, a data dictionary, a script that
	// reads the real file) and the reader follows it.
	Verified bool
	// Evidence says where that evidence is, or, for a guessed layout,
	// what a user must check in a real download before trusting the
	// result.
	Evidence string
}

// Status is "verified" or "guessed".
func (l Layout) Status() string {
	if l.Verified {
		return "verified"
	}
	return "guessed"
}

// Banner is the line an ingest prints first for a file of this layout:
// a guessed layout says so and names what to check.
func (l Layout) Banner() string {
	if l.Verified {
		return fmt.Sprintf("%s (%s), %s: layout verified (%s)", l.Dataset, l.Publisher, l.Form, l.Evidence)
	}
	return fmt.Sprintf("WARNING %s (%s), %s: layout GUESSED, no real file seen; check: %s", l.Dataset, l.Publisher, l.Form, l.Evidence)
}

// BadValue is the error for a value a reader cannot place: it names the
// file, line, column, the value and the values accepted.
func BadValue(file string, line int, column, value string, accepted []string) *Error {
	return &Error{File: file, Line: line, Reason: fmt.Sprintf("column %s: value %q is not one of %s", column, value, strings.Join(accepted, ", "))}
}

// Notice is a value a reader had not seen before but could still place
// safely (a new status word, say): reported and counted, not fatal. A
// notice without a Column is a row the table skipped (an empty row, a
// note after the records, a feature whose geometry is invalid): Value
// says what it was and Reason why.
type Notice struct {
	File   string
	Line   int
	Column string
	Value  string
	Reason string // what the reader did with it: "kept as given", "status left unknown"
}

func (n Notice) String() string {
	if n.Column == "" {
		// A row or feature the reader skipped: Value says what it was.
		return fmt.Sprintf("%s:%d: skipped %s: %s", n.File, n.Line, n.Value, n.Reason)
	}
	return fmt.Sprintf("%s:%d: column %s: new value %q: %s", n.File, n.Line, n.Column, n.Value, n.Reason)
}

// Notices collects the notices of one ingest. It keeps the first few of
// each (column, value) pair and counts them all, so its memory is bounded
// by the number of distinct new values, not by the file. A nil *Notices
// discards everything; it is safe for concurrent use.
type Notices struct {
	mu    sync.Mutex
	order []string
	seen  map[string]*noticeCount
	total int
}

type noticeCount struct {
	first Notice
	count int
}

// Add records a notice.
func (ns *Notices) Add(n Notice) {
	if ns == nil {
		return
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	ns.total++
	k := n.File + "\x00" + n.Column + "\x00" + n.Value
	if c, ok := ns.seen[k]; ok {
		c.count++
		return
	}
	if ns.seen == nil {
		ns.seen = make(map[string]*noticeCount)
	}
	ns.seen[k] = &noticeCount{first: n, count: 1}
	ns.order = append(ns.order, k)
}

// Total is how many notices were added.
func (ns *Notices) Total() int {
	if ns == nil {
		return 0
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.total
}

// Lines describes each distinct notice, first seen first, with how many
// times it occurred.
func (ns *Notices) Lines() []string {
	if ns == nil {
		return nil
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	out := make([]string, 0, len(ns.order))
	for _, k := range ns.order {
		c := ns.seen[k]
		out = append(out, fmt.Sprintf("%s (%d rows)", c.first, c.count))
	}
	return out
}
