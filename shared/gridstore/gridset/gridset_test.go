package gridset_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/gridstore/gridset"
	"meridian/shared/internal/syncbuf"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// twp is the record every test index holds: 24-1-W5.
var twp = lld.Location{System: lld.DLS, Unit: lld.Township, Township: 24, Range: 1, Meridian: lld.W5}

// indexBytes writes a one-record index whose source is source.
func indexBytes(t *testing.T, source string, fixture bool) []byte {
	t.Helper()
	w := gridindex.NewWriter(gridindex.Meta{Name: "test", Source: source, Fixture: fixture}, gridindex.WriterOptions{TempDir: t.TempDir()})
	defer w.Close()
	b := orb.Bound{Min: orb.Point{-114.1, 50.9}, Max: orb.Point{-114.0, 51.0}}
	if err := w.Add(gridindex.Record{Location: twp, Province: survey.AB, Geometry: survey.BoxPolygon(b), AccuracyM: 1}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// install puts data at dir/name as an ingest does: a temporary file
// renamed over the old.
func install(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	tmp := filepath.Join(dir, ".new-"+name)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func sources(ix []*gridindex.Index) string {
	var s []string
	for _, x := range ix {
		s = append(s, x.Meta().Source)
	}
	return strings.Join(s, ",")
}

// A directory source serves its .mgix files, real datasets before
// fixtures; a file replaced is opened again while the index opened before
// still answers; an index that does not open is logged and
// what was served under its name stays; a file removed leaves the set.
func TestDirFollowsFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	install(t, dir, "0-fixture.mgix", indexBytes(t, "fixture", true))
	install(t, dir, "a.mgix", indexBytes(t, "A", false))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an index"), 0o644)
	var logs syncbuf.Buffer
	g, err := gridset.New(ctx, gridset.Dir(dir, ".mgix", time.Hour, 0), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	changes := 0
	g.Attach(func(ix []*gridindex.Index) { got = append(got, sources(ix)) }, func() { changes++ })
	if s := sources(g.Indexes()); s != "A,fixture" || len(got) != 1 || got[0] != s {
		t.Fatalf("served %q, attached with %q; want A before the fixture", s, got)
	}
	old := g.Indexes()[0]

	install(t, dir, "a.mgix", indexBytes(t, "B", false))
	if changed, err := g.Reload(ctx); !changed || err != nil {
		t.Fatalf("after a.mgix was replaced: Reload = %v, %v", changed, err)
	}
	if s := sources(g.Indexes()); s != "B,fixture" || changes != 1 || got[len(got)-1] != s {
		t.Errorf("served %q, %d changes, last set %q; want B,fixture once", s, changes, got[len(got)-1])
	}
	// An index held across the replacement (a request in flight) still
	// answers: it is never read as a mixture of the two files (package
	// gridindex, "Replaced in place").
	if _, ok, err := old.Lookup(ctx, twp); !ok || err != nil {
		t.Errorf("a lookup on the index opened before the replacement: %v, %v", ok, err)
	}
	if changed, err := g.Reload(ctx); changed || err != nil {
		t.Errorf("nothing changed: Reload = %v, %v", changed, err)
	}

	install(t, dir, "a.mgix", []byte("MRDNGIX? corrupt"))
	install(t, dir, "c.mgix", []byte("not an index either"))
	if changed, err := g.Reload(ctx); changed || err != nil {
		t.Errorf("a corrupt replacement and a corrupt new file: Reload = %v, %v; want no change, no error", changed, err)
	}
	if s := sources(g.Indexes()); s != "B,fixture" || !strings.Contains(logs.String(), "does not open") {
		t.Errorf("served %q; log %q; want B kept and the failures logged", s, logs.String())
	}

	os.Remove(filepath.Join(dir, "a.mgix"))
	os.Remove(filepath.Join(dir, "c.mgix"))
	if changed, err := g.Reload(ctx); !changed || err != nil || sources(g.Indexes()) != "fixture" {
		t.Errorf("a.mgix removed: Reload = %v, %v, serving %q", changed, err, sources(g.Indexes()))
	}
}

// A source that is not Partial refuses a set with an index that does not
// open, and a directory that does not exist holds no indexes.
func TestWholeSetOrNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	install(t, dir, "a.mgix", []byte("corrupt"))
	src := gridset.Dir(dir, ".mgix", time.Hour, 0)
	src.Partial = false
	if _, err := gridset.New(ctx, src, nil); err == nil || !strings.Contains(err.Error(), "a.mgix") {
		t.Errorf("New over a corrupt index: %v, want an error naming it", err)
	}
	g, err := gridset.New(ctx, gridset.Dir(filepath.Join(dir, "none"), ".mgix", time.Hour, 0), nil)
	if err != nil || len(g.Indexes()) != 0 {
		t.Errorf("a missing directory: %v, %d indexes", err, len(g.Indexes()))
	}
}

// Watch picks up a replaced file on its own, every Recheck.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	install(t, dir, "a.mgix", indexBytes(t, "A", false))
	g, err := gridset.New(context.Background(), gridset.Dir(dir, ".mgix", 10*time.Millisecond, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.Watch(ctx); close(done) }()
	install(t, dir, "a.mgix", indexBytes(t, "B", false))
	deadline := time.Now().Add(10 * time.Second) // a bound on a loaded machine, not a measurement
	for sources(g.Indexes()) != "B" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s := sources(g.Indexes()); s != "B" {
		t.Errorf("Watch serves %q, want B", s)
	}
	cancel()
	<-done
}

// A Warm source fills an index's cache before serving it, at start and
// when its file is replaced: the first lookup reads nothing.
func TestWarm(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	install(t, dir, "a.mgix", indexBytes(t, "A", false))
	var logs syncbuf.Buffer
	src := gridset.Dir(dir, ".mgix", time.Hour, 0)
	src.WarmBytes = 1 << 30
	g, err := gridset.New(ctx, src, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		ix := g.Indexes()[0]
		if st := ix.CacheStats(); st.Blocks == 0 || st.Dirs == 0 {
			t.Fatalf("%s: cache holds %d blocks, %d directories before any lookup; want the index warmed", when, st.Blocks, st.Dirs)
		}
		reads := ix.Reads()
		if _, ok, err := ix.Lookup(ctx, twp); !ok || err != nil {
			t.Fatalf("%s: Lookup = %v, %v", when, ok, err)
		}
		if d := ix.Reads() - reads; d != 0 {
			t.Errorf("%s: the first lookup read %d ranges, want 0", when, d)
		}
	}
	check("at start")
	install(t, dir, "a.mgix", indexBytes(t, "B", false))
	if changed, err := g.Reload(ctx); !changed || err != nil {
		t.Fatalf("Reload = %v, %v", changed, err)
	}
	check("after the file was replaced")
	if n := strings.Count(logs.String(), "grid index warmed"); n != 2 {
		t.Errorf("%d \"grid index warmed\" lines, want 2:\n%s", n, logs.String())
	}
}
