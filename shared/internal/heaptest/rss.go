package heaptest

import (
	"os"
	"strconv"
	"strings"
)

// RssFile returns this process's file-backed resident memory in bytes
// (RssFile in /proc/self/status: mapped files, such as a bbolt store's
// pages). ok is false where /proc does not give it.
func RssFile() (bytes int64, ok bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "RssFile:"); found {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
