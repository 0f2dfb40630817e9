//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKiB is a finished process's largest resident set in KiB.
func maxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss / 1024 // bytes there
	}
	return ru.Maxrss
}
