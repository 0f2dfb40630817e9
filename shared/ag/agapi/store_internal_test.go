package agapi

import (
	"testing"

	"meridian/shared/ag/agtest"
	"meridian/shared/kv"
)

// demoStore returns the shared store holding the demo agriculture data
// (read-only: tests must not write to it).
func demoStore(t testing.TB) *kv.Mem { return agtest.DemoStore(t) }
