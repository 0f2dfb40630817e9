// Package blob reads byte ranges of named objects: grid index files today,
// PMTiles archives later. The same code runs locally against a directory
// ([Dir]) and on AWS against S3 (package s3blob, kept apart so
// that what never reads S3 does not link the AWS SDK); [Mem] is the fake for tests, [Cached]
// is a read-through block cache in front of any of them, and [Counting]
// counts reads for benchmarks.
//
// # Contract
//
// Every implementation of [Store] behaves the same way, and the suite in
// package meridian/shared/blob/blobtest checks it against each of them:
//
//   - Keys are relative, slash-separated names such as "grid/ats.idx": valid
//     [io/fs.ValidPath] names other than ".", without NUL bytes. "", "/abs",
//     "../x", "a/./b", "a//b" and "a/" are rejected with an error wrapping
//     [io/fs.ErrInvalid], as are a negative offset or length. Keys are never
//     cleaned, so "a/./b" cannot mean "a/b" on one store and something else on
//     another.
//   - ReadRange(ctx, key, off, n) returns the n bytes at off. Near the end of
//     the object it returns the bytes that exist, and at or past the end it
//     returns 0 bytes and no error (like a short [io.ReaderAt] read without the
//     io.EOF; on S3 the 416 InvalidRange answer becomes this empty result).
//     n == 0 returns 0 bytes but still reports a missing key. The returned
//     slice belongs to the caller.
//   - A missing key is an error wrapping [io/fs.ErrNotExist] from ReadRange and
//     Stat in every implementation (S3's NoSuchKey and HEAD 404 are translated).
//   - Stat returns the size and a version tag: the ETag on S3, a quoted
//     "size-mtime" tag locally, a quoted counter in [Mem]. Tags are opaque; a
//     different tag means different content may be served.
//   - Throttling (503 SlowDown, 429), other 5xx answers, timeouts and network
//     failures are errors wrapping [ErrUnavailable]. A context that was
//     already canceled gives an error wrapping [context.Canceled].
//
// At the API edge, [AsAPIError] turns any read failure into the 503
// upstream_unavailable error of package apierr (see its doc for why a missing
// key is a 503 too).
//
// Consumers declare the interface they use, e.g. in a grid index reader:
//
//	type rangeReader interface {
//		ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error)
//		Stat(ctx context.Context, key string) (blob.Info, error)
//	}
//
// # Writing
//
// The ingest path writes with Put(ctx, key, r), which [Dir], s3blob and [Mem]
// share: atomic on each (temporary file and rename locally, one PutObject on
// S3), so readers see the old object or the new one. [Dir] and [Mem] also
// List keys by prefix. Neither is part of Store.
//
// # Caching
//
// [Cached] keeps aligned 64 KiB blocks (by default) in a 64 MiB LRU and
// turns repeated small reads into memory copies; one S3 request costs the
// same for 1 byte or 64 KiB. Put a Cached in front of s3blob in Lambdas (it
// lives across warm invocations when built before lambda.Start) and in front
// of Dir in the local server. Readers that may see an object replaced in
// place call Stat now and then: a new ETag drops the old blocks.
//
// # Pinned reads
//
// A reader that answers from several ranges of one object records the
// version tag when it opens it and reads through [Pinned.ReadRangeIf]:
// If-Match on S3, a comparison with the opened file's tag locally. A
// replaced object fails with [ErrChanged] instead of giving bytes of another
// version at the old offsets, and the reader reopens. [Cached] caches pinned
// blocks per (key, tag), so no cached block crosses versions either.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"meridian/shared/apierr"
)

// Store reads byte ranges of named objects ("keys", slash-separated,
// relative). Consumers should declare the smaller interface they need; Store
// is what every implementation in this package provides.
type Store interface {
	// ReadRange returns n bytes at offset off of key (fewer only at the end
	// of the object; none at or past it).
	ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error)
	// Stat returns the object's size and a version tag (ETag on S3;
	// size+mtime locally).
	Stat(ctx context.Context, key string) (Info, error)
}

// Info describes a stored object.
type Info struct {
	Size    int64
	ETag    string // opaque version tag, quoted like an HTTP entity tag
	ModTime time.Time
}

// ErrUnavailable is wrapped by errors caused by throttling, timeouts and
// network or server failures: retryable conditions of the store, not of the
// request. Callers map it to 503 upstream_unavailable ([AsAPIError]).
var ErrUnavailable = errors.New("blob: store unavailable")

// AsAPIError maps a store error to the client-facing error of package apierr.
// what names the data for the client, e.g. "the Alberta grid index".
//
//   - nil stays nil, and an *apierr.Error is returned unchanged.
//   - An invalid key, offset or length (fs.ErrInvalid) is a bug in the
//     caller, not a client or upstream problem: it is returned unchanged and
//     becomes a 500 at the edge.
//   - Everything else becomes apierr.Unavailablef (503 upstream_unavailable)
//     with err as the logged cause: ErrUnavailable, deadlines, and also a
//     missing key (fs.ErrNotExist). The keys this package serves are named by
//     configuration, not by clients, so a missing grid index or archive is a
//     deployment fault the client can only wait out, and ARCHITECTURE.md §4
//     lists "a data file cannot be read" under 503. A caller for which a
//     missing key is the client's doing (a tile archive named in the URL)
//     checks errors.Is(err, fs.ErrNotExist) first and answers 404 or 403.
func AsAPIError(err error, what string) error {
	if err == nil {
		return nil
	}
	if e := apierr.As(err); e != nil {
		return err
	}
	if errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return apierr.Unavailablef(err, "%s cannot be read at the moment; try again later", what)
}

// CheckKey reports whether key is a valid key (see the package doc). Store
// implementations outside this package (s3blob) check with it too.
func CheckKey(key string) error {
	if key == "." || !fs.ValidPath(key) || strings.IndexByte(key, 0) >= 0 {
		return fmt.Errorf("blob: invalid key %q: %w", key, fs.ErrInvalid)
	}
	return nil
}

// CheckRead validates the arguments of ReadRange, for every Store.
func CheckRead(key string, off, n int64) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if off < 0 || n < 0 {
		return fmt.Errorf("blob: read %s: negative offset %d or length %d: %w", key, off, n, fs.ErrInvalid)
	}
	return nil
}

// checkPrefix validates a List prefix: "" or the start of a valid key.
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	p := strings.TrimSuffix(prefix, "/")
	if p == "" || !fs.ValidPath(p) || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("blob: invalid prefix %q: %w", prefix, fs.ErrInvalid)
	}
	return nil
}

// Clip returns the part [off, off+n) of data, empty at or past its end.
// The result aliases data.
func Clip(data []byte, off, n int64) []byte {
	size := int64(len(data))
	if off >= size {
		return data[:0:0]
	}
	return data[off : off+min(n, size-off)]
}
