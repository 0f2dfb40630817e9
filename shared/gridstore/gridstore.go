// Package gridstore opens a deployment's official grid indexes: on AWS from
// the S3 bucket named in the function's environment, read by range
// requests through a block cache that lives as long as the Lambda
// environment.
package gridstore

import (
	"context"
	"fmt"
	"strings"

	"meridian/shared/blob"
	"meridian/shared/env"
	"meridian/shared/survey/gridindex"
)

// Config says where the indexes are.
type Config struct {
	Bucket   string   // GRID_BUCKET: S3 bucket; empty means no official data (the models answer)
	Prefix   string   // GRID_PREFIX: key prefix in the bucket, default "grid/"
	Indexes  []string // GRID_INDEXES: comma-separated index file names under the prefix
	Region   string   // AWS_REGION
	Endpoint string   // AWS_ENDPOINT_URL_S3: an S3-compatible endpoint (emulators); empty for AWS
	CacheMiB int      // GRID_CACHE_MIB: block cache size, default 32
}

// ReadConfig reads Config from the environment, recording problems in r.
func ReadConfig(r *env.Reader) Config {
	c := Config{
		Bucket:   r.String("GRID_BUCKET", ""),
		Prefix:   r.String("GRID_PREFIX", "grid/"),
		Region:   r.String("AWS_REGION", "us-east-1"),
		Endpoint: r.String("AWS_ENDPOINT_URL_S3", ""),
		CacheMiB: r.Int("GRID_CACHE_MIB", 32, 1, 1024),
	}
	for _, k := range strings.Split(r.String("GRID_INDEXES", ""), ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.Indexes = append(c.Indexes, k)
		}
	}
	if c.Bucket != "" && len(c.Indexes) == 0 {
		r.Required("GRID_INDEXES", "the index files in GRID_BUCKET to serve, comma-separated (e.g. altalis-ats-v4.1.mgix)")
	}
	return c
}

// Open opens every configured index (one range read each). No bucket
// means no indexes.
func Open(ctx context.Context, c Config) ([]*gridindex.Index, error) {
	if c.Bucket == "" {
		return nil, nil
	}
	client, err := blob.NewS3Client(ctx, blob.S3ClientOptions{Region: c.Region, Endpoint: c.Endpoint, PathStyle: c.Endpoint != ""})
	if err != nil {
		return nil, fmt.Errorf("gridstore: %w", err)
	}
	store := blob.NewCached(blob.NewS3(client, c.Bucket, c.Prefix, blob.S3Options{}), blob.CacheOptions{MaxBytes: int64(c.CacheMiB) << 20})
	out := make([]*gridindex.Index, 0, len(c.Indexes))
	for _, k := range c.Indexes {
		ix, err := gridindex.Open(ctx, store, k, gridindex.Options{})
		if err != nil {
			return nil, fmt.Errorf("gridstore: open s3://%s/%s%s: %w", c.Bucket, c.Prefix, k, err)
		}
		out = append(out, ix)
	}
	return out, nil
}
