package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"meridian/shared/atomicfile"
)

// jobMemoryLimit is the Go runtime's soft memory limit for the long jobs
// (ingest, build-tiles, demo, data) when GOMEMLIMIT is not set:
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

// profileFromEnv starts the profiles the environment asks for:
//   - MERIDIAN_CPUPROFILE=prefix: a CPU profile of the command, written to
//     <prefix>-<command>-<pid>.pprof, so that every child of a scale test
//     writes its own;
//   - MERIDIAN_HEAPPROFILE=prefix: the live heap, written to
//     <prefix>-<command>-<pid>.heap every 20 s and at the end (a long job
//     stopped midway leaves its last one).
//
// It returns the function that stops them and writes them, or nil.
func profileFromEnv(cmd string, stderr io.Writer) func() {
	var stops []func()
	if prefix := os.Getenv("MERIDIAN_CPUPROFILE"); prefix != "" {
		name := fmt.Sprintf("%s-%s-%d.pprof", prefix, cmd, os.Getpid())
		stop, err := startCPUProfile(name)
		if err != nil {
			fmt.Fprintf(stderr, "meridian: MERIDIAN_CPUPROFILE: %v\n", err)
		} else {
			stops = append(stops, stop)
		}
	}
	if prefix := os.Getenv("MERIDIAN_HEAPPROFILE"); prefix != "" {
		name := fmt.Sprintf("%s-%s-%d.heap", prefix, cmd, os.Getpid())
		write := func() {
			if err := writeHeapProfile(name); err != nil {
				fmt.Fprintf(stderr, "meridian: MERIDIAN_HEAPPROFILE: %v\n", err)
			}
		}
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(heapProfileEvery)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					write()
				case <-done:
					return
				}
			}
		}()
		stops = append(stops, func() { close(done); write() })
	}
	if len(stops) == 0 {
		return nil
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// heapProfileEvery is how often MERIDIAN_HEAPPROFILE writes the heap.
const heapProfileEvery = 20 * time.Second

// writeHeapProfile writes the live heap (after a collection) to name,
// through a temporary file so that a reader never sees half of one.
func writeHeapProfile(name string) error {
	runtime.GC()
	f, err := os.CreateTemp(filepath.Dir(name), ".heap-*")
	if err != nil {
		return err
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = atomicfile.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
