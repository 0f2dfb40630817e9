package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tmpPrefix starts the names of Put's temporary files; List skips them.
const tmpPrefix = ".blob-tmp-"

// Dir is a Store over the files under a root directory. It is safe for
// concurrent use and holds no open files between calls.
//
// Every call opens the root with [os.OpenRoot] and the file through it, so a
// key can never reach outside the root, not even through a symbolic link
// (links that stay inside the root work), and a file replaced by Put or by
// another process is seen by the next call. Keeping files open would save the
// open and close system calls (a few microseconds) but would serve replaced
// files from the old inode; [Cached] is the answer for hot paths.
type Dir struct {
	root string
}

// NewDir returns a Dir over root. The directory need not exist yet: reads
// report missing keys until it does, and Put creates it.
func NewDir(root string) *Dir {
	return &Dir{root: root}
}

// localName converts a key to a name relative to the root.
func localName(key string) (string, error) {
	name, err := filepath.Localize(key)
	if err != nil {
		return "", fmt.Errorf("blob: invalid key %q: %w", key, fs.ErrInvalid)
	}
	return name, nil
}

// open opens key for reading and returns it with its size. A directory, or
// a path through a regular file, is a missing key as it would be on S3.
func (d *Dir) open(key string) (*os.File, int64, error) {
	f, fi, err := d.openStat(key)
	if err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// openStat is open returning the open file's FileInfo.
func (d *Dir) openStat(key string) (*os.File, fs.FileInfo, error) {
	name, err := localName(key)
	if err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, nil, notExist(err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, notExist(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file: %w", name, fs.ErrNotExist)
	}
	return f, fi, nil
}

// notExist makes ENOTDIR (a key that passes through a file) a missing key.
func notExist(err error) error {
	if errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return err
}

// ReadRange implements Store.
func (d *Dir) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	f, size, err := d.open(key)
	if err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	defer f.Close()
	return readAt(f, key, size, off, n)
}

// readAt reads up to n bytes at off of the open file f of key, whose size
// is size: none past the end, short only if the file shrank since.
func readAt(f *os.File, key string, size, off, n int64) ([]byte, error) {
	if off >= size {
		return []byte{}, nil
	}
	buf := make([]byte, min(n, size-off))
	m, err := f.ReadAt(buf, off)
	if err != nil && !(errors.Is(err, io.EOF) && m < len(buf)) {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	return buf[:m], nil
}

// Stat implements Store. The ETag is the size and the modification time in
// nanoseconds, in hex: Put replaces a file with a new one, so it changes.
func (d *Dir) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	f, size, err := d.open(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	mod := fi.ModTime()
	return Info{Size: size, ETag: dirETag(size, mod), ModTime: mod}, nil
}

// dirETag is the version tag of a file of size bytes last modified at mod.
func dirETag(size int64, mod time.Time) string {
	return strconv.Quote(strconv.FormatInt(size, 16) + "-" + strconv.FormatInt(mod.UnixNano(), 16))
}

// Put writes the contents of r to key atomically: into a temporary file in
// the key's directory, synced, then renamed over the key, so readers see the
// old file or the new one and never a part. Missing directories, the root
// included, are created. On error the old file, if any, is untouched.
func (d *Dir) Put(ctx context.Context, key string, r io.Reader) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("blob: put %s: %w", key, err)
		}
	}()
	if err := CheckKey(key); err != nil {
		return err
	}
	name, err := localName(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(d.root)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := filepath.Dir(name)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// As atomicfile.Rename does, through the root: the directory is synced
	// before the rename (the temporary entry is on disk) and after it (the
	// new entry is); not every platform can sync a directory.
	syncDir := func() {
		if df, err := root.Open(dir); err == nil {
			df.Sync()
			df.Close()
		}
	}
	syncDir()
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	syncDir()
	return nil
}

// List returns the keys of the regular files whose keys start with prefix,
// sorted. Put's temporary files are left out.
func (d *Dir) List(ctx context.Context, prefix string) ([]string, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("blob: list %s: %w", prefix, err)
	}
	defer root.Close()
	start := "."
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = prefix[:i]
	}
	var keys []string
	err = fs.WalkDir(root.FS(), start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(notExist(err), fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() && p != "." && !strings.HasPrefix(p+"/", prefix) && !strings.HasPrefix(prefix, p+"/") {
			return fs.SkipDir // no key under p can start with prefix
		}
		if e.Type().IsRegular() && strings.HasPrefix(p, prefix) && !strings.HasPrefix(path.Base(p), tmpPrefix) {
			keys = append(keys, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("blob: list %s: %w", prefix, err)
	}
	slices.Sort(keys)
	return keys, nil
}
