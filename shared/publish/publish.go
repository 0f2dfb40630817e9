// Package publish copies a data directory (package datadir) into an AWS
// deployment: the grid indexes (DIR/grid/*.mgix) to s3://BUCKET/grid/, the
// tile archives (DIR/tiles/**/*.pmtiles) to s3://BUCKET/tiles/, and the
// served version of each report dataset (DIR/reports/<domain>) to the
// DynamoDB table. It is the meridian-publish command (functions/publish)
// and the last step of the refresh job, and lives apart from the local
// server so that the server does not link the AWS SDK.
//
// Files go to content-addressed keys (grid/v/<sha256>/<name>), never
// overwritten, so a warm Lambda keeps reading the bytes it opened; once all
// are uploaded and checked, one manifest object per prefix
// (grid/MANIFEST.json, tiles/MANIFEST.json) names them, and new cold starts
// read the new release. The manifest write is conditional on the manifest
// read at the start: a publish that overlapped another fails. Tile archives
// are also copied to their names, which the tiles function reads today. A
// report dataset is published whole or not at all, with a new version and
// a conditional flip of its pointer (kv.Publish).
//
// It is resumable: objects already in the bucket and datasets already
// published from the same local version are skipped. A local server may
// keep running on the directory: a publish reads the report versions it
// serves, and an ingest meanwhile writes a new one beside them.
//
// Memory: files are hashed and uploaded as streams, and a dataset is
// copied a scan batch at a time through DynamoDB's write stream
// (TestDatasetHeapFlat), so a publish holds no file and no dataset.
package publish

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"meridian/shared/blob/s3blob"
	"meridian/shared/datadir"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/release"
)

// Options say what to publish and where.
type Options struct {
	Data    datadir.Dir // the data directory
	Domains []string    // the report domains (energy, ag): datasets of Data.Reports(domain)

	Bucket, Table              string // the deployment's data bucket and report table
	Region                     string // empty: the SDK's default chain
	S3Endpoint, DynamoEndpoint string // emulators; empty: AWS
	AccessKey, SecretKey       string // static credentials for tests; empty: the SDK's default chain
	// Merge publishes a directory that holds part of the data: the
	// manifests keep naming the files it lacks, and every dataset it has is
	// published as a new version.
	Merge          bool
	DynamoWorkers  int // BatchWriteItem calls at once; 0: DefaultWorkers
	DynamoAttempts int // attempts per batch; 0: DefaultAttempts
	Progress       io.Writer
}

// Defaults of a publish's DynamoDB writes. Four workers, as the store's own
// default: the in-process emulator answers one call at a time, and eight
// made the refresh-under-load test twice as slow (58 s against 29 s); on
// AWS each BatchWriteItem waits out a round trip (10-30 ms), so a
// province-size publish passes -dynamodb-workers 8-16 (17,000-33,000
// items/s against a 10 ms round trip, BenchmarkDynamoPublish). Twelve
// attempts with backoff capped at 5 s ride out about half a minute of
// throttling per batch before the publish gives up and the served version
// stays as it was.
const (
	DefaultWorkers  = 4
	DefaultAttempts = 12
	MaxWorkers      = 64
	maxBackoff      = 5 * time.Second
)

// sdkAttempts is the SDK's attempts per S3 and DynamoDB call of a publish
// (the functions make 2 and 3): a publish is a batch job of a few thousand
// calls, so at 2 or 3 one 500, reset or cut answer repeated on every
// attempt of any call failed the whole publish (make chaos at 20% faults:
// 3 publishes of 10 completed). Backoff stays capped at awsconf.MaxBackoff.
const sdkAttempts = 6

// Run uploads the files and copies the datasets (see the package doc).
func Run(ctx context.Context, o Options) error {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	start := time.Now()
	client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: o.Region, Endpoint: o.S3Endpoint, PathStyle: o.S3Endpoint != "",
		AccessKeyID: o.AccessKey, SecretAccessKey: o.SecretKey, MaxAttempts: sdkAttempts})
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
		{dir: o.Data.Grid(), prefix: "grid/", ext: datadir.GridExt},
		{dir: o.Data.Tiles(), prefix: "tiles/", ext: ".pmtiles", plainKeys: true},
	}
	// Every object of every set first, each manifest after: a manifest never
	// names an object that is not complete.
	for _, st := range sets {
		st.store = s3blob.New(client, o.Bucket, st.prefix, s3blob.Options{})
		st.manifest = release.Manifest{Files: map[string]release.File{}}
		if st.base, err = readManifestBase(ctx, client, o.Bucket, st.prefix); err != nil {
			return err
		}
		u, sk, err := uploadSet(ctx, st.store, st.dir, st.ext, st.manifest.Files, func(key string) {
			fmt.Fprintf(o.Progress, "uploaded s3://%s/%s%s\n", o.Bucket, st.prefix, key)
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
		if o.Merge {
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
			fmt.Fprintf(o.Progress, "release s3://%s/%s%s: %d files\n", o.Bucket, st.prefix, release.ManifestKey, len(st.manifest.Files))
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
					fmt.Fprintf(o.Progress, "uploaded s3://%s/%s%s\n", o.Bucket, st.prefix, name)
				}
			}
		}
	}
	fmt.Fprintf(o.Progress, "files: %d uploaded, %d already there\n", uploaded, skipped)

	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: o.Region, Endpoint: o.DynamoEndpoint,
		AccessKeyID: o.AccessKey, SecretAccessKey: o.SecretKey, DisableResponseChecksum: o.DynamoEndpoint != "", MaxAttempts: sdkAttempts})
	if err != nil {
		return err
	}
	// A publish is a batch job: each DynamoDB call may wait out throttling
	// and a slow table for longer than a request handler's 3 s.
	remote := dynamokv.New(dc, o.Table, dynamokv.Options{Timeout: dynamoTimeout,
		WriteConcurrency: cmp.Or(o.DynamoWorkers, DefaultWorkers), BatchWriteAttempts: cmp.Or(o.DynamoAttempts, DefaultAttempts),
		MaxBackoff: maxBackoff})
	for _, domain := range o.Domains {
		// The version served now: an ingest may be writing the next.
		local, ok, err := openServed(o.Data, domain)
		if err != nil {
			return fmt.Errorf("report store %s: %w", domain, err)
		}
		if !ok {
			fmt.Fprintf(o.Progress, "dataset %s: never ingested here, not published\n", domain)
			continue
		}
		err = Dataset(ctx, local, remote, domain, o.Merge, o.Progress)
		local.Close()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Progress, "published in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// openServed opens the served version of domain's report store read-only,
// its pages leaving the resident set as they are read (ScanRelease). ok is
// false when the domain was never ingested. A directory still holding the
// single report file of an earlier release is refused: the local server
// adopts it at its start (meridian serve), and publishing the directory
// without it would leave the table behind.
func openServed(data datadir.Dir, domain string) (*kv.Bolt, bool, error) {
	store, _, ok, err := data.Reports(domain).OpenCurrent(boltdir.ScanRelease)
	if err != nil || ok {
		return store, ok, err
	}
	if _, err := os.Stat(data.LegacyReports()); err == nil {
		return nil, false, fmt.Errorf("%s is the report file of an earlier release: start the local server on %s once (it adopts the file), then publish", data.LegacyReports(), data)
	}
	return nil, false, nil
}

// dynamoTimeout bounds each DynamoDB call of a publish, its SDK retries
// included.
const dynamoTimeout = time.Minute

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

// Dataset publishes dataset name of from into to, unless to already holds
// it at the same source version and all is not set (Options.Merge: a
// scratch directory's versions start again at 1). It streams: it holds a
// scan batch of keys and the write stream's batches, not the dataset.
func Dataset(ctx context.Context, from, to kv.Store, name string, all bool, progress io.Writer) error {
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
