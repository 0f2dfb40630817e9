package datafetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"meridian/shared/atomicfile"
)

// On disk, under the downloads directory (DATA/downloads):
//
//	<key>/state.json          the pointer: the current version and, per URL,
//	                          its validators, size, SHA-256 and files
//	<key>/<version>/          the unpacked files of the current version (flat)
//	<key>/.partial/<name>     an interrupted download, resumed with Range
//	<key>/.partial/<name>.json  the validators it was started under
//	<key>/.new-*/             a version being built (removed if it fails)
//
// A version is committed by writing state.json (written whole, synced,
// renamed into place, directory synced) after its ingest succeeded; the
// previous version's directory is removed after that. Until then the
// previous state and files stay as they were.

const stateFile = "state.json"

// FileState is what was downloaded from one URL.
type FileState struct {
	URL          string    `json:"url"`
	Name         string    `json:"name"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	Size         int64     `json:"size"`
	SHA256       string    `json:"sha256"`
	Files        []string  `json:"files"` // unpacked, names in the version directory
	Fetched      time.Time `json:"fetched"`
}

// State is a dataset's current download.
type State struct {
	Version string      `json:"version"`
	Files   []FileState `json:"files"`
}

func (s *State) file(url string) *FileState {
	if s == nil {
		return nil
	}
	for i := range s.Files {
		if s.Files[i].URL == url {
			return &s.Files[i]
		}
	}
	return nil
}

// ReadState returns the current state of dataset key under dir; nil when
// it was never fetched.
func ReadState(dir, key string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, key, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("datafetch: %s: %w", filepath.Join(dir, key, stateFile), err)
	}
	return &s, nil
}

// writeState replaces key's state.json atomically and durably.
func writeState(dir, key string, s *State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, key, stateFile), append(b, '\n'))
}

// writeFileAtomic writes path through a temporary file that
// atomicfile.Rename syncs, with its directory, and renames into place, so a
// crash leaves the old or the new file whole.
func writeFileAtomic(path string, data []byte) error {
	d := filepath.Dir(path)
	tmp, err := os.CreateTemp(d, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return atomicfile.Rename(tmp.Name(), path)
}
