// Command meridian-publish copies a local data directory into an AWS
// deployment (package publish). It is a command of its own, not a
// subcommand of meridian, so that the local server links no AWS SDK; the
// refresh job runs it after `meridian data fetch`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"meridian/shared/ag"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/publish"
)

const usage = `usage: meridian-publish -bucket BUCKET -table TABLE [-data DIR] [-merge] [flags]

Copies a data directory into a deployment (make deploy): the grid indexes
(DIR/grid/*.mgix) to s3://BUCKET/grid/, the tile archives
(DIR/tiles/**/*.pmtiles) to s3://BUCKET/tiles/, and the served version of
each report dataset (DIR/reports/energy, DIR/reports/ag) to the DynamoDB
table.

Files go to content-addressed keys (grid/v/<sha256>/<name>), never
overwritten, so a warm Lambda keeps reading the bytes it opened; once all
are uploaded and checked, one manifest object per prefix
(grid/MANIFEST.json, tiles/MANIFEST.json) names them, and new cold starts
read the new release. The manifest write is conditional on the manifest
read at the start: a publish that overlapped another fails (run it
again). A report dataset is published whole or not at all, with a new
version and a conditional flip of its pointer: a concurrent publish of
the same dataset fails rather than merging.

It is resumable: objects already in the bucket and datasets already
published from the same local version are skipped, so a run that stopped
can simply be run again. A local server may keep running on DIR: publish
reads the report versions it serves, and an ingest meanwhile writes a new
one beside them.

-merge publishes a directory that holds only part of the data (the
scheduled refresh job ingests one dataset group into scratch storage):
the files of the bucket's manifests that DIR does not have stay named
in the new manifests, and every report dataset of DIR is published as
a new version, since a scratch directory's version numbers say nothing
about what the table holds. A report domain never ingested in DIR is
left as the table has it.

AWS credentials and region come from the SDK's default chain, untouched:
environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN),
AWS_PROFILE with SSO or an assumed role, web identity, container and
instance roles. -s3-endpoint and -dynamodb-endpoint point at emulators.

flags:
`

// domains are the report domains a publish copies, by dataset name.
var domains = []string{energy.Dataset, ag.Dataset}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("meridian-publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	o := publish.Options{Data: datadir.Default(), Domains: domains, Progress: stdout}
	fs.Var(&o.Data, "data", "data directory")
	fs.StringVar(&o.Bucket, "bucket", "", "the deployment's data bucket (output DataBucketName)")
	fs.StringVar(&o.Table, "table", "", "the deployment's report table (output ReportsTableName)")
	fs.StringVar(&o.Region, "region", "", "AWS region (default: the SDK's chain)")
	fs.StringVar(&o.S3Endpoint, "s3-endpoint", "", "S3-compatible endpoint, e.g. http://127.0.0.1:4569 (emulators)")
	fs.StringVar(&o.DynamoEndpoint, "dynamodb-endpoint", "", "DynamoDB endpoint, e.g. http://127.0.0.1:8100 (emulators)")
	fs.BoolVar(&o.Merge, "merge", false, "DIR holds part of the data: keep the files it lacks in the manifests, publish its datasets as new versions")
	fs.IntVar(&o.DynamoWorkers, "dynamodb-workers", publish.DefaultWorkers, fmt.Sprintf("BatchWriteItem calls in flight at once (1-%d)", publish.MaxWorkers))
	fs.IntVar(&o.DynamoAttempts, "dynamodb-attempts", publish.DefaultAttempts, "attempts at a throttled batch before the publish fails (1-100)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.Bucket == "" || o.Table == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if o.DynamoWorkers < 1 || o.DynamoWorkers > publish.MaxWorkers || o.DynamoAttempts < 1 || o.DynamoAttempts > 100 {
		fmt.Fprintf(stderr, "meridian-publish: -dynamodb-workers must be 1-%d and -dynamodb-attempts 1-100 (got %d, %d)\n", publish.MaxWorkers, o.DynamoWorkers, o.DynamoAttempts)
		return 2
	}
	// No static credentials: the SDK's chain reads the environment itself,
	// session token included (copying the two keys here dropped it, which
	// broke SSO and assumed roles).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := publish.Run(ctx, o); err != nil {
		fmt.Fprintf(stderr, "meridian-publish: %v\n", err)
		return 1
	}
	return 0
}
