package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"meridian/shared/blob"
	"meridian/shared/kv"
)

const publishUsage = `usage: meridian publish -bucket BUCKET -table TABLE [-data DIR] [flags]

Copies a data directory into a deployment (make deploy): the grid indexes
(DIR/grid/*.mgix) to s3://BUCKET/grid/, the tile archives
(DIR/tiles/**/*.pmtiles) to s3://BUCKET/tiles/, and every report dataset of
DIR/reports.db to the DynamoDB table. It is resumable: an object already in
the bucket with the same content (its ETag is the file's MD5) and a dataset
already published from the same local version are skipped (a dataset is
published whole or not at all), so a run that stopped can simply be run again. Run it with
the local server stopped (it reads reports.db).

AWS credentials and region come from the SDK's default chain, untouched:
environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN),
AWS_PROFILE with SSO or an assumed role, web identity, container and
instance roles. -s3-endpoint and -dynamodb-endpoint point at emulators.

flags:
`

type publishOptions struct {
	dataDir, bucket, table     string
	s3Endpoint, dynamoEndpoint string
	region                     string
	accessKey, secretKey       string // static credentials for tests; empty: the SDK's default chain
	progress                   io.Writer
}

func publishCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, publishUsage); fs.PrintDefaults() }
	var o publishOptions
	fs.StringVar(&o.dataDir, "data", defaultDataDir(), "data directory")
	fs.StringVar(&o.bucket, "bucket", "", "the deployment's data bucket (output DataBucketName)")
	fs.StringVar(&o.table, "table", "", "the deployment's report table (output ReportsTableName)")
	fs.StringVar(&o.region, "region", "", "AWS region (default: the SDK's chain)")
	fs.StringVar(&o.s3Endpoint, "s3-endpoint", "", "S3-compatible endpoint, e.g. http://127.0.0.1:4569 (emulators)")
	fs.StringVar(&o.dynamoEndpoint, "dynamodb-endpoint", "", "DynamoDB endpoint, e.g. http://127.0.0.1:8100 (emulators)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.bucket == "" || o.table == "" {
		fs.Usage()
		return 2
	}
	// No static credentials: the SDK's chain reads the environment itself,
	// session token included (copying the two keys here dropped it, which
	// broke SSO and assumed roles).
	o.progress = stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := publish(ctx, o); err != nil {
		fmt.Fprintf(stderr, "meridian publish: %v\n", err)
		return 1
	}
	return 0
}

// publish uploads the files and copies the datasets.
func publish(ctx context.Context, o publishOptions) error {
	start := time.Now()
	client, err := blob.NewS3Client(ctx, blob.S3ClientOptions{Region: o.region, Endpoint: o.s3Endpoint, PathStyle: o.s3Endpoint != "",
		AccessKeyID: o.accessKey, SecretAccessKey: o.secretKey})
	if err != nil {
		return err
	}
	uploaded, skipped := 0, 0
	for _, set := range []struct{ dir, prefix, ext string }{
		{gridPath(o.dataDir), "grid/", gridExt},
		{filepath.Join(o.dataDir, tilesDir), "tiles/", ".pmtiles"},
	} {
		store := blob.NewS3(client, o.bucket, set.prefix, blob.S3Options{})
		err := filepath.WalkDir(set.dir, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && path == set.dir {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, set.ext) || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			rel, _ := filepath.Rel(set.dir, path)
			key := filepath.ToSlash(rel)
			done, err := putIfChanged(ctx, store, key, path)
			if err != nil {
				return err
			}
			if done {
				uploaded++
				fmt.Fprintf(o.progress, "uploaded s3://%s/%s%s\n", o.bucket, set.prefix, key)
			} else {
				skipped++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(o.progress, "files: %d uploaded, %d already there\n", uploaded, skipped)

	local, err := kv.OpenBolt(reportsPath(o.dataDir), kv.BoltOptions{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("report store %s: %w (is a server running on this data directory?)", reportsPath(o.dataDir), err)
	}
	defer local.Close()
	dc, err := kv.NewDynamoClient(ctx, kv.DynamoClientOptions{Region: o.region, Endpoint: o.dynamoEndpoint,
		AccessKeyID: o.accessKey, SecretAccessKey: o.secretKey, DisableResponseChecksum: o.dynamoEndpoint != ""})
	if err != nil {
		return err
	}
	remote := kv.NewDynamo(dc, o.table, kv.DynamoOptions{})
	if err := copyDatasets(ctx, local, remote, o.progress); err != nil {
		return err
	}
	fmt.Fprintf(o.progress, "published in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// putIfChanged uploads path to key unless the object there has the file's
// MD5 as its ETag (a single-part upload's ETag).
func putIfChanged(ctx context.Context, store *blob.S3, key, path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	sum := `"` + hex.EncodeToString(h.Sum(nil)) + `"`
	if info, err := store.Stat(ctx, key); err == nil && info.ETag == sum {
		return false, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	return true, store.Put(ctx, key, f)
}

// copyDatasets publishes every dataset of from into to, skipping those to
// already holds at the same source version with as many items.
func copyDatasets(ctx context.Context, from, to kv.Store, progress io.Writer) error {
	sets, err := kv.Datasets(ctx, from)
	if err != nil {
		return err
	}
	for _, ds := range sets {
		info := ds.Info
		if info.Counts == nil {
			info.Counts = map[string]int{}
		}
		info.Counts["source_version"] = int(ds.Version)
		if have, ok, err := kv.Open(ctx, to, info.Name); err != nil {
			return err
		} else if ok && have.Info.Source == info.Source && have.Info.Counts["source_version"] == int(ds.Version) {
			fmt.Fprintf(progress, "dataset %s: version %d already published (%d items)\n", info.Name, ds.Version, ds.Items)
			continue
		}
		prefix := info.Name + "@" + fmt.Sprint(ds.Version) + "#"
		copied := 0
		_, err := kv.Publish(ctx, to, info, func(w *kv.Writer) error {
			return from.ScanKeys(ctx, prefix, func(keys []kv.Key) error {
				for _, k := range keys {
					it, ok, err := from.Get(ctx, k.PK, k.SK)
					if err != nil || !ok {
						return err
					}
					if err := w.PutRaw(strings.TrimPrefix(k.PK, prefix), k.SK, it.Data); err != nil {
						return err
					}
					if copied++; copied%5000 == 0 {
						fmt.Fprintf(progress, "dataset %s: %d of %d items\n", info.Name, copied, ds.Items)
					}
				}
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("dataset %s: %w", info.Name, err)
		}
		fmt.Fprintf(progress, "dataset %s: version %d published, %d items\n", info.Name, ds.Version, copied)
	}
	return nil
}
