package gridindex_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
)

const indexKey = "grid/test.mgix"

// stores returns the index written to each kind of store.
func stores(tb testing.TB, data []byte) map[string]blob.Store {
	tb.Helper()
	ctx := context.Background()
	dir := blob.NewDir(tb.TempDir())
	if err := dir.Put(ctx, indexKey, bytes.NewReader(data)); err != nil {
		tb.Fatal(err)
	}
	s3 := s3blob.New(s3blobtest.FakeS3(tb, "meridian"), "meridian", "", s3blob.Options{})
	if err := s3.Put(ctx, indexKey, bytes.NewReader(data)); err != nil {
		tb.Fatal(err)
	}
	return map[string]blob.Store{"dir": dir, "s3 (gofakes3)": s3}
}

func checkStore(t *testing.T, s blob.Store) {
	ctx := context.Background()
	counting := blob.NewCounting(s)
	ix, err := gridindex.Open(ctx, counting, indexKey, gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := lld.Parse("10-36-24-1-W5")
	r, ok, err := ix.Lookup(ctx, l)
	if err != nil || !ok || r.Location != l {
		t.Fatalf("Lookup = %v %v %v", r.Location, ok, err)
	}
	got, err := ix.Containing(ctx, orb.Point{-79.93, 44.17})
	if err != nil || len(got) != 1 || got[0].Location.String() != "Lot 10 Con 1 Adjala" {
		t.Errorf("Containing = %v, %v", got, err)
	}
	if n := counting.Stats().Reads; n > 5 {
		t.Errorf("open, one lookup by id and one by point made %d range reads, want at most 5", n)
	}
}

func TestOverStores(t *testing.T) {
	t.Parallel()
	data := buildIndex(t, testRecords(t), gridindex.WriterOptions{})
	for name, s := range stores(t, data) {
		t.Run(name, func(t *testing.T) { checkStore(t, s) })
	}
}

// TestOverExternalS3 reads an index from the S3 emulator process at
// MERIDIAN_S3_ENDPOINT (started by .ci/run); skipped without it.
func TestOverExternalS3(t *testing.T) {
	client := s3blobtest.ExternalS3(t, "meridian-gridindex-test")
	s := s3blob.New(client, "meridian-gridindex-test", "", s3blob.Options{Timeout: 20 * time.Second})
	if err := s.Put(context.Background(), indexKey, bytes.NewReader(buildIndex(t, testRecords(t), gridindex.WriterOptions{}))); err != nil {
		t.Fatal(err)
	}
	checkStore(t, s)
}

// BenchmarkStores measures lookups by id and by point through each store,
// cold (a fresh Index each time: open, leaf and page reads) and warm, and
// reports range reads per lookup.
func BenchmarkStores(b *testing.B) {
	data := buildIndex(b, testRecords(b), gridindex.WriterOptions{})
	ctx := context.Background()
	l, _ := lld.Parse("10-36-24-1-W5")
	pt := orb.Point{-114.0192, 51.0779}
	for name, s := range stores(b, data) {
		for _, cold := range []bool{true, false} {
			for _, kind := range []string{"id", "point"} {
				b.Run(fmt.Sprintf("%s/%s/cold=%v", name, kind, cold), func(b *testing.B) {
					c := blob.NewCounting(s)
					ix, err := gridindex.Open(ctx, c, indexKey, gridindex.Options{})
					if err != nil {
						b.Fatal(err)
					}
					c.Reset()
					b.ReportAllocs()
					for b.Loop() {
						if cold {
							ix, _ = gridindex.Open(ctx, c, indexKey, gridindex.Options{})
						}
						if kind == "id" {
							if _, ok, err := ix.Lookup(ctx, l); !ok || err != nil {
								b.Fatal("not found", err)
							}
						} else if got, err := ix.Containing(ctx, pt); len(got) != 4 || err != nil {
							b.Fatal(len(got), err)
						}
					}
					b.ReportMetric(float64(c.Stats().Reads)/float64(b.N), "reads/op")
				})
			}
		}
	}
}
