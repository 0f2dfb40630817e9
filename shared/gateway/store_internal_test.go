package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestFileStamp(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), KeysFile)
	stamp := func() fileStamp {
		t.Helper()
		s, err := statFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	missing := stamp()
	if !missing.same(stamp()) {
		t.Errorf("two stamps of a missing file differ")
	}
	if err := writeFileAtomic(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := stamp()
	if first.same(missing) {
		t.Errorf("created file has the stamp of a missing one")
	}
	if !first.same(stamp()) {
		t.Errorf("unchanged file has a new stamp")
	}
	// Same size, same modification time, but renamed into place: new file.
	if err := writeFileAtomic(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, first.info.ModTime(), first.info.ModTime())
	if first.same(stamp()) {
		t.Errorf("a file renamed over the old one has the old stamp")
	}
}

func TestLockKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), KeysFile)
	unlock, err := lockKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		released <- time.Now()
		unlock()
	}()
	unlock2, err := lockKeys(path) // waits for the first holder
	if err != nil {
		t.Fatalf("lockKeys while held briefly: %v", err)
	}
	if taken, at := time.Now(), <-released; taken.Before(at) {
		t.Errorf("second lock taken before the first was released")
	}
	unlock2()

	// A lock file left by a crashed writer (or an earlier release) holds
	// no lock: the kernel's lock went with the process.
	lock := path + ".lock"
	if err := os.WriteFile(lock, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unlock3, err := lockKeys(path)
	if err != nil {
		t.Fatalf("lockKeys over a leftover lock file: %v", err)
	}
	unlock3()
}

func TestWriteFileAtomicFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "sub") // a directory: rename over it fails
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(target, []byte("data"), 0o600); err == nil {
		t.Fatalf("writeFileAtomic over a non-empty directory = nil, want an error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries after a failed write, want only the directory", len(entries))
	}
}

// Concurrent `meridian keys` commands lose no update, even with a lock
// file left behind by a crashed writer (the stale-lock path of an O_EXCL
// lock let two writers remove each other's lock and both write).
func TestConcurrentKeyUpdatesWithStaleLock(t *testing.T) {
	for round := range 5 {
		path := filepath.Join(t.TempDir(), KeysFile)
		old := time.Now().Add(-time.Hour)
		if err := os.WriteFile(path+".lock", []byte("4242\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path+".lock", old, old)
		const writers = 8
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Go(func() {
				<-start
				if _, _, err := AddKey(path, fmt.Sprintf("key-%d", i), map[Product]string{Search: DefaultPlan}); err != nil {
					t.Errorf("AddKey %d: %v", i, err)
				}
			})
		}
		close(start)
		wg.Wait()
		keys, err := ListKeys(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != writers {
			t.Fatalf("round %d: %d keys after %d concurrent AddKey, want %d: updates were lost", round, len(keys), writers, writers)
		}
	}
}
