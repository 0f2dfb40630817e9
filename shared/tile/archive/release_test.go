package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"meridian/shared/blob"
	"meridian/shared/release"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/internal/archivetest"
)

// TestReleaseSet: on a store `meridian-publish` writes, a name is read at
// the content-addressed key its release manifest gives; a new release is
// served once the manifest is read again, while a request holding the old
// archive keeps reading the old bytes, never a mixture; a store without a
// manifest is read at the names. The same through a block cache, as the
// tiles function reads S3 (the manifest is replaced in place under it).
func TestReleaseSet(t *testing.T) {
	for _, cached := range []bool{false, true} {
		t.Run(map[bool]string{false: "store", true: "cached"}[cached], func(t *testing.T) { testReleaseSet(t, cached) })
	}
}

func testReleaseSet(t *testing.T, cached bool) {
	ctx := context.Background()
	store := blob.NewMem()
	const name = "energy/mineral_tenure.pmtiles"
	put := func(key string, data []byte) {
		t.Helper()
		if err := store.Put(ctx, key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	publish := func(v string, pad int) {
		t.Helper()
		data, _ := archivetest.Build(t, versionTiles(v, pad), archivetest.Meta())
		sum := sha256.Sum256(data)
		key := release.ContentKey(name, sum[:])
		put(key, data)
		m := release.Manifest{Files: map[string]release.File{name: {Key: key, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}}}
		b, _ := json.Marshal(m)
		put(release.ManifestKey, b)
	}
	tileOf := func(r *archive.Reader) string {
		t.Helper()
		data, ok, err := r.Tile(ctx, 3, 1, 2)
		if err != nil || !ok {
			t.Fatalf("tile 3/1/2: %v, %v", ok, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		return string(b)
	}

	// No manifest: the name itself.
	old, _ := archivetest.Build(t, versionTiles("plain", 5), archivetest.Meta())
	put(name, old)
	var read blob.Store = store
	if cached {
		read = blob.NewCached(store, blob.CacheOptions{})
	}
	set := archive.NewReleaseSet(read, 0)
	r, err := set.Reader(ctx, name)
	if err != nil || r == nil || !strings.HasPrefix(tileOf(r), "plain ") {
		t.Fatalf("without a manifest: reader %v, %v", r, err)
	}

	publish("one", 3)
	r1, err := set.Reader(ctx, name)
	if err != nil || r1 == nil || !strings.HasPrefix(tileOf(r1), "one ") {
		t.Fatalf("release one: reader %v, %v", r1, err)
	}
	publish("two", 40)
	r2, err := set.Reader(ctx, name)
	if err != nil || r2 == nil || !strings.HasPrefix(tileOf(r2), "two ") {
		t.Fatalf("release two: reader %v, %v", r2, err)
	}
	// The reader of release one still reads release one, whole.
	if got := tileOf(r1); !strings.HasPrefix(got, "one 3/1/2 ") {
		t.Errorf("the held reader of release one reads %q", got)
	}
	// A name the release does not hold is no archive.
	if r, err := set.Reader(ctx, "ab/none.pmtiles"); r != nil || err != nil {
		t.Errorf("unnamed archive: %v, %v, want none", r, err)
	}
	// A plain NewSet ignores the manifest.
	if r, err := archive.NewSet(store, 0).Reader(ctx, name); err != nil || r == nil || !strings.HasPrefix(tileOf(r), "plain ") {
		t.Errorf("NewSet: %v, %v, want the plain archive", r, err)
	}
}

// TestReleaseSetPrefetch: Prefetch reads the release manifest, so the
// first request within the recheck reads only the archive (its first
// bytes with its version: no Stat before them) and its tile.
func TestReleaseSetPrefetch(t *testing.T) {
	ctx := context.Background()
	store := blob.NewMem()
	const name = "energy/mineral_tenure.pmtiles"
	data, _ := archivetest.Build(t, versionTiles("one", 3), archivetest.Meta())
	sum := sha256.Sum256(data)
	key := release.ContentKey(name, sum[:])
	m := release.Manifest{Files: map[string]release.File{name: {Key: key, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}}}
	b, _ := json.Marshal(m)
	for k, v := range map[string][]byte{key: data, release.ManifestKey: b} {
		if err := store.Put(ctx, k, bytes.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	counting := blob.NewCounting(store)
	set := archive.NewReleaseSet(counting, time.Hour)
	set.Prefetch(ctx)
	if st := counting.Stats(); st.Reads != 1 {
		t.Fatalf("Prefetch: %+v, want the manifest read once", st)
	}
	counting.Reset()
	r, err := set.Reader(ctx, name)
	if err != nil || r == nil {
		t.Fatalf("reader: %v, %v", r, err)
	}
	if _, ok, err := r.Tile(ctx, 3, 1, 2); err != nil || !ok {
		t.Fatalf("tile: %v, %v", ok, err)
	}
	// Counting is no FirstReader: the archive opens with a Stat and a
	// read; the set itself states nothing before it.
	if st := counting.Stats(); st.Stats != 1 || st.Reads != 2 {
		t.Errorf("first request after Prefetch: %+v, want 1 stat (the archive's open) and 2 reads (its first bytes, the tile)", st)
	}
}

// TestReleaseSetOpenAll: OpenAll reads the manifest and opens every
// archive it names (and nothing else it names), so the first request for
// any of them within the recheck reads only its tile.
func TestReleaseSetOpenAll(t *testing.T) {
	ctx := context.Background()
	store := blob.NewMem()
	names := []string{"energy/mineral_tenure.pmtiles", "ab/sec.pmtiles"}
	n := int64(len(names))
	m := release.Manifest{Files: map[string]release.File{}}
	for i, name := range names {
		data, _ := archivetest.Build(t, versionTiles(name, 3+i), archivetest.Meta())
		sum := sha256.Sum256(data)
		key := release.ContentKey(name, sum[:])
		m.Files[name] = release.File{Key: key, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
		if err := store.Put(ctx, key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	// A grid index in the same manifest is no archive: not opened.
	m.Files["grid.mgix"] = release.File{Key: "v/0/grid.mgix", Size: 1, SHA256: "00"}
	b, _ := json.Marshal(m)
	if err := store.Put(ctx, release.ManifestKey, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	counting := blob.NewCounting(store)
	set := archive.NewReleaseSet(counting, time.Hour)
	set.OpenAll(ctx, ".pmtiles")
	// The manifest, then a Stat and a first read for each archive.
	if st := counting.Stats(); st.Reads != 1+n || st.Stats != n {
		t.Fatalf("OpenAll: %+v, want the manifest and %d archives opened", st, len(names))
	}
	counting.Reset()
	for _, name := range names {
		r, err := set.Reader(ctx, name)
		if err != nil || r == nil {
			t.Fatalf("%s: reader %v, %v", name, r, err)
		}
		if _, ok, err := r.Tile(ctx, 3, 1, 2); err != nil || !ok {
			t.Fatalf("%s: tile: %v, %v", name, ok, err)
		}
	}
	if st := counting.Stats(); st.Stats != 0 || st.Reads != n {
		t.Errorf("first requests after OpenAll: %+v, want one read each (the tile), no stat", st)
	}
}
