package datafetch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"meridian/shared/atomicfile"
)

// Lock takes the downloads directory for this process: two fetches at
// once would stage and commit the same datasets over each other.
func (f *Fetcher) Lock() (unlock func(), err error) {
	if err := os.MkdirAll(f.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err = atomicfile.Lock(filepath.Join(f.opts.Dir, ".lock"))
	if errors.Is(err, atomicfile.ErrLocked) {
		return nil, fmt.Errorf("datafetch: another data fetch is running on %s", f.opts.Dir)
	}
	return unlock, err
}
