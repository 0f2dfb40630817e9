// Package ingest reads the real public datasets behind Meridian — official
// survey grids (AltaLIS ATS, Manitoba Original Survey, Saskatchewan grid,
// Ontario lot fabric) and, later, the report datasets — in their published
// formats, streaming, and turns them into grid index records and report
// store records. A bad file is rejected whole: every reader returns an
// *Error naming the file, the line (or record) and the reason.
package ingest

import "fmt"

// Error is a problem in an input file.
type Error struct {
	File   string // base name of the file
	Line   int    // 1-based line, or record number for binary formats; 0 when not known
	Reason string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// Errorf returns an *Error for file and line.
func Errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Reason: fmt.Sprintf(format, args...)}
}
