package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
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

// profileFromEnv starts a CPU profile of the command when
// MERIDIAN_CPUPROFILE names a file prefix: the profile goes to
// <prefix>-<command>-<pid>.pprof, so that every child of a scale test
// writes its own. It returns the function that stops and writes it, or
// nil.
func profileFromEnv(cmd string, stderr io.Writer) func() {
	prefix := os.Getenv("MERIDIAN_CPUPROFILE")
	if prefix == "" {
		return nil
	}
	name := fmt.Sprintf("%s-%s-%d.pprof", prefix, cmd, os.Getpid())
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "meridian: MERIDIAN_CPUPROFILE: %v\n", err)
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
