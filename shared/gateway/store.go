package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"meridian/shared/atomicfile"
)

// File names inside a data directory. The keys file and the usage file may
// live elsewhere (Options.KeysPath, Options.UsagePath); the CLI and
// EnsureDemoKey use these names under the data directory they are given.
const (
	KeysFile    = "keys.json"  // keys: hashes, names, products→plans (written by the CLI)
	UsageFile   = "usage.json" // monthly counts (written by the server)
	DemoKeyFile = "demo-key"   // the demo key in plain text, mode 0600
	MapKeyFile  = "map-key"    // the map page's key in plain text, mode 0600
	PlansFile   = "plans.json" // optional overrides of DefaultPlans (LoadPlans)
)

// keysFileVersion is the format written; files without a version (written
// by hand) are read as version 1.
const keysFileVersion = 1

// keysDoc is the keys file:
//
//	{"version": 1, "keys": [{"id": "k3j9x2ab", "name": "acme",
//	  "sha256": "<hex SHA-256 of the key>", "products": {"search": "default"},
//	  "created_at": "2026-11-21T14:03:00Z", "revoked_at": "2026-11-22T09:00:00Z"}]}
//
// An operator may add a record by hand for a key issued elsewhere (a "tc_…"
// key): sha256 is `printf %s "$KEY" | sha256sum`.
type keysDoc struct {
	Version int         `json:"version"`
	Keys    []keyRecord `json:"keys"`
}

type keyRecord struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	SHA256    string            `json:"sha256"`
	Products  map[string]string `json:"products"` // product name → plan name; unknown products are skipped
	CreatedAt time.Time         `json:"created_at"`
	RevokedAt time.Time         `json:"revoked_at,omitzero"`
}

func (r keyRecord) active() bool { return r.RevokedAt.IsZero() }

// readKeysDoc reads the keys file; a missing file is an empty one.
func readKeysDoc(path string) (keysDoc, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return keysDoc{Version: keysFileVersion}, nil
	}
	if err != nil {
		return keysDoc{}, fmt.Errorf("gateway: read keys: %w", err)
	}
	return parseKeysDoc(path, b)
}

func parseKeysDoc(path string, b []byte) (keysDoc, error) {
	var doc keysDoc
	if len(bytes.TrimSpace(b)) == 0 {
		return keysDoc{Version: keysFileVersion}, nil
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return keysDoc{}, fmt.Errorf("gateway: parse keys file %s: %w", path, err)
	}
	if doc.Version > keysFileVersion {
		return keysDoc{}, fmt.Errorf("gateway: keys file %s has version %d; this meridian reads version %d", path, doc.Version, keysFileVersion)
	}
	doc.Version = keysFileVersion
	return doc, nil
}

func writeKeysDoc(path string, doc keysDoc) error {
	doc.Version = keysFileVersion
	if doc.Keys == nil {
		doc.Keys = []keyRecord{}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("gateway: encode keys: %w", err)
	}
	if err := writeFileAtomic(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("gateway: write keys: %w", err)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file in path's directory,
// syncs it and renames it over path, so readers see the old or the new
// content, never a part.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return atomicfile.Rename(tmp, path) // syncs the file and its directory
}

// lockWait bounds how long a writer of the keys file waits for another
// (they hold the lock for a few milliseconds).
const lockWait = 5 * time.Second

// lockKeys takes the keys file's lock, so that concurrent `meridian keys`
// commands (and EnsureDemoKey) do not lose each other's changes. The server
// only reads the keys file and never locks. The lock is the kernel's
// (atomicfile.Lock, flock on <keys file>.lock): a crashed writer's lock
// goes with its process, so there is no stale lock to break (breaking one
// let two writers remove each other's lock and both write). The lock file
// stays; removing it would let a waiter lock a file no longer named.
func lockKeys(path string) (unlock func(), err error) {
	lock := path + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		unlock, err := atomicfile.Lock(lock)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, atomicfile.ErrLocked) {
			return nil, fmt.Errorf("gateway: lock keys file: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("gateway: keys file %s is locked by another `meridian keys` command still running after %v", path, lockWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// updateKeys runs fn on the keys file under its lock and writes the result
// when fn returns nil.
func updateKeys(path string, fn func(doc *keysDoc) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("gateway: create keys directory: %w", err)
		}
	}
	unlock, err := lockKeys(path)
	if err != nil {
		return err
	}
	defer unlock()
	doc, err := readKeysDoc(path)
	if err != nil {
		return err
	}
	if err := fn(&doc); err != nil {
		return err
	}
	return writeKeysDoc(path, doc)
}

// fileStamp identifies one version of a file cheaply: writers rename a new
// file into place, so the identity changes on every write; editors that
// write in place change the size or the modification time.
type fileStamp struct {
	info os.FileInfo // nil when the file does not exist
}

func statFile(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{info: fi}, nil
}

func (s fileStamp) same(t fileStamp) bool {
	if s.info == nil || t.info == nil {
		return s.info == nil && t.info == nil
	}
	return os.SameFile(s.info, t.info) && s.info.Size() == t.info.Size() && s.info.ModTime().Equal(t.info.ModTime())
}
