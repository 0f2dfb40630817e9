//go:build unix

package datafetch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes the downloads directory for this process: two fetches at
// once would stage and commit the same datasets over each other. The lock
// is the kernel's (flock), so a crashed run leaves none behind.
func (f *Fetcher) Lock() (unlock func(), err error) {
	if err := os.MkdirAll(f.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(f.opts.Dir, ".lock")
	fh, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fh.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("datafetch: another data fetch is running on %s", f.opts.Dir)
		}
		return nil, fmt.Errorf("datafetch: lock %s: %w", p, err)
	}
	return func() {
		syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
		fh.Close()
	}, nil
}
