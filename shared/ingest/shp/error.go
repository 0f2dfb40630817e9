package shp

import "fmt"

// FormatError reports malformed input.
type FormatError struct {
	File   string // "shp" or "dbf"
	Record int    // 1-based record number; 0 for the file header
	Msg    string // what is wrong
}

func (e *FormatError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("shp: .%s header: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("shp: .%s record %d: %s", e.File, e.Record, e.Msg)
}

func shpError(record int, format string, args ...any) error {
	return &FormatError{File: "shp", Record: record, Msg: fmt.Sprintf(format, args...)}
}

func dbfError(record int, format string, args ...any) error {
	return &FormatError{File: "dbf", Record: record, Msg: fmt.Sprintf(format, args...)}
}
