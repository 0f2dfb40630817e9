// Command meridian is the local Meridian: every endpoint group on one
// process with embedded data, and the operator's tools.
//
//	meridian [serve]   run the server (the default)
//	meridian keys      add, list and revoke API keys
//	meridian ingest    build official grid indexes from the published files
//	meridian build-tiles  build PMTiles archives of the survey grid layers
//	meridian data      fetch the official datasets and ingest what changed
//	meridian convert   convert a CSV of legal land descriptions or coordinates
//	meridian openapi   print the OpenAPI document of the routes
//	meridian demo      write invented data in the real layouts (demo or province size)
//
// Publishing the data into an AWS deployment is a command of its own,
// meridian-publish (functions/publish), so that this binary links no AWS SDK;
// so is the measurement harness (scale test, load test, tile load),
// meridian-bench (functions/bench), which runs this binary as child
// processes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"meridian/shared/datadir"
)

const usage = `usage: meridian <command> [flags]

commands:
  serve     run the local server (default)
  keys      add, list and revoke API keys: meridian keys add|list|revoke
  ingest    build an official grid index: meridian ingest grid -format ats|mb|sk|on FILE...
            or load report data: meridian ingest energy|ag [-demo] DIR
            -check first: what each file is and what is wrong, publishing nothing
  build-tiles  build PMTiles archives of survey grid layers: meridian build-tiles ab/twp ab/sec
  data      download the official datasets, check and ingest what changed: meridian data fetch|list
  convert   convert a CSV of legal land descriptions or coordinates to CSV or GeoJSON
  openapi   print the OpenAPI document of the server's routes: meridian openapi [-o FILE]
  demo      write invented data in the real layouts: meridian demo [-scale province] [grid|energy|ag]

Run 'meridian <command> -h' for the flags of a command. Publishing into an AWS
deployment is its own command: meridian-publish (make build-publish); the
measurement harness too: meridian-bench scale|load|tiles (make scale-test,
loadtest, bench-tiles).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "ingest", "build-tiles", "data", "demo":
		limitJobMemory()
	}
	if stop := profileFromEnv(cmd, stderr); stop != nil {
		defer stop()
	}
	switch cmd {
	case "serve":
		return serveCommand(args, stdout, stderr)
	case "keys":
		return keysCommand(args, stdout, stderr)
	case "ingest":
		return ingestCommand(args, stdout, stderr)
	case "build-tiles":
		return buildTilesCommand(args, stdout, stderr)
	case "publish":
		fmt.Fprintln(stderr, "meridian: publish is its own command, so that this one links no AWS SDK: make build-publish, then .build/meridian-publish (or go run ./functions/publish)")
		return 2
	case "data":
		return dataCommand(args, stdout, stderr)
	case "convert":
		return convertCommand(args, stdin, stdout, stderr)
	case "loadtest", "scale-test":
		fmt.Fprintf(stderr, "meridian: %s moved to the measurement harness, its own command: make scale-test, make loadtest, or go build -o .build/meridian-bench ./functions/bench\n", cmd)
		return 2
	case "openapi":
		return openapiCommand(args, stdout, stderr)
	case "demo":
		return demoCommand(args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "meridian: unknown command %q\n\n%s", cmd, usage)
	return 2
}

// dataFlag registers -data on fs: the data directory (package datadir),
// .meridian (or MERIDIAN_DATA) by default.
func dataFlag(fs *flag.FlagSet, usage string) *datadir.Dir {
	d := datadir.Default()
	fs.Var(&d, "data", usage)
	return &d
}
