package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"meridian/shared/blob/s3blob"
	"meridian/shared/datadir"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/release"
)

const publishUsage = `usage: meridian publish -bucket BUCKET -table TABLE [-data DIR] [-merge] [flags]

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
read at the start: a publish that overlapped another fails (run it again). Tile archives are also copied to their names, which
the tiles function reads today. A report dataset is published whole or not
at all, with a new version and a conditional flip of its pointer: a
concurrent publish of the same dataset fails rather than merging.

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

type publishOptions struct {
	bucket, table              string
	data                       datadir.Dir
	s3Endpoint, dynamoEndpoint string
	region                     string
	accessKey, secretKey       string // static credentials for tests; empty: the SDK's default chain
	merge                      bool   // keep the manifests' other files; publish every dataset (-merge)
	dynamoWorkers              int    // BatchWriteItem calls at once (-dynamodb-workers); 0: defaultPublishWorkers
	dynamoAttempts             int    // attempts per batch (-dynamodb-attempts); 0: defaultPublishAttempts
	progress                   io.Writer
}

// Defaults of a publish's DynamoDB writes. Four workers, as Dynamo's own
// default: the in-process emulator answers one call at a time, and eight
// made the refresh-under-load test twice as slow (58 s against 29 s); on
// AWS each BatchWriteItem waits out a round trip (10-30 ms), so a
// province-size publish passes -dynamodb-workers 8-16 (17,000-33,000
// items/s against a 10 ms round trip, BenchmarkDynamoPublish). Twelve
// attempts with backoff capped at 5 s ride out about half a minute of
// throttling per batch before the publish gives up and the served version
// stays as it was.
const (
	defaultPublishWorkers  = 4
	defaultPublishAttempts = 12
	publishMaxBackoff      = 5 * time.Second
	maxPublishWorkers      = 64
)

func publishCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, publishUsage); fs.PrintDefaults() }
	var o publishOptions
	fs.Var(&o.data, "data", "data directory")
	fs.StringVar(&o.bucket, "bucket", "", "the deployment's data bucket (output DataBucketName)")
	fs.StringVar(&o.table, "table", "", "the deployment's report table (output ReportsTableName)")
	fs.StringVar(&o.region, "region", "", "AWS region (default: the SDK's chain)")
	fs.StringVar(&o.s3Endpoint, "s3-endpoint", "", "S3-compatible endpoint, e.g. http://127.0.0.1:4569 (emulators)")
	fs.StringVar(&o.dynamoEndpoint, "dynamodb-endpoint", "", "DynamoDB endpoint, e.g. http://127.0.0.1:8100 (emulators)")
	fs.BoolVar(&o.merge, "merge", false, "DIR holds part of the data: keep the files it lacks in the manifests, publish its datasets as new versions")
	fs.IntVar(&o.dynamoWorkers, "dynamodb-workers", defaultPublishWorkers, fmt.Sprintf("BatchWriteItem calls in flight at once (1-%d)", maxPublishWorkers))
	fs.IntVar(&o.dynamoAttempts, "dynamodb-attempts", defaultPublishAttempts, "attempts at a throttled batch before the publish fails (1-100)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.bucket == "" || o.table == "" {
		fs.Usage()
		return 2
	}
	if o.dynamoWorkers < 1 || o.dynamoWorkers > maxPublishWorkers || o.dynamoAttempts < 1 || o.dynamoAttempts > 100 {
		fmt.Fprintf(stderr, "meridian publish: -dynamodb-workers must be 1-%d and -dynamodb-attempts 1-100 (got %d, %d)\n", maxPublishWorkers, o.dynamoWorkers, o.dynamoAttempts)
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
	client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: o.region, Endpoint: o.s3Endpoint, PathStyle: o.s3Endpoint != "",
		AccessKeyID: o.accessKey, SecretAccessKey: o.secretKey})
	if err != nil {
		return err
	}
	uploaded, skipped := 0, 0
	type set struct {
		dir, prefix, ext string
		plainKeys        bool // also write the files at their names (see uploadSet)
		store            *s3blob.Store
		manifest         release.Manifest
		base             manifestBase // the manifest before this publish
	}
	sets := []*set{
		{dir: o.data.Grid(), prefix: "grid/", ext: datadir.GridExt},
		{dir: o.data.Tiles(), prefix: "tiles/", ext: ".pmtiles", plainKeys: true},
	}
	// Every object of every set first, each manifest after: a manifest never
	// names an object that is not complete.
	for _, st := range sets {
		st.store = s3blob.New(client, o.bucket, st.prefix, s3blob.Options{})
		st.manifest = release.Manifest{Files: map[string]release.File{}}
		if st.base, err = readManifestBase(ctx, client, o.bucket, st.prefix); err != nil {
			return err
		}
		u, sk, err := uploadSet(ctx, st.store, st.dir, st.ext, st.manifest.Files, func(key string) {
			fmt.Fprintf(o.progress, "uploaded s3://%s/%s%s\n", o.bucket, st.prefix, key)
		})
		if err != nil {
			return err
		}
		uploaded, skipped = uploaded+u, skipped+sk
	}
	for _, st := range sets {
		if len(st.manifest.Files) == 0 {
			continue
		}
		local := slices.Sorted(maps.Keys(st.manifest.Files))
		if o.merge {
			for name, f := range st.base.files {
				if _, ok := st.manifest.Files[name]; !ok {
					st.manifest.Files[name] = f
				}
			}
		}
		changed, err := writeManifest(ctx, client, st.base, st.manifest)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(o.progress, "release s3://%s/%s%s: %d files\n", o.bucket, st.prefix, release.ManifestKey, len(st.manifest.Files))
		}
		if st.plainKeys {
			// The tiles function still reads archives at their names;
			// until it resolves them through the manifest, the archives
			// are copied there too, after the release is complete.
			for _, name := range local {
				done, err := putIfChanged(ctx, st.store, name, filepath.Join(st.dir, filepath.FromSlash(name)))
				if err != nil {
					return err
				}
				if done {
					fmt.Fprintf(o.progress, "uploaded s3://%s/%s%s\n", o.bucket, st.prefix, name)
				}
			}
		}
	}
	fmt.Fprintf(o.progress, "files: %d uploaded, %d already there\n", uploaded, skipped)

	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: o.region, Endpoint: o.dynamoEndpoint,
		AccessKeyID: o.accessKey, SecretAccessKey: o.secretKey, DisableResponseChecksum: o.dynamoEndpoint != ""})
	if err != nil {
		return err
	}
	// A publish is a batch job: each DynamoDB call may wait out throttling
	// and a slow table for longer than a request handler's 3 s.
	remote := dynamokv.New(dc, o.table, dynamokv.Options{Timeout: publishDynamoTimeout,
		WriteConcurrency: cmp.Or(o.dynamoWorkers, defaultPublishWorkers), BatchWriteAttempts: cmp.Or(o.dynamoAttempts, defaultPublishAttempts),
		MaxBackoff: publishMaxBackoff})
	for _, domain := range reportDomains {
		// The version served now: an ingest may be writing the next.
		local, ok, err := openReportStore(o.data, domain)
		if err != nil {
			return fmt.Errorf("report store %s: %w", domain, err)
		}
		if !ok {
			fmt.Fprintf(o.progress, "dataset %s: never ingested here, not published\n", domain)
			continue
		}
		err = copyDataset(ctx, local, remote, domain, o.merge, o.progress)
		local.Close()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(o.progress, "published in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// publishDynamoTimeout bounds each DynamoDB call of a publish, its SDK
// retries included.
const publishDynamoTimeout = time.Minute

// uploadSet uploads the files under dir ending in ext to their
// content-addressed keys (release.ContentKey), skipping those already
// there, and records them in files by name (the path under dir). It reads
// each file twice (hash, then upload) and holds none in memory.
func uploadSet(ctx context.Context, store *s3blob.Store, dir, ext string, files map[string]release.File, progress func(key string)) (uploaded, skipped int, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ext) || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		name := filepath.ToSlash(rel)
		sum, size, err := hashFile(path)
		if err != nil {
			return err
		}
		key := release.ContentKey(name, sum)
		files[name] = release.File{Key: key, Size: size, SHA256: hex.EncodeToString(sum)}
		// A content-addressed object that exists with the size is this
		// file: PutObject is atomic, so it is never a partial upload.
		if info, err := store.Stat(ctx, key); err == nil && info.Size == size {
			skipped++
			return nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := putFile(ctx, store, key, path); err != nil {
			return err
		}
		if info, err := store.Stat(ctx, key); err != nil || info.Size != size {
			return fmt.Errorf("publish: s3 object %s after upload: %d bytes, %v; want %d", key, info.Size, err, size)
		}
		uploaded++
		progress(key)
		return nil
	})
	return uploaded, skipped, err
}

// hashFile returns the SHA-256 and size of the file at path.
func hashFile(path string) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, 0, fmt.Errorf("publish: read %s: %w", path, err)
	}
	return h.Sum(nil), n, nil
}

func putFile(ctx context.Context, store *s3blob.Store, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return store.Put(ctx, key, f)
}

// errReleaseConflict is wrapped by the error of a publish whose manifest
// changed since it started: another publish wrote one meanwhile.
var errReleaseConflict = errors.New("publish: release manifest changed by a concurrent publish; run publish again")

// manifestBase is a manifest object as read before a publish: its key, its
// ETag ("" when absent) and its files.
type manifestBase struct {
	bucket, key string
	etag        string
	files       map[string]release.File
}

// readManifestBase reads the manifest under prefix and its ETag, in one
// GetObject. A corrupt manifest reads as one with no files: the publish
// replaces it (conditionally on its ETag).
func readManifestBase(ctx context.Context, client *s3.Client, bucket, prefix string) (manifestBase, error) {
	b := manifestBase{bucket: bucket, key: prefix + release.ManifestKey}
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(b.key)})
	var nsk *s3types.NoSuchKey
	if errors.As(err, &nsk) {
		return b, nil
	}
	if err != nil {
		return b, fmt.Errorf("publish: read s3://%s/%s: %w", bucket, b.key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, release.MaxManifestBytes+1))
	if err != nil {
		return b, fmt.Errorf("publish: read s3://%s/%s: %w", bucket, b.key, err)
	}
	b.etag = aws.ToString(out.ETag)
	var m release.Manifest
	if len(data) <= release.MaxManifestBytes && json.Unmarshal(data, &m) == nil && m.Validate() == nil {
		b.files = m.Files
	}
	return b, nil
}

// writeManifest writes m as the manifest unless base names the same files,
// and reports whether it wrote. The write is conditional on the manifest
// being still base (If-Match its ETag, or If-None-Match * when there was
// none): of two publishes that overlap, the second to finish fails with
// errReleaseConflict instead of replacing a release it never saw.
func writeManifest(ctx context.Context, client *s3.Client, base manifestBase, m release.Manifest) (bool, error) {
	if base.files != nil && maps.Equal(base.files, m.Files) {
		return false, nil
	}
	m.Published = time.Now().UTC()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return false, fmt.Errorf("publish: encode manifest: %w", err)
	}
	in := &s3.PutObjectInput{Bucket: aws.String(base.bucket), Key: aws.String(base.key), Body: bytes.NewReader(data), ContentType: aws.String("application/json")}
	if base.etag != "" {
		in.IfMatch = aws.String(base.etag)
	} else {
		in.IfNoneMatch = aws.String("*")
	}
	if _, err := client.PutObject(ctx, in); err != nil {
		var ae smithy.APIError
		if errors.As(err, &ae) && (ae.ErrorCode() == "PreconditionFailed" || ae.ErrorCode() == "ConditionalRequestConflict") {
			return false, fmt.Errorf("s3://%s/%s: %w", base.bucket, base.key, errReleaseConflict)
		}
		return false, fmt.Errorf("publish: write s3://%s/%s: %w", base.bucket, base.key, err)
	}
	return true, nil
}

// putIfChanged uploads path to key unless the object there has the file's
// MD5 as its ETag (a single-part upload's ETag).
func putIfChanged(ctx context.Context, store *s3blob.Store, key, path string) (bool, error) {
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

// copyDataset publishes dataset name of from into to, unless to already
// holds it at the same source version with as many items and all is not
// set (publish -merge: a scratch directory's versions start again at 1).
func copyDataset(ctx context.Context, from, to kv.Store, name string, all bool, progress io.Writer) error {
	ds, ok, err := kv.Open(ctx, from, name)
	if err != nil || !ok {
		return err
	}
	info := ds.Info
	if info.Counts == nil {
		info.Counts = map[string]int{}
	}
	info.Counts["source_version"] = int(ds.Version)
	if have, ok, err := kv.Open(ctx, to, info.Name); err != nil {
		return err
	} else if ok && !all && have.Info.Source == info.Source && have.Info.Counts["source_version"] == int(ds.Version) {
		fmt.Fprintf(progress, "dataset %s: version %d already published (%d items)\n", info.Name, ds.Version, ds.Items)
		return nil
	}
	prefix := info.Name + "@" + fmt.Sprint(ds.Version) + "#"
	p := newCopyProgress(progress, info.Name, ds.Items, to)
	_, err = kv.Publish(ctx, to, info, func(w *kv.Writer) error {
		return from.ScanKeys(ctx, prefix, func(keys []kv.Key) error {
			for _, k := range keys {
				it, ok, err := from.Get(ctx, k.PK, k.SK)
				if err != nil || !ok {
					return err
				}
				if err := w.PutRaw(strings.TrimPrefix(k.PK, prefix), k.SK, it.Data); err != nil {
					return err
				}
				p.item(len(it.Data))
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("dataset %s: %w", info.Name, err)
	}
	fmt.Fprintf(progress, "dataset %s: version %d published, %d items%s\n", info.Name, ds.Version, p.n, p.summary())
	return nil
}

// copyProgress reports a dataset copy's progress: a line every
// progressEvery, and a summary with the rate and the batch writes'
// retries (when the target is DynamoDB).
type copyProgress struct {
	w           io.Writer
	name        string
	total       int
	n, bytes    int
	start, last time.Time
	stats       func() dynamokv.WriteStats // nil unless the target counts them
	before      dynamokv.WriteStats
}

const progressEvery = 5 * time.Second

func newCopyProgress(w io.Writer, name string, total int, to kv.Store) *copyProgress {
	p := &copyProgress{w: w, name: name, total: total, start: time.Now()}
	p.last = p.start
	if s, ok := to.(interface{ WriteStats() dynamokv.WriteStats }); ok {
		p.stats = s.WriteStats
		p.before = s.WriteStats()
	}
	return p
}

func (p *copyProgress) item(size int) {
	p.n++
	p.bytes += size
	if p.n%1024 != 0 {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		fmt.Fprintf(p.w, "dataset %s: %d of %d items (%.0f%%), %.0f items/s\n", p.name, p.n, p.total,
			100*float64(p.n)/float64(max(p.total, 1)), float64(p.n)/now.Sub(p.start).Seconds())
	}
}

// summary returns " in <time> (<rate>; <retries>)" for the last line.
func (p *copyProgress) summary() string {
	took := time.Since(p.start)
	s := fmt.Sprintf(" in %s (%.0f items/s, %.1f MB", took.Round(time.Millisecond), float64(p.n)/max(took.Seconds(), 1e-9), float64(p.bytes)/1e6)
	if p.stats != nil {
		st := p.stats()
		s += fmt.Sprintf("; %d BatchWriteItem calls, %d unprocessed items sent again, %d throttled calls retried",
			st.Calls-p.before.Calls, st.Unprocessed-p.before.Unprocessed, st.Throttled-p.before.Throttled)
	}
	return s + ")"
}
