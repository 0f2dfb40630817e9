// Package s3blob is the blob.Store over an S3 bucket: ranged GetObject
// reads, ETag-pinned reads, uploads, and the mapping of S3's failures onto
// blob's errors. It is its own package so that what only reads local or
// in-memory data (the map's basemap tool, the grid index and archive
// readers) does not link the AWS SDK.
//
// # Timeouts and retries on S3
//
// Each S3 call runs under its own timeout (Options.Timeout, 3 s by
// default), which covers connecting, SDK retries and reading the body, so an
// unreachable or hung endpoint fails fast with [blob.ErrUnavailable] instead of
// holding a Lambda until its deadline. [NewClient] keeps SDK retries modest:
// 2 attempts in all (one retry) after a random wait of up to 100 ms, plus the
// SDK's client-side retry quota that stops retrying during a long outage.
// The role reading the bucket needs s3:ListBucket besides s3:GetObject:
// without it S3 answers a missing key with 403 AccessDenied, not 404.
//
// # Running against an external S3 emulator
//
// Plain `go test ./...` is hermetic: the S3 adapter is tested against an
// in-process gofakes3 server through the real SDK client. To run the same
// contract suite against another S3 implementation, for example s3rver from
// npm:
//
//	cd "$(mktemp -d)" && npm i s3rver@3.7.1
//	npx s3rver -d "$(mktemp -d)" -a 127.0.0.1 -p 4569 --configure-bucket meridian &
//	MERIDIAN_S3_ENDPOINT=http://127.0.0.1:4569 go test -count=1 -run S3 ./shared/blob/s3blob
//
// The test uses credentials S3RVER/S3RVER unless MERIDIAN_S3_ACCESS_KEY and
// MERIDIAN_S3_SECRET_KEY are set, creates the bucket MERIDIAN_S3_BUCKET
// (default "meridian-blobtest") if needed, and deletes the objects it wrote.
// -count=1 matters: go test caches results keyed on the environment.
package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"meridian/shared/awsconf"
	"meridian/shared/blob"
)

// DefaultTimeout bounds each S3 call when Options.Timeout is zero.
const DefaultTimeout = 3 * time.Second

// API is the part of *s3.Client that Store uses.
type API interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// Options configure an S3 store.
type Options struct {
	// Timeout bounds each ReadRange and Stat call, SDK retries and reading
	// the body included; DefaultTimeout when zero. Put is bounded only by
	// its context, since uploads can be large.
	Timeout time.Duration
}

// Store is a blob.Store over the objects of an S3 bucket under a key prefix.
// It is safe for concurrent use.
type Store struct {
	client  API
	bucket  string
	prefix  string // "" or ending in "/"
	timeout time.Duration
}

// New returns a store over bucket. Key k is stored as object prefix/k;
// prefix may be empty, and a trailing slash is optional.
func New(client API, bucket, prefix string, opts Options) *Store {
	if prefix = strings.Trim(prefix, "/"); prefix != "" {
		prefix += "/"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Store{client: client, bucket: bucket, prefix: prefix, timeout: opts.Timeout}
}

// ReadRange implements Store with one ranged GetObject
// (Range: bytes=off-(off+n-1)); n == 0 sends a HeadObject to report a
// missing key.
func (s *Store) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := blob.CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		if _, err := s.Stat(ctx, key); err != nil {
			return nil, err
		}
		return []byte{}, nil
	}
	rng := byteRange(off, n)
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out, err := s.client.GetObject(cctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
		Range:  aws.String(rng),
	})
	if err != nil {
		if httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
			return []byte{}, nil // off is at or past the end
		}
		return nil, s.wrap(ctx, "read", key, err)
	}
	defer out.Body.Close()
	data, err := readBody(out, off, n)
	if err != nil {
		return nil, s.wrap(ctx, "read", key, err)
	}
	return data, nil
}

// ReadRangeIf implements Pinned with one ranged GetObject carrying
// If-Match: etag. S3 answers 412 Precondition Failed when the object's ETag
// is another, which becomes an error wrapping blob.ErrChanged.
func (s *Store) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	if err := blob.CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if n == 0 {
		info, err := s.Stat(ctx, key)
		if err != nil {
			return nil, err
		}
		if info.ETag != etag {
			return nil, blob.Changed(key, etag, info.ETag)
		}
		return []byte{}, nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out, err := s.client.GetObject(cctx, &s3.GetObjectInput{
		Bucket:  aws.String(s.bucket),
		Key:     aws.String(s.prefix + key),
		Range:   aws.String(byteRange(off, n)),
		IfMatch: aws.String(etag),
	})
	if err != nil {
		switch httpStatus(err) {
		case http.StatusRequestedRangeNotSatisfiable:
			return []byte{}, nil
		case http.StatusPreconditionFailed:
			return nil, fmt.Errorf("blob: read s3://%s/%s%s: opened as %s: %w: %w", s.bucket, s.prefix, key, etag, blob.ErrChanged, err)
		}
		return nil, s.wrap(ctx, "read", key, err)
	}
	defer out.Body.Close()
	if got := aws.ToString(out.ETag); got != "" && got != etag {
		// An endpoint that ignores If-Match (some emulators) still names the
		// version it sent.
		return nil, blob.Changed(key, etag, got)
	}
	data, err := readBody(out, off, n)
	if err != nil {
		return nil, s.wrap(ctx, "read", key, err)
	}
	return data, nil
}

// byteRange is the Range header of n bytes at off.
func byteRange(off, n int64) string {
	if n >= math.MaxInt64-off {
		return fmt.Sprintf("bytes=%d-", off) // to the end; off+n-1 would overflow an int64
	}
	return fmt.Sprintf("bytes=%d-%d", off, off+n-1)
}

// readBody reads the bytes [off, off+n) from a GetObject answer.
func readBody(out *s3.GetObjectOutput, off, n int64) ([]byte, error) {
	if out.ContentRange == nil {
		// The server ignored Range and sent the whole object.
		all, err := io.ReadAll(io.LimitReader(out.Body, off+min(n, math.MaxInt64-off)))
		if err != nil {
			return nil, err
		}
		return blob.Clip(all, off, n), nil
	}
	if total, ok := rangeTotal(*out.ContentRange); ok && off >= total {
		// Some emulators (s3rver 3.7.1) answer a range on an empty object
		// with "Content-Range: bytes 0-0/0" and a Content-Length of 1 but
		// no body; S3 answers 416. Both mean the end.
		return []byte{}, nil
	}
	size := aws.ToInt64(out.ContentLength)
	if out.ContentLength == nil || size < 0 || size > n {
		return io.ReadAll(io.LimitReader(out.Body, n))
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(out.Body, buf); err != nil {
		return nil, err // a cut connection: io.ErrUnexpectedEOF
	}
	return buf, nil
}

// rangeTotal returns the object size of a Content-Range header such as
// "bytes 0-99/1000"; ok is false when it is absent or "*".
func rangeTotal(contentRange string) (total int64, ok bool) {
	i := strings.LastIndexByte(contentRange, '/')
	if i < 0 {
		return 0, false
	}
	total, err := strconv.ParseInt(contentRange[i+1:], 10, 64)
	return total, err == nil && total >= 0
}

// Stat implements Store with HeadObject.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	if err := blob.CheckKey(key); err != nil {
		return blob.Info{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out, err := s.client.HeadObject(cctx, &s3.HeadObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
	})
	if err != nil {
		return blob.Info{}, s.wrap(ctx, "stat", key, err)
	}
	return blob.Info{
		Size:    aws.ToInt64(out.ContentLength),
		ETag:    aws.ToString(out.ETag),
		ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// Put uploads the contents of r to key with one PutObject (atomic on S3:
// readers see the old object or the new one). A reader that is not an
// io.ReadSeeker is read into memory first, because the SDK needs to rewind
// the body for signing, checksums and retries.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	body, ok := r.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("blob: put %s: %w", key, err)
		}
		body = bytes.NewReader(data)
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
		Body:   body,
	})
	if err != nil {
		return s.wrap(ctx, "put", key, err)
	}
	return nil
}

// wrap translates an SDK error to the package's sentinels. parent is the
// caller's context, to tell its cancellation from our own timeout.
func (s *Store) wrap(parent context.Context, op, key string, err error) error {
	where := fmt.Sprintf("blob: %s s3://%s/%s%s", op, s.bucket, s.prefix, key)
	var noKey *types.NoSuchKey
	var notFound *types.NotFound
	switch {
	case errors.As(err, &noKey), errors.As(err, &notFound), httpStatus(err) == http.StatusNotFound:
		// NoSuchBucket too: to a reader a missing bucket is a missing key.
		return fmt.Errorf("%s: %w: %w", where, fs.ErrNotExist, err)
	case errors.Is(parent.Err(), context.Canceled):
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("%s: %w", where, err)
		}
		return fmt.Errorf("%s: %w: %w", where, context.Canceled, err)
	case unavailable(err):
		return fmt.Errorf("%s: %w: %w", where, blob.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", where, err)
}

// unavailable reports whether err is throttling, a timeout, a network failure
// or a server error.
func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	if code := httpStatus(err); code == http.StatusTooManyRequests || code >= 500 {
		return true
	}
	// The SDK's own checks for transient failures: connection errors,
	// 500/502/503/504, throttling codes (SlowDown) and RequestTimeout.
	if retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

// httpStatus returns the HTTP status of an SDK response error, or 0.
func httpStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange" {
		return http.StatusRequestedRangeNotSatisfiable
	}
	return 0
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// Region; when empty, the SDK's default chain (AWS_REGION, profile),
	// and us-east-1 if that finds none.
	Region string
	// Endpoint is a custom endpoint such as http://127.0.0.1:4569 for an
	// emulator; empty means AWS.
	Endpoint string
	// PathStyle addresses buckets as endpoint/bucket/key (emulators)
	// instead of bucket.endpoint/key.
	PathStyle bool
	// AccessKeyID and SecretAccessKey set static credentials (emulators);
	// when empty, the SDK's default chain (environment, Lambda role) is used.
	AccessKeyID, SecretAccessKey string
	// MaxAttempts is the number of attempts per call, retries included;
	// 2 when zero.
	MaxAttempts int
	// FirstByteTimeout ends a stalled attempt (awsconf.Options); the
	// Lambdas set awsconf.FirstByteTimeout. Zero: none.
	FirstByteTimeout time.Duration
}

// NewClient builds an *s3.Client from config.LoadDefaultConfig for use with
// New. It keeps SDK retries modest (see the package doc) and validates
// response checksums only when an operation requires it: ranged GETs cannot
// be checked against a whole-object checksum anyway, and gofakes3 echoes the
// whole-object CRC32 on ranged GETs, which fails the SDK's default check.
// Call it once at cold start, not per request.
func NewClient(ctx context.Context, o ClientOptions) (*s3.Client, error) {
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = 2
	}
	cfg, err := awsconf.Load(ctx, awsconf.Options{Region: o.Region, AccessKeyID: o.AccessKeyID, SecretAccessKey: o.SecretAccessKey,
		MaxAttempts: attempts, BaseBackoff: 100 * time.Millisecond, FirstByteTimeout: o.FirstByteTimeout},
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = o.PathStyle
	}), nil
}

// ReadFirst implements blob.FirstReader: one ranged GET of the first n
// bytes, whose answer names the object's version (ETag), size
// (Content-Range) and date. An empty object, which S3 answers with 416,
// is read with Stat.
func (s *Store) ReadFirst(ctx context.Context, key string, n int64) ([]byte, blob.Info, error) {
	if err := blob.CheckRead(key, 0, n); err != nil {
		return nil, blob.Info{}, err
	}
	if n == 0 {
		info, err := s.Stat(ctx, key)
		return []byte{}, info, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out, err := s.client.GetObject(cctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
		Range:  aws.String(byteRange(0, n)),
	})
	if err != nil {
		if httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
			info, err := s.Stat(ctx, key)
			return []byte{}, info, err
		}
		return nil, blob.Info{}, s.wrap(ctx, "read", key, err)
	}
	defer out.Body.Close()
	info := blob.Info{ETag: aws.ToString(out.ETag), ModTime: aws.ToTime(out.LastModified)}
	if out.ContentRange == nil {
		info.Size = aws.ToInt64(out.ContentLength) // the whole object was sent
	} else if total, ok := rangeTotal(*out.ContentRange); ok {
		info.Size = total
	} else {
		return nil, blob.Info{}, fmt.Errorf("blob: read s3://%s/%s%s: Content-Range %q names no size", s.bucket, s.prefix, key, *out.ContentRange)
	}
	data, err := readBody(out, 0, n)
	if err != nil {
		return nil, blob.Info{}, s.wrap(ctx, "read", key, err)
	}
	return data, info, nil
}
