// Package release describes a published set of data files in an object
// store: each file is uploaded under a content-addressed key, and a small
// manifest object, written last, names the key that holds each file.
//
// Overwriting a file in place breaks its readers: a grid index or tile
// archive is opened once (a header and directories read at open) and then
// read by byte ranges, so a reader that opened the old object would read
// new bytes at old offsets. Content-addressed keys are never overwritten:
// a reader that resolved a name through the manifest keeps reading the
// bytes it opened for as long as it holds the key (a warm Lambda until its
// next cold start), and a new manifest only changes what the next open
// finds. Publishing is in this order: every object of the release is
// uploaded (an S3 PutObject is atomic, so an object that exists is
// complete) and checked, then the manifest is written with one PutObject,
// conditional on the manifest being the one the publish read when it
// started (If-Match its ETag, If-None-Match * when there was none), so of
// two overlapping publishes the second to finish fails instead of
// replacing a release it never saw. A publish that fails before the
// manifest changes nothing readers see.
//
// Objects of older releases stay in the store; deleting those no manifest
// names (after a delay longer than a reader holds a key) is the job of a
// bucket lifecycle rule or a later sweep.
package release

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// ManifestKey is the manifest object's key, relative to a store's prefix
// ("grid/MANIFEST.json" in a deployment's bucket).
const ManifestKey = "MANIFEST.json"

// MaxManifestBytes bounds the manifest read: a few hundred bytes per file.
const MaxManifestBytes = 1 << 20

// contentDir is the key prefix of content-addressed objects.
const contentDir = "v/"

// File is one file of a release.
type File struct {
	Key    string `json:"key"`    // the content-addressed key holding it
	Size   int64  `json:"size"`   // bytes
	SHA256 string `json:"sha256"` // hex
}

// Manifest names the files of a release by their logical names
// ("altalis-ats-v4.1.mgix", "ab/sec.pmtiles").
type Manifest struct {
	Published time.Time       `json:"published"`
	Files     map[string]File `json:"files"`
}

// ContentKey returns the key under which a file named name with SHA-256
// sum is stored: "v/<first 32 hex digits of sum>/<name>". The name stays
// last so that the object keeps its extension for people browsing the
// bucket.
func ContentKey(name string, sum []byte) string {
	h := hex.EncodeToString(sum)
	if len(h) > 32 {
		h = h[:32]
	}
	return contentDir + h + "/" + name
}

// Resolve returns the key holding the file named name, and whether the
// manifest names it.
func (m Manifest) Resolve(name string) (string, bool) {
	f, ok := m.Files[name]
	return f.Key, ok
}

// Validate reports a manifest that could not have been written by a
// publish: keys outside v/, relative path tricks, negative sizes.
func (m Manifest) Validate() error {
	for name, f := range m.Files {
		clean := path.Clean(f.Key)
		if name == "" || !strings.HasPrefix(f.Key, contentDir) || clean != f.Key || strings.Contains(f.Key, "..") || f.Size < 0 {
			return fmt.Errorf("release: manifest entry %q names key %q of %d bytes", name, f.Key, f.Size)
		}
	}
	return nil
}

// Store is the part of a blob store that Read uses.
type Store interface {
	ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error)
}

// ErrCorrupt is wrapped by the error of Read for a manifest that is not
// one: bad JSON, too large, invalid entries.
var ErrCorrupt = errors.New("release: corrupt manifest")

// Read reads the manifest of store, or ok == false when there is none (a
// deployment published before manifests existed: readers then use the
// logical names as keys).
func Read(ctx context.Context, store Store) (m Manifest, ok bool, err error) {
	data, err := store.ReadRange(ctx, ManifestKey, 0, MaxManifestBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, fmt.Errorf("release: read %s: %w", ManifestKey, err)
	}
	if len(data) > MaxManifestBytes {
		return Manifest{}, false, fmt.Errorf("release: %s is over %d bytes: %w", ManifestKey, MaxManifestBytes, ErrCorrupt)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, false, fmt.Errorf("release: %s: %w: %w", ManifestKey, ErrCorrupt, err)
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return m, true, nil
}
