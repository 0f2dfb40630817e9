//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes the lock file at path (created if missing) for this process
// without waiting: it fails with an error wrapping ErrLocked when another
// process holds it. The lock is the kernel's (flock), so a crashed holder
// leaves none behind. unlock releases it.
func Lock(path string) (unlock func(), err error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: lock: %w", err)
	}
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fh.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("atomicfile: %s: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("atomicfile: lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
		fh.Close()
	}, nil
}
