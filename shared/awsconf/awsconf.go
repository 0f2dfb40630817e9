// Package awsconf loads the AWS SDK configuration the project's clients
// (S3 in package blob, DynamoDB in package kv) share: the SDK's default
// chain, static credentials for emulators, a region when nothing names one,
// and modest retries with full-jitter backoff, so a failing dependency
// answers within a Lambda's time.
package awsconf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// MaxBackoff caps the wait between two attempts of one call.
const MaxBackoff = 500 * time.Millisecond

// Options say how to load the configuration.
type Options struct {
	// Region; when empty, the SDK's default chain, and us-east-1 if that
	// finds none.
	Region string
	// AccessKeyID and SecretAccessKey set static credentials (emulators);
	// when empty, the SDK's default chain (environment, Lambda role).
	AccessKeyID, SecretAccessKey string
	// MaxAttempts is the number of attempts per call, retries included.
	MaxAttempts int
	// BaseBackoff is the first retry's wait ceiling; it doubles per retry up
	// to MaxBackoff.
	BaseBackoff time.Duration
	// FirstByteTimeout, when positive, ends an attempt whose answer has not
	// begun that long after the request was sent (http.Transport's
	// ResponseHeaderTimeout), and the SDK retries it: a stalled connection
	// then costs one attempt, not the whole call's timeout. Zero: no limit
	// but the call's context.
	FirstByteTimeout time.Duration
}

// FirstByteTimeout is the Lambdas' FirstByteTimeout: S3 and DynamoDB
// answer reads in tens of milliseconds, so an attempt still silent after a
// second is stalled, and a retry still fits the call's 3 s timeout
// (s3blob.DefaultTimeout, dynamokv.DefaultTimeout).
const FirstByteTimeout = time.Second

// Load returns the configuration o describes, with extra load options.
func Load(ctx context.Context, o Options, extra ...func(*config.LoadOptions) error) (aws.Config, error) {
	opts := append([]func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = o.MaxAttempts
				so.MaxBackoff = MaxBackoff
				// An answer cut off mid-body (the connection dropped) fails
				// to deserialize with io.ErrUnexpectedEOF, which the SDK
				// does not retry: it is a network failure like a reset.
				so.Retryables = append(slices.Clone(so.Retryables), retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
					if errors.Is(err, io.ErrUnexpectedEOF) {
						return aws.TrueTernary
					}
					return aws.UnknownTernary
				}))
				// The SDK's backoff counts in whole seconds and, below a 1 s
				// maximum, always waits the maximum: full jitter instead.
				so.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
					return Backoff(o.BaseBackoff, attempt), nil
				})
			})
		}),
	}, extra...)
	if o.FirstByteTimeout > 0 {
		opts = append(opts, config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = o.FirstByteTimeout
		})))
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.AccessKeyID != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return cfg, nil
}

// Backoff is the wait before retry attempt (1 for the first retry):
// uniformly random below min(base·2^(attempt-1), MaxBackoff).
func Backoff(base time.Duration, attempt int) time.Duration {
	ceil := MaxBackoff
	if attempt >= 1 && attempt <= 16 {
		ceil = min(base<<(attempt-1), MaxBackoff)
	}
	if ceil <= 0 {
		return 0
	}
	return rand.N(ceil)
}
