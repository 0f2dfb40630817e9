package boltdir_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
)

// publishWells publishes dataset "wells" with n items, each holding tag.
func publishWells(ctx context.Context, tag string, n int) func(context.Context, kv.Store) error {
	return func(ctx context.Context, s kv.Store) error {
		_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells", Source: "test " + tag}, func(w *kv.Writer) error {
			for i := range n {
				if err := w.Put("P", fmt.Sprintf("%04d", i), tag); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	}
}

// readWells reads every item of the served "wells" and returns its
// version and the tags seen.
func readWells(t *testing.T, s kv.Store) (kv.Version, map[string]int) {
	t.Helper()
	ctx := context.Background()
	d, ok, err := kv.Open(ctx, s, "wells")
	if err != nil || !ok {
		t.Fatalf("open wells: ok %v, %v", ok, err)
	}
	tags := map[string]int{}
	q := kv.Query{PK: "P", Limit: kv.MaxLimit}
	for {
		page, err := d.Query(ctx, q)
		if err != nil {
			t.Fatalf("query: %v", err)
		}
		for _, it := range page.Items {
			v, _ := strconv.Unquote(string(it.Data))
			tags[v]++
		}
		if page.Next == "" {
			return d.Version, tags
		}
		q.After = page.Next
	}
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestPublishVersionsAndPrune(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	if name, err := d.Current(); err != nil || name != "" {
		t.Fatalf("empty dir: Current %q, %v", name, err)
	}
	for i, tag := range []string{"a", "b", "c"} {
		name, err := d.Publish(ctx, publishWells(ctx, tag, 10))
		if err != nil {
			t.Fatalf("publish %s: %v", tag, err)
		}
		if cur, _ := d.Current(); cur != name {
			t.Fatalf("CURRENT %q after publishing %q", cur, name)
		}
		s, _, ok, err := d.OpenCurrent(0)
		if err != nil || !ok {
			t.Fatalf("open current: %v", err)
		}
		v, tags := readWells(t, s)
		s.Close()
		// The version numbers continue across files.
		if v != kv.Version(i+1) || tags[tag] != 10 || len(tags) != 1 {
			t.Fatalf("after publish %d: version %d, tags %v", i+1, v, tags)
		}
	}
	// The served file and the one before it; the oldest is pruned.
	got := slices.DeleteFunc(files(t, d.Path()), func(n string) bool { return n == ".lock" })
	want := []string{"CURRENT", "v000002.db", "v000003.db"}
	if !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

func TestFailedPublishLeavesServed(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "ag"))
	first, err := d.Publish(ctx, publishWells(ctx, "good", 5))
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("file 3: line 9: bad row")
	_, err = d.Publish(ctx, func(ctx context.Context, s kv.Store) error {
		if err := publishWells(ctx, "half", 3)(ctx, s); err != nil {
			return err
		}
		return bad
	})
	if !errors.Is(err, bad) {
		t.Fatalf("failed publish: %v, want the fill's error", err)
	}
	if cur, _ := d.Current(); cur != first {
		t.Fatalf("CURRENT %q after a failed publish, want %q", cur, first)
	}
	if got := files(t, d.Path()); slices.Contains(got, "v000002.db") {
		t.Fatalf("the failed version's file was left: %v", got)
	}
	s, _, _, err := d.OpenCurrent(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, tags := readWells(t, s); v != 1 || tags["good"] != 5 || len(tags) != 1 {
		t.Fatalf("served after failed publish: version %d, %v", v, tags)
	}
}

func TestOnePublishAtATime(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	started, finish := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := d.Publish(ctx, func(ctx context.Context, s kv.Store) error {
			close(started)
			<-finish
			return publishWells(ctx, "first", 1)(ctx, s)
		})
		done <- err
	}()
	<-started
	if _, err := d.Publish(ctx, publishWells(ctx, "second", 1)); !errors.Is(err, boltdir.ErrBusy) {
		t.Fatalf("second publish while one runs: %v, want ErrBusy", err)
	}
	close(finish)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := d.Publish(ctx, publishWells(ctx, "third", 1)); err != nil {
		t.Fatalf("publish after the first finished: %v", err)
	}
}

// TestPublishWhileServed is what the directory is for: with the single
// reports.db of earlier releases, a server's open handle made an ingest
// fail on bbolt's lock.
func TestPublishWhileServed(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	if _, err := d.Publish(ctx, publishWells(ctx, "a", 4)); err != nil {
		t.Fatal(err)
	}
	live, err := boltdir.NewLive(d, func(s kv.Store) kv.Store { return s })
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	old, oldName, releaseOld := live.Acquire()

	if _, err := d.Publish(ctx, publishWells(ctx, "b", 6)); err != nil {
		t.Fatalf("publish while a server holds the store: %v", err)
	}
	if changed, err := live.Reload(); err != nil || !changed {
		t.Fatalf("reload: changed %v, %v", changed, err)
	}
	if changed, err := live.Reload(); err != nil || changed {
		t.Fatalf("second reload: changed %v, %v", changed, err)
	}
	cur, curName, release := live.Acquire()
	if v, tags := readWells(t, cur); v != 2 || tags["b"] != 6 || len(tags) != 1 || curName == oldName {
		t.Fatalf("after reload: %s version %d %v", curName, v, tags)
	}
	release()
	// The request that held the old version still reads it, whole.
	if v, tags := readWells(t, old); v != 1 || tags["a"] != 4 || len(tags) != 1 {
		t.Fatalf("old version after the switch: version %d %v", v, tags)
	}
	releaseOld()
	// Its last reader gone, the old file is closed.
	if _, _, err := old.Get(ctx, kv.DatasetPK, "wells"); err == nil {
		t.Fatal("the old version's store still answers after its last release")
	}
}

func TestLiveEmptyAndBadPointer(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "ag"))
	live, err := boltdir.NewLive(d, func(s kv.Store) kv.Store { return s })
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	s, name, release := live.Acquire()
	if _, ok, err := kv.Open(ctx, s, "wells"); name != "" || ok || err != nil {
		t.Fatalf("nothing published: name %q, ok %v, %v", name, ok, err)
	}
	release()
	if _, err := d.Publish(ctx, publishWells(ctx, "a", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Reload(); err != nil {
		t.Fatal(err)
	}
	served := live.Name()
	// A pointer naming a missing file: the version served stays.
	if err := os.WriteFile(filepath.Join(d.Path(), "CURRENT"), []byte("v000009.db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, err := live.Reload(); err == nil || changed || live.Name() != served {
		t.Fatalf("reload of a pointer to a missing file: changed %v, %v, serving %q", changed, err, live.Name())
	}
	if err := os.WriteFile(filepath.Join(d.Path(), "CURRENT"), []byte("../../etc/passwd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Reload(); err == nil || live.Name() != served {
		t.Fatalf("reload of a pointer outside the directory: %v, serving %q", err, live.Name())
	}
}

func TestAdopt(t *testing.T) {
	ctx := t.Context()
	legacy := filepath.Join(t.TempDir(), "reports.db")
	s, err := kv.OpenBolt(legacy, kv.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"x", "y"} {
		if err := publishWells(ctx, tag, 3)(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	if _, err := d.Adopt(legacy); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Publish(ctx, publishWells(ctx, "z", 2)); err != nil {
		t.Fatal(err)
	}
	cur, _, _, err := d.OpenCurrent(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	// Adopted at version 2; the next ingest is version 3.
	if v, tags := readWells(t, cur); v != 3 || tags["z"] != 2 || len(tags) != 1 {
		t.Fatalf("after adopt and publish: version %d %v", v, tags)
	}
}

// TestReadersDuringSwitches keeps readers busy while versions are
// published and reloaded: every read of a request sees one version, whole,
// and no request fails (run with -race).
func TestReadersDuringSwitches(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	const items = 50
	if _, err := d.Publish(ctx, publishWells(ctx, "v1", items)); err != nil {
		t.Fatal(err)
	}
	live, err := boltdir.NewLive(d, func(s kv.Store) kv.Store { return s })
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	stop := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, _, release := live.Acquire()
				v, tags := readWells(t, s)
				release()
				if len(tags) != 1 || tags["v"+strconv.Itoa(int(v))] != items {
					t.Errorf("version %d read as %v", v, tags)
					return
				}
				reads.Add(1)
			}
		})
	}
	const publishes = 8
	for i := 2; i <= publishes+1; i++ {
		if _, err := d.Publish(ctx, publishWells(ctx, "v"+strconv.Itoa(i), items)); err != nil {
			t.Fatal(err)
		}
		if _, err := live.Reload(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("no reads ran")
	}
	t.Logf("%d whole-version reads across %d switches", reads.Load(), publishes)
}

// BenchmarkAcquire is what pinning a request to a version costs the
// request: a read lock and two atomic adds.
func BenchmarkAcquire(b *testing.B) {
	d := boltdir.New(filepath.Join(b.TempDir(), "energy"))
	if _, err := d.Publish(b.Context(), publishWells(b.Context(), "a", 1)); err != nil {
		b.Fatal(err)
	}
	live, err := boltdir.NewLive(d, func(s kv.Store) kv.Store { return s })
	if err != nil {
		b.Fatal(err)
	}
	defer live.Close()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _, release := live.Acquire()
			release()
		}
	})
}

// TestPublishRemovesSortFiles: the temporary sort file of a process killed
// midway (an ingest's load, a build's scan) is removed by the next
// Publish; other files are left alone.
func TestPublishRemovesSortFiles(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "ag")
	d := boltdir.New(dir)
	if _, err := d.Publish(ctx, publishWells(ctx, "a", 10)); err != nil {
		t.Fatal(err)
	}
	left := []string{"v000001.db.sort-123", "v000002.db.sort-9"}
	keep := "notes.sort-1"
	for _, n := range append(left, keep) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("run"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Publish(ctx, publishWells(ctx, "b", 10)); err != nil {
		t.Fatal(err)
	}
	names := files(t, dir)
	for _, n := range left {
		if slices.Contains(names, n) {
			t.Errorf("%s is still there after a Publish: %v", n, names)
		}
	}
	if !slices.Contains(names, keep) {
		t.Errorf("%s, not a sort file of a version, was removed: %v", keep, names)
	}
}

// AcquireStore hands out the store of the version served: a holder reads
// its version to the end across a switch, and the next caller gets the
// new one.
func TestLiveAcquireStore(t *testing.T) {
	ctx := t.Context()
	d := boltdir.New(filepath.Join(t.TempDir(), "energy"))
	live, err := boltdir.NewLive(d, func(kv.Store) int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, name, release := live.AcquireStore(); name != "" {
		t.Fatalf("nothing published: name %q", name)
	} else {
		release()
	}
	for _, tag := range []string{"a", "b"} {
		if _, err := d.Publish(ctx, publishWells(ctx, tag, 3)); err != nil {
			t.Fatal(err)
		}
		if tag == "a" {
			if _, err := live.Reload(); err != nil {
				t.Fatal(err)
			}
		}
	}
	held, name, release := live.AcquireStore()
	if _, err := live.Reload(); err != nil { // to b, while a is held
		t.Fatal(err)
	}
	if _, tags := readWells(t, held); tags["a"] != 3 || name == live.Name() {
		t.Errorf("the store held across the switch (%s, now serving %s) reads %v, want its own version a", name, live.Name(), tags)
	}
	release()
	s, _, release := live.AcquireStore()
	defer release()
	if _, tags := readWells(t, s); tags["b"] != 3 {
		t.Errorf("after the switch: %v, want version b", tags)
	}
}
