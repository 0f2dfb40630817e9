package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// maxOpenFiles bounds the files an OpenDir keeps open: one per archive
// version being read; a server reads a few dozen archives.
const maxOpenFiles = 256

// OpenDir is a [Dir] whose pinned reads ([Pinned]) keep the file of each
// version open: a pinned read of key at tag T is served by the handle
// opened when the file had tag T, after an fstat of that handle confirms it
// still has it, so a read costs two system calls (fstat, pread) instead of
// Dir's six (open the root, open the file, fstat, pread, close both).
//
// A file renamed over the key (a rebuilt archive, Put) leaves the handle on
// the old inode, which still holds the version asked for: reads of T go on
// returning T's bytes, never the new file's, until the reader moves to the
// new tag. A file modified in place changes its tag, and reads of the old
// tag fail with ErrChanged as Dir's do. The handle of a key is closed when
// a read or a Stat finds another tag there (or no file), once the reads
// using it have returned; at most maxOpenFiles are open.
//
// Everything else (ReadRange, Stat, List, Put) is Dir's.
type OpenDir struct {
	*Dir

	mu    sync.Mutex
	files map[string]*openFile // by key
}

type openFile struct {
	f       *os.File
	etag    string
	refs    int  // reads in progress
	retired bool // replaced or evicted: closed when refs reaches 0
}

// NewOpenDir returns an OpenDir over root.
func NewOpenDir(root string) *OpenDir {
	return &OpenDir{Dir: NewDir(root), files: map[string]*openFile{}}
}

// ReadRangeIf implements Pinned.
func (d *OpenDir) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	of, err := d.acquire(key, etag)
	if err != nil {
		return nil, err
	}
	defer d.release(of)
	fi, err := of.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	if got := dirETag(fi.Size(), fi.ModTime()); got != etag {
		// Modified in place: this handle no longer holds version etag.
		d.retire(key, of)
		return nil, Changed(key, etag, got)
	}
	return readAt(of.f, key, fi.Size(), off, n)
}

// acquire returns the open file of key at etag, opening it when there is
// none, with one more reference.
func (d *OpenDir) acquire(key, etag string) (*openFile, error) {
	d.mu.Lock()
	if of := d.files[key]; of != nil && of.etag == etag {
		of.refs++
		d.mu.Unlock()
		return of, nil
	}
	d.mu.Unlock()

	f, fi, err := d.openStat(key)
	if err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	got := dirETag(fi.Size(), fi.ModTime())
	if got != etag {
		f.Close()
		return nil, Changed(key, etag, got)
	}
	of := &openFile{f: f, etag: etag, refs: 1}
	d.mu.Lock()
	defer d.mu.Unlock()
	if cur := d.files[key]; cur != nil {
		if cur.etag == etag { // another read opened it meanwhile
			cur.refs++
			f.Close()
			return cur, nil
		}
		d.retireLocked(key, cur)
	}
	if len(d.files) >= maxOpenFiles {
		for k, o := range d.files { // any one: more archives than this is not expected
			d.retireLocked(k, o)
			break
		}
	}
	d.files[key] = of
	return of, nil
}

func (d *OpenDir) release(of *openFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	of.refs--
	if of.retired && of.refs == 0 {
		of.f.Close()
	}
}

// retire drops of as key's open file.
func (d *OpenDir) retire(key string, of *openFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.files[key] == of {
		d.retireLocked(key, of)
	}
}

// retireLocked removes of from the open files; it is closed now or by the
// last read using it. d.mu must be held.
func (d *OpenDir) retireLocked(key string, of *openFile) {
	delete(d.files, key)
	of.retired = true
	if of.refs == 0 {
		of.f.Close()
	}
}

// Stat implements Store (Dir's), and closes the open file of key when the
// key now holds another version or nothing.
func (d *OpenDir) Stat(ctx context.Context, key string) (Info, error) {
	info, err := d.Dir.Stat(ctx, key)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return info, err
	}
	d.mu.Lock()
	if of := d.files[key]; of != nil && (err != nil || of.etag != info.ETag) {
		d.retireLocked(key, of)
	}
	d.mu.Unlock()
	return info, err
}

// OpenFiles is the number of files held open.
func (d *OpenDir) OpenFiles() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.files)
}
