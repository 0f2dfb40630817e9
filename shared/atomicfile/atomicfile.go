// Package atomicfile replaces a file by renaming a complete temporary file
// over it, durably: the data and the directory entries reach the disk
// before and after the rename, so a crash or power loss leaves the old file
// or the new one, whole, and never an empty or partial file under the name
// (on ext4 and XFS a rename without a prior fsync can leave a zero-length
// file after a crash).
//
// Every writer that installs a file into a data directory (grid indexes,
// tile archives, blob.Dir's Put, the keys file) goes through [Rename]; a
// test of this package checks that no other code calls os.Rename.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Rename makes the file tmp durable and renames it to path, which it
// replaces: it syncs tmp's data, syncs tmp's directory (so the temporary
// entry exists on disk), renames, and syncs path's directory (so the new
// entry does). tmp must be complete and may be open elsewhere; it is
// opened here for the sync. When Rename fails before the rename, path is
// untouched and tmp is left for the caller to remove.
func Rename(tmp, path string) error {
	if err := SyncFile(tmp); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := SyncDir(filepath.Dir(tmp)); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("atomicfile: renamed %s to %s, not yet durable: %w", tmp, path, err)
	}
	return nil
}

// SyncFile flushes the data of the file at name to disk.
func SyncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir flushes the entries of directory dir to disk. Windows cannot sync
// a directory (and needs no such sync), so there it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// RenameDir renames the directory dir to path (which must not exist, or be
// an empty directory) durably: dir's entries and its parent's are synced
// before the rename and path's parent after it. The files inside dir must
// already be synced (SyncFile) by the caller that wrote them.
func RenameDir(dir, path string) error {
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := SyncDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := os.Rename(dir, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("atomicfile: renamed %s to %s, not yet durable: %w", dir, path, err)
	}
	return nil
}

// ErrLocked is wrapped by the error of a Lock held by another process.
var ErrLocked = errors.New("locked by another process")
