package blob

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ErrChanged is wrapped by the errors of a pinned read ([Pinned]) whose
// object is no longer the version named: it was replaced since its tag was
// read. The reader reopens the object (reads its header and directories
// again under the new tag) and retries; it never combines bytes read under
// two tags.
var ErrChanged = errors.New("blob: object changed since it was opened")

// Pinned is a store that reads a range of one version of an object, named
// by the version tag Stat returned: S3 sends If-Match with the ETag on the
// ranged GET (412 Precondition Failed becomes ErrChanged), Dir compares the
// tag of the file it opened with the one asked for before reading through
// that same handle, Mem compares its counters. Every store of this package
// implements it, [Cached] and [Counting] when the store they wrap does.
//
// A reader that answers from several ranges of one object (a PMTiles
// header, directory and tile; a grid index header and record) records the
// tag when it opens the object and pins every later read to it, so an
// object replaced in place (a rebuilt archive renamed over the old one, a
// republished S3 key) is either read whole as the old version or noticed,
// never read as a mixture.
type Pinned interface {
	ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error)
}

// Changed returns the ErrChanged error of a pinned read of key.
func Changed(key, want, got string) error {
	return fmt.Errorf("blob: read %s: version %s, opened as %s: %w", key, got, want, ErrChanged)
}

// ReadRangeIf implements Pinned: it opens the file, compares the tag of the
// open file (size and modification time, as Stat computes it) with etag,
// and reads through that handle, so a file renamed over the key after the
// comparison cannot be read by this call.
func (d *Dir) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	f, fi, err := d.openStat(key)
	if err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	defer f.Close()
	if got := dirETag(fi.Size(), fi.ModTime()); got != etag {
		return nil, Changed(key, etag, got)
	}
	return readAt(f, key, fi.Size(), off, n)
}

// ReadRangeIf implements Pinned.
func (m *Mem) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	o, err := m.object(ctx, key, off, n)
	if err != nil {
		return nil, err
	}
	if o.etag != etag {
		return nil, Changed(key, etag, o.etag)
	}
	return slices.Clone(Clip(o.data, off, n)), nil
}

// ReadRangeIf implements Pinned when the wrapped store does.
func (c *Counting) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	p, ok := c.s.(Pinned)
	if !ok {
		return nil, fmt.Errorf("blob: read %s: %T cannot read a pinned version", key, c.s)
	}
	b, err := p.ReadRangeIf(ctx, key, etag, off, n)
	c.reads.Add(1)
	c.bytes.Add(int64(len(b)))
	return b, err
}
