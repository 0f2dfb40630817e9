package heaptest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// RssFile returns this process's file-backed resident memory in bytes
// (RssFile in /proc/self/status: mapped files, such as a bbolt store's
// pages), and skips t where /proc does not give it.
func RssFile(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(line, "RssFile:"); found {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err == nil {
					return kb << 10
				}
				break
			}
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}
