// Package s3blobtest starts S3 emulators for tests of code that runs on
// s3blob: an in-process one (gofakes3) and an external one named by the
// environment. It lives beside the adapter so that the contract kit,
// blobtest, depends on no adapter.
package s3blobtest

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"meridian/shared/blob/s3blob"
)

// FakeS3 starts an in-process S3 emulator (gofakes3) with the bucket and
// returns a real SDK client for it; the server stops with the test.
func FakeS3(tb testing.TB, bucket string) *s3.Client {
	tb.Helper()
	ts := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	tb.Cleanup(ts.Close)
	client := Client(tb, ts.URL, "test", "test")
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		tb.Fatalf("CreateBucket: %v", err)
	}
	return client
}

// ExternalS3 returns a client for the S3 emulator process named by
// MERIDIAN_S3_ENDPOINT (credentials MERIDIAN_S3_ACCESS_KEY and
// MERIDIAN_S3_SECRET_KEY, default S3RVER/S3RVER as s3rver wants) with the
// bucket created, and skips the test when the variable is unset.
func ExternalS3(tb testing.TB, bucket string) *s3.Client {
	tb.Helper()
	endpoint := os.Getenv("MERIDIAN_S3_ENDPOINT")
	if endpoint == "" {
		tb.Skip("MERIDIAN_S3_ENDPOINT is not set: no external S3 emulator to test against")
	}
	client := Client(tb, endpoint, envOr("MERIDIAN_S3_ACCESS_KEY", "S3RVER"), envOr("MERIDIAN_S3_SECRET_KEY", "S3RVER"))
	_, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		tb.Fatalf("CreateBucket(%s) at %s: %v", bucket, endpoint, err)
	}
	return client
}

// Client builds an SDK client for an emulator endpoint.
func Client(tb testing.TB, endpoint, accessKey, secretKey string) *s3.Client {
	tb.Helper()
	client, err := s3blob.NewClient(context.Background(), s3blob.ClientOptions{
		Region:          "us-east-1",
		Endpoint:        endpoint,
		PathStyle:       true,
		AccessKeyID:     accessKey,
		SecretAccessKey: secretKey,
	})
	if err != nil {
		tb.Fatalf("NewS3Client: %v", err)
	}
	return client
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
