package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimitJobMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	limitJobMemory()
	if got := debug.SetMemoryLimit(-1); got != jobMemoryLimit {
		t.Errorf("without GOMEMLIMIT the limit is %d, want %d", got, jobMemoryLimit)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "3GiB")
	limitJobMemory()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limitJobMemory changed the limit to %d", got)
	}
}
