// Package gridstore opens a deployment's official grid indexes: on AWS from
// the S3 bucket named in the function's environment, read by range
// requests through a block cache that lives as long as the Lambda
// environment, and kept in step with the release `meridian-publish` writes
// (see Grids).
package gridstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/smithy-go"

	"meridian/shared/awsconf"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/release"
	"meridian/shared/survey/gridindex"
)

// Config says where the indexes are (package lambdafn reads it from a
// function's environment).
type Config struct {
	Bucket   string   // GRID_BUCKET: S3 bucket; empty means no official data (the models answer)
	Prefix   string   // GRID_PREFIX: key prefix in the bucket, default "grid/"
	Indexes  []string // GRID_INDEXES: comma-separated index file names under the prefix
	Region   string   // AWS_REGION
	Endpoint string   // AWS_ENDPOINT_URL_S3: an S3-compatible endpoint (emulators); empty for AWS
	CacheMiB int      // GRID_CACHE_MIB: block cache size, default 32
	// GRID_RECHECK_SECONDS: how often a warm function reads the release
	// manifest again, default 300 (as ARCHIVE_RECHECK_SECONDS).
	Recheck time.Duration
}

// Open opens every configured index (one range read each, plus one for
// the release manifest) and returns them as Grids that read the manifest
// again at most every c.Recheck. No bucket means no indexes, ever.
func Open(ctx context.Context, c Config, logger *slog.Logger) (*Grids, error) {
	if c.Bucket == "" {
		return Fixed(nil), nil
	}
	client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: c.Region, Endpoint: c.Endpoint, PathStyle: c.Endpoint != "",
		FirstByteTimeout: awsconf.FirstByteTimeout})
	if err != nil {
		return nil, fmt.Errorf("gridstore: %w", err)
	}
	s3 := s3blob.New(client, c.Bucket, c.Prefix, s3blob.Options{})
	store := blob.NewCached(s3, blob.CacheOptions{MaxBytes: int64(c.CacheMiB) << 20})
	return New(ctx, Source{Indexes: store, Manifest: s3, Names: c.Indexes, Where: "s3://" + c.Bucket + "/" + c.Prefix, Recheck: c.Recheck}, logger)
}

// OpenIndexes opens the indexes named in store, where names them in
// errors. When the store has a release manifest (package release, written
// by `meridian-publish`), each name is opened at the content-addressed key
// the manifest gives, which is never overwritten: the index reads the same
// bytes for as long as it is held, whatever is published meanwhile. A
// store without a manifest (published before manifests) is read at the
// names themselves.
func OpenIndexes(ctx context.Context, store blob.Store, names []string, where string) ([]*gridindex.Index, error) {
	keys, err := resolve(ctx, store, names, where)
	if err != nil {
		return nil, err
	}
	out := make([]*gridindex.Index, 0, len(keys))
	for _, key := range keys {
		ix, err := gridindex.Open(ctx, store, key, gridindex.Options{})
		if err != nil {
			return nil, fmt.Errorf("gridstore: open %s%s: %w", where, key, err)
		}
		out = append(out, ix)
	}
	return out, nil
}

// resolve returns the key holding each name: the release manifest's, or
// the names themselves when the store has no manifest.
func resolve(ctx context.Context, manifest release.Store, names []string, where string) ([]string, error) {
	m, hasManifest, err := release.Read(ctx, manifest)
	if accessDenied(err) {
		// S3 answers a missing key with 403 to callers that may not list
		// the bucket, as the grid functions may not: a bucket published
		// before manifests. If the denial is real, opening the names
		// is denied too, and that error is returned.
		hasManifest, err = false, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gridstore: %s: %w", where, err)
	}
	keys := make([]string, 0, len(names))
	for _, k := range names {
		key := k
		if hasManifest {
			var ok bool
			if key, ok = m.Resolve(k); !ok {
				return nil, fmt.Errorf("gridstore: %s%s does not name %s", where, release.ManifestKey, k)
			}
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// accessDenied reports whether err is S3's 403 AccessDenied.
func accessDenied(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "AccessDenied"
}
