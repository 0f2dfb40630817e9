// Command meridian-bench is Meridian's measurement harness, a development
// command kept out of the server binary: it drives a built meridian binary
// (-meridian, .build/meridian by default) as child processes and measures
// them from outside.
//
//	meridian-bench scale  the whole data path at the demo and the published size (make scale-test)
//	meridian-bench load   requests per second and latency of a server (make loadtest)
//	meridian-bench tiles  tiles per second of a server, beside pmtiles serve (make bench-tiles)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: meridian-bench <command> [flags]

commands:
  scale   generate, ingest, build, serve and load the demo and the province-size data; one table
  load    requests per second and p99 latency of a server, as a fraction of a hello-world handler
  tiles   tiles per second of a server on a PMTiles archive, beside pmtiles serve on the same archive

Every command runs the meridian binary named by -meridian (default
.build/meridian: go build -o .build/meridian ./functions/local).
Run 'meridian-bench <command> -h' for its flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "scale":
		return scaleCommand(args, stdout, stderr)
	case "load":
		return loadCommand(args, stdout, stderr)
	case "tiles":
		return tilesCommand(args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "meridian-bench: unknown command %q\n\n%s", cmd, usage)
	return 2
}

// meridianFlag registers -meridian on fs: the binary whose commands are
// measured.
func meridianFlag(fs *flag.FlagSet) *string {
	return fs.String("meridian", ".build/meridian", "the meridian binary to run (go build -o .build/meridian ./functions/local)")
}
