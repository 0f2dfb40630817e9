package gridindex_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/survey/gridindex"
)

// secondVersion returns recs as a later edition would publish them: every
// polygon moved 10 m east and the accuracy 1000 m worse, so that a record
// read half from each version is told apart.
func secondVersion(recs []gridindex.Record) []gridindex.Record {
	out := make([]gridindex.Record, len(recs))
	for i, r := range recs {
		if p, ok := r.Geometry.(orb.Polygon); ok {
			r.Geometry = shift(p, 0.0001, 0)
		}
		r.AccuracyM += 1000
		out[i] = r
	}
	return out
}

// TestReplaceWhileOpen replaces an open index file (a rename over it
// locally, a PutObject on S3) and checks that lookups of the Index opened
// on the old file answer from exactly one version, move to the new version
// without an error, and never mix the two (issue 15: Lambdas kept the index
// of their cold start and read the new object at the old offsets).
func TestReplaceWhileOpen(t *testing.T) {
	v1 := testRecords(t)
	v2 := secondVersion(v1)
	data := map[int][]byte{1: buildIndex(t, v1, gridindex.WriterOptions{}), 2: buildIndex(t, v2, gridindex.WriterOptions{})}
	want := map[string]map[float64]gridindex.Record{}
	for _, recs := range [][]gridindex.Record{v1, v2} {
		for _, r := range recs {
			k := r.Location.String()
			if want[k] == nil {
				want[k] = map[float64]gridindex.Record{}
			}
			want[k][r.AccuracyM] = r
		}
	}
	ctx := context.Background()
	type putStore interface {
		blob.Store
		Put(ctx context.Context, key string, r io.Reader) error
	}
	for name, s := range map[string]putStore{
		"dir":           blob.NewDir(t.TempDir()),
		"s3 (gofakes3)": s3blob.New(s3blobtest.FakeS3(t, "meridian"), "meridian", "", s3blob.Options{Timeout: 30 * time.Second}),
	} {
		t.Run(name, func(t *testing.T) {
			if err := s.Put(ctx, indexKey, bytes.NewReader(data[1])); err != nil {
				t.Fatal(err)
			}
			ix, err := gridindex.Open(ctx, blob.NewCached(s, blob.CacheOptions{BlockSize: 4 << 10, MaxBytes: 1 << 20}), indexKey, gridindex.Options{CacheBytes: 1, Recheck: -1})
			if err != nil {
				t.Fatal(err)
			}
			check := func(ver int) (bad int) {
				for _, r := range v1 {
					got, ok, err := ix.Lookup(ctx, r.Location)
					if err != nil || !ok {
						t.Errorf("Lookup(%s) = %v, %v", r.Location, ok, err)
						return 1
					}
					w, found := want[r.Location.String()][got.AccuracyM]
					if !found || !equalGeometry(got.Geometry, w.Geometry) {
						t.Errorf("Lookup(%s): accuracy %v and a geometry of no one version", r.Location, got.AccuracyM)
						bad++
					}
					if got.AccuracyM != r.AccuracyM+float64(ver-1)*1000 {
						t.Errorf("Lookup(%s) after the replace answered from the old version", r.Location)
						return bad + 1
					}
				}
				return bad
			}
			check(1)
			if err := s.Put(ctx, indexKey, bytes.NewReader(data[2])); err != nil {
				t.Fatal(err)
			}
			check(2)
			if got := ix.Meta(); got.Records != uint64(len(v2)) {
				t.Errorf("Meta().Records = %d after the replace, want %d", got.Records, len(v2))
			}

			// Concurrent lookups while the file flips between versions.
			var lookups, failed atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						for _, r := range v1 {
							got, ok, err := ix.Lookup(ctx, r.Location)
							lookups.Add(1)
							if err != nil || !ok {
								if !errors.Is(err, blob.ErrChanged) {
									t.Errorf("Lookup(%s) = %v, %v", r.Location, ok, err)
								}
								failed.Add(1)
								continue
							}
							if w, found := want[r.Location.String()][got.AccuracyM]; !found || !equalGeometry(got.Geometry, w.Geometry) {
								t.Errorf("Lookup(%s): a record of no one version", r.Location)
							}
						}
					}
				})
			}
			for i := range 10 {
				time.Sleep(20 * time.Millisecond)
				if err := s.Put(ctx, indexKey, bytes.NewReader(data[1+i%2])); err != nil {
					t.Fatal(err)
				}
			}
			close(stop)
			wg.Wait()
			t.Logf("%d lookups during 10 replaces, %d failed with ErrChanged (replaced twice during one lookup)", lookups.Load(), failed.Load())
		})
	}
}

// TestReplacedReadReopens checks the other way a replacement is noticed:
// with no tag check due (Recheck an hour), the first read of the replaced
// file fails pinned, and the Index reopens and answers from the new file.
func TestReplacedReadReopens(t *testing.T) {
	v1 := testRecords(t)
	v2 := secondVersion(v1)
	ctx := context.Background()
	dir := blob.NewDir(t.TempDir())
	if err := dir.Put(ctx, indexKey, bytes.NewReader(buildIndex(t, v1, gridindex.WriterOptions{}))); err != nil {
		t.Fatal(err)
	}
	counting := blob.NewCounting(dir)
	ix, err := gridindex.Open(ctx, counting, indexKey, gridindex.Options{CacheBytes: 1, Recheck: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	first, last := v1[0], v1[len(v1)-1] // different groups: CacheBytes 1 keeps no page, each lookup reads one
	if _, _, err := ix.Lookup(ctx, first.Location); err != nil {
		t.Fatal(err)
	}
	old := ix.Version()
	if err := dir.Put(ctx, indexKey, bytes.NewReader(buildIndex(t, v2, gridindex.WriterOptions{}))); err != nil {
		t.Fatal(err)
	}
	before := counting.Stats().Stats
	got, ok, err := ix.Lookup(ctx, last.Location)
	if err != nil || !ok || got.AccuracyM != last.AccuracyM+1000 {
		t.Fatalf("Lookup(%s) after the replace = accuracy %v, %v, %v; want %v from the new file", last.Location, got.AccuracyM, ok, err, last.AccuracyM+1000)
	}
	if ix.Version() == old || counting.Stats().Stats == before {
		t.Errorf("Version %q (was %q), Stat calls %d (were %d): want a reopen", ix.Version(), old, counting.Stats().Stats, before)
	}
}
