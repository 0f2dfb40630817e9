package gridstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/gridstore"
	"meridian/shared/internal/syncbuf"
	"meridian/shared/lld"
	"meridian/shared/release"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// township is the block every test index holds: 24-1-W5.
var township = lld.Location{System: lld.DLS, Unit: lld.Township, Township: 24, Range: 1, Meridian: lld.W5}

// indexBytes writes a one-record index whose source is source.
func indexBytes(t *testing.T, source string) []byte {
	t.Helper()
	w := gridindex.NewWriter(gridindex.Meta{Name: "test", Source: source}, gridindex.WriterOptions{TempDir: t.TempDir()})
	defer w.Close()
	b := orb.Bound{Min: orb.Point{-114.1, 50.9}, Max: orb.Point{-114.0, 51.0}}
	if err := w.Add(gridindex.Record{Location: township, Province: survey.AB, Geometry: survey.BoxPolygon(b), AccuracyM: 1}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// publishRelease does what `meridian-publish` does for one index named
// a.mgix: the object at its content-addressed key, then the manifest.
func publishRelease(t *testing.T, store *s3blob.Store, data []byte) string {
	t.Helper()
	ctx := context.Background()
	sum := sha256.Sum256(data)
	key := release.ContentKey("a.mgix", sum[:])
	if err := store.Put(ctx, key, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	putManifest(t, store, release.Manifest{Published: time.Now(), Files: map[string]release.File{"a.mgix": {Key: key, Size: int64(len(data))}}})
	return key
}

func putManifest(t *testing.T, store *s3blob.Store, m release.Manifest) {
	t.Helper()
	data, _ := json.Marshal(m)
	if err := store.Put(context.Background(), release.ManifestKey, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// sources returns the source of each index.
func sources(ix []*gridindex.Index) string {
	var s []string
	for _, x := range ix {
		s = append(s, x.Meta().Source)
	}
	return strings.Join(s, ",")
}

// Warm functions pick up a second release published to the S3 emulator:
// not before the recheck, at once after it, with the services attached
// told; an index of the first release that a request still holds reads its
// own bytes; a release that cannot be opened leaves the one served.
func TestGridsFollowRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "grids"
	s3 := s3blob.New(s3blobtest.FakeS3(t, bucket), bucket, "grid/", s3blob.Options{})
	cached := blob.NewCached(s3, blob.CacheOptions{MaxBytes: 1 << 20})
	publishRelease(t, s3, indexBytes(t, "release A"))

	src := gridstore.Source{Indexes: cached, Manifest: s3, Names: []string{"a.mgix"}, Where: "s3://grids/grid/", Recheck: time.Hour}
	g, err := gridstore.New(ctx, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string // the sources each attached call received
	changes := 0
	g.Attach(func(ix []*gridindex.Index) { mu.Lock(); got = append(got, sources(ix)); mu.Unlock() }, func() { changes++ })
	held := g.Indexes()
	if s := sources(held); s != "release A" {
		t.Fatalf("first open serves %q, want release A", s)
	}

	publishRelease(t, s3, indexBytes(t, "release B"))
	// Before the recheck: the release read at open is served.
	served := 0
	h := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if s := sources(g.Indexes()); s != "release A" || served != 1 {
		t.Errorf("within the recheck: %q served (%d requests), want release A", s, served)
	}

	// A cold start now reads release B; so does a reload of the warm one.
	g2, err := gridstore.New(ctx, gridstore.Source{Indexes: cached, Manifest: s3, Names: src.Names, Where: src.Where}, nil)
	if err != nil || sources(g2.Indexes()) != "release B" {
		t.Fatalf("a cold start now serves %v (%v), want release B", sources(g2.Indexes()), err)
	}
	changed, err := g.Reload(ctx)
	if err != nil || !changed || sources(g.Indexes()) != "release B" {
		t.Fatalf("Reload = %v, %v, serving %q; want a change to release B", changed, err, sources(g.Indexes()))
	}
	mu.Lock()
	if strings.Join(got, "|") != "release A|release B" || changes != 1 {
		t.Errorf("attached service got %q, changed called %d times; want release A|release B, once", got, changes)
	}
	mu.Unlock()
	if changed, err := g.Reload(ctx); changed || err != nil {
		t.Errorf("Reload of the same release = %v, %v; want no change", changed, err)
	}
	// The request that held release A still reads it.
	rec, ok, err := held[0].Lookup(ctx, township)
	if err != nil || !ok || rec.Location != township {
		t.Errorf("held index of release A: Lookup = %v, %v, %v", rec.Location, ok, err)
	}

	// A manifest naming an object that is not there: release B stays
	// served; a cold start over a manifest without the index fails.
	putManifest(t, s3, release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/0000/a.mgix", Size: 10}}})
	if changed, err := g.Reload(ctx); changed || err == nil || !strings.Contains(err.Error(), "v/0000/a.mgix") {
		t.Errorf("Reload of a release whose index is missing = %v, %v; want an error naming it", changed, err)
	}
	every, err := gridstore.New(ctx, gridstore.Source{Indexes: cached, Manifest: fixedManifest{s3, release.Manifest{}}, Names: src.Names, Where: src.Where}, nil)
	if err == nil {
		t.Errorf("cold start over a manifest without the index: %v, want an error", sources(every.Indexes()))
	}
	g.Check(ctx) // not due (an hour): nothing read
	if s := sources(g.Indexes()); s != "release B" {
		t.Errorf("after failed releases: %q served, want release B", s)
	}
	if changes != 1 {
		t.Errorf("changed called %d times, want 1", changes)
	}
}

// fixedManifest answers the manifest with m.
type fixedManifest struct {
	blob.Store
	m release.Manifest
}

func (f fixedManifest) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if key == release.ManifestKey {
		return json.Marshal(f.m)
	}
	return f.Store.ReadRange(ctx, key, off, n)
}

// Check reads the manifest only once Recheck has passed (on the Grids'
// clock, moved by hand here), on a request, and a failure is logged with
// what stays served.
func TestGridsCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "grids"
	s3 := s3blob.New(s3blobtest.FakeS3(t, bucket), bucket, "grid/", s3blob.Options{})
	publishRelease(t, s3, indexBytes(t, "release A"))
	var logs syncbuf.Buffer
	const recheck = 5 * time.Minute
	var mu sync.Mutex
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }
	g, err := gridstore.NewAt(ctx, gridstore.Source{Indexes: s3, Manifest: s3, Names: []string{"a.mgix"}, Where: "s3://grids/grid/", Recheck: recheck},
		slog.New(slog.NewTextHandler(&logs, nil)), now)
	if err != nil {
		t.Fatal(err)
	}
	publishRelease(t, s3, indexBytes(t, "release B"))
	h := g.Handler(http.NotFoundHandler())
	advance(recheck - time.Second)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if s := sources(g.Indexes()); s != "release A" {
		t.Errorf("a second before the recheck: %q, want release A", s)
	}
	advance(time.Second)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if s := sources(g.Indexes()); s != "release B" {
		t.Errorf("at the recheck: %q, want release B", s)
	}
	if err := s3.Put(ctx, release.ManifestKey, strings.NewReader(`{"files":`)); err != nil {
		t.Fatal(err)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if strings.Contains(logs.String(), "corrupt manifest") {
		t.Errorf("the manifest was read again before Recheck passed: log %q", logs.String())
	}
	advance(recheck)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if s := sources(g.Indexes()); s != "release B" || !strings.Contains(logs.String(), "keeping what is served") || !strings.Contains(logs.String(), "corrupt manifest") {
		t.Errorf("corrupt manifest: %q served, log %q; want release B kept and the failure logged", s, logs.String())
	}
}

// Fixed grids never read anything.
func TestFixed(t *testing.T) {
	t.Parallel()
	g := gridstore.Fixed(nil)
	if changed, err := g.Reload(context.Background()); changed || err != nil || len(g.Indexes()) != 0 {
		t.Errorf("Fixed(nil).Reload = %v, %v, %d indexes", changed, err, len(g.Indexes()))
	}
	n := 0
	g.Attach(func(ix []*gridindex.Index) { n += 1 + len(ix) }, nil)
	if n != 1 {
		t.Errorf("Attach called set %d times with indexes, want once with none", n)
	}
}
