package blob

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// Files is a Dir that keeps open the file of each key it has read pinned
// (ReadRangeIf), so that a pinned read is one pread system call instead of
// opening the root and the file, stating and closing both (six calls: a
// fifth of a province-size grid lookup's CPU when its block was not
// cached, issue 34).
//
// It is safe because a pinned read names the version it wants: the file is
// kept with the version tag it had when opened, and a file is never
// written in place (Put and every writer of this repository replace a
// file by renaming a new one over it), so the open file goes on reading
// that version's bytes after a replacement. A read of another tag opens
// the key again: the current file, ErrChanged when its tag is not the one
// asked for. Readers learn of a new version by Stat, as on S3, and Stat
// and unpinned reads go to the directory each time.
//
// It holds at most one open file per key read pinned; a file replaced by a
// newer version is dropped and closed by the runtime once no read uses it.
type Files struct {
	*Dir
	mu   sync.RWMutex
	open map[string]*openFile
}

type openFile struct {
	f    *os.File
	etag string
	size int64
}

// NewFiles returns a Files over the directory root.
func NewFiles(root string) *Files {
	return &Files{Dir: NewDir(root), open: map[string]*openFile{}}
}

// ReadRangeIf implements Pinned.
func (fs *Files) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	fs.mu.RLock()
	of := fs.open[key]
	fs.mu.RUnlock()
	if of == nil || of.etag != etag {
		f, fi, err := fs.openStat(key)
		if err != nil {
			return nil, fmt.Errorf("blob: read %s: %w", key, err)
		}
		got := dirETag(fi.Size(), fi.ModTime())
		if got != etag {
			f.Close()
			return nil, Changed(key, etag, got)
		}
		of = &openFile{f: f, etag: got, size: fi.Size()}
		fs.mu.Lock()
		if cur := fs.open[key]; cur != nil && cur.etag == got {
			f.Close()
			of = cur // another read opened the same version first
		} else {
			fs.open[key] = of // the one it replaces is closed by its cleanup when unused
		}
		fs.mu.Unlock()
	}
	return readAt(of.f, key, of.size, off, n)
}
