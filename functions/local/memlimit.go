package main

import (
	"os"
	"runtime/debug"
)

// jobMemoryLimit is the Go runtime's soft memory limit for the long jobs
// (ingest, build-tiles, demo, publish, data) when GOMEMLIMIT is not set:
// the collector then works harder as the heap nears it instead of letting
// it grow to twice what is live (GOGC=100). It is a target, not a cap: a
// job whose live data is larger goes past it, slower. 1 GiB keeps a
// province-size job with a few hundred MB live well under the 1.5 GB bound
// of make scale-test.
const jobMemoryLimit = 1 << 30

// limitJobMemory sets jobMemoryLimit unless GOMEMLIMIT says otherwise.
func limitJobMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(jobMemoryLimit)
	}
}
