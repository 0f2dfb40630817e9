//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS returns the peak resident memory of an exited process, in bytes
// (getrusage's ru_maxrss, kilobytes on Linux), 0 when unknown.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}
