package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/shared/api"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/internal/archivetest"
)

// versionTiles returns every tile of zooms 0-7 with a body naming version v
// and the tile; the padding differs by version so that the same tile sits at
// other offsets in the two archives.
func versionTiles(v string, pad int) []archivetest.Tile {
	var g archivetest.Gzipper
	tiles := archivetest.ByID(7)
	for i := range tiles {
		t := &tiles[i]
		t.Data = g.Gzip(tileText(v, t.Z, t.X, t.Y) + strings.Repeat("-", pad+i%7))
	}
	return tiles
}

func tileText(v string, z uint8, x, y uint32) string {
	return fmt.Sprintf("%s %d/%d/%d ", v, z, x, y)
}

// TestReplaceWhileServing reproduces issue 15: mineral_tenure.pmtiles is
// replaced (renamed over, as build-tiles does) while tiles of it are served
// from a local data directory through the block cache and a Set that only
// rechecks every 30 s, as in the local server. Before reads were pinned, the
// Reader opened on the old file read tiles and leaves at the old offsets of
// the new file: broken gzip or another tile's bytes, sent with a day's
// Cache-Control. Every answer must now be the requested tile of one version
// whole, and an answer that is not a tile must not be cacheable.
//
// The S3 case runs the same against gofakes3, PutObject replacing the key.
// A request retries on the version current when its read failed; the
// replaces are paced (at least 5 ms apart locally, 25 ms on the emulator,
// and never while a request that saw the previous one is in flight), the
// case of real refreshes, hours apart.
func TestReplaceWhileServing(t *testing.T) {
	versions := map[string][]byte{}
	for v, pad := range map[string]int{"one": 3, "two": 40} {
		data, _ := archivetest.Build(t, versionTiles(v, pad), archivetest.Meta())
		versions[v] = data
	}
	t.Run("dir", func(t *testing.T) {
		replaceWhileServing(t, blob.NewDir(t.TempDir()), versions, 20, 5*time.Millisecond)
	})
	t.Run("s3 (gofakes3)", func(t *testing.T) {
		s3 := s3blob.New(s3blobtest.FakeS3(t, "meridian"), "meridian", "tiles", s3blob.Options{Timeout: 30 * time.Second})
		replaceWhileServing(t, s3, versions, 10, 25*time.Millisecond)
	})
}

func replaceWhileServing(t *testing.T, dir interface {
	blob.Store
	putter
}, versions map[string][]byte, replaces int, every time.Duration) {
	ctx := context.Background()
	const key = "energy/mineral_tenure.pmtiles"
	if err := dir.Put(ctx, key, bytes.NewReader(versions["one"])); err != nil {
		t.Fatal(err)
	}
	store := blob.NewCached(dir, blob.CacheOptions{BlockSize: 16 << 10, MaxBytes: 32 << 20})
	h := tile.NewHandler(tile.Options{Archives: archive.NewSet(store, 30*time.Second)})
	mux := api.NewMux()
	mux.Mount(h.Routes()...)

	const readers = 4
	var served, wrong, failed atomic.Int64
	var done [readers]atomic.Int64 // requests finished, by reader
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range readers {
		wg.Go(func() {
			defer done[g].Store(1 << 62) // a reader that stopped (t.Errorf) holds nothing up
			rnd := rand.New(rand.NewPCG(uint64(g), 15))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				z := uint8(rnd.IntN(8))
				x, y := rnd.Uint32N(1<<z), rnd.Uint32N(1<<z)
				r := httptest.NewRequest("GET", fmt.Sprintf("/tiles/energy/mineral_tenure/%d/%d/%d.mvt?api_key=k", z, x, y), nil)
				r.Header.Set("Accept-Encoding", "gzip")
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				served.Add(1)
				done[g].Add(1)
				if w.Code != http.StatusOK {
					failed.Add(1)
					if cc := w.Header().Get("Cache-Control"); w.Code < 500 || cc != "no-store" || w.Header().Get("ETag") != "" {
						t.Errorf("tile %d/%d/%d: %d, Cache-Control %q, ETag %q: want 200, or a 5xx with no-store and no ETag", z, x, y, w.Code, cc, w.Header().Get("ETag"))
					}
					continue
				}
				body, err := gunzip(w.Body.Bytes())
				if err != nil || !(strings.HasPrefix(body, tileText("one", z, x, y)) || strings.HasPrefix(body, tileText("two", z, x, y))) {
					if wrong.Add(1) <= 5 {
						t.Errorf("tile %d/%d/%d: got %.40q (%v), want that tile of version one or two", z, x, y, body, err)
					}
				}
			}
		})
	}
	for i := range replaces {
		time.Sleep(every)
		v := []string{"two", "one"}[i%2]
		if err := dir.Put(ctx, key, bytes.NewReader(versions[v])); err != nil {
			t.Fatal(err)
		}
		// The next replace waits until every request in flight now has
		// finished (each reader finished two more), so that no request
		// sees two replaces however slow the machine (-race, a loaded CI).
		var snap [readers]int64
		for g := range readers {
			snap[g] = done[g].Load()
		}
		for g := range readers {
			for deadline := time.Now().Add(10 * time.Second); done[g].Load() < snap[g]+2 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
	}
	time.Sleep(every)
	close(stop)
	wg.Wait()
	t.Logf("%d requests during %d replaces: %d wrong, %d failed", served.Load(), replaces, wrong.Load(), failed.Load())
	if wrong.Load() > 0 {
		t.Errorf("%d of %d answers were not the tile asked for in one version", wrong.Load(), served.Load())
	}
	if failed.Load() > 0 {
		t.Errorf("%d of %d requests failed; a replaced archive should be reopened and the request retried", failed.Load(), served.Load())
	}
}

func gunzip(b []byte) (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	raw, err := io.ReadAll(zr)
	return string(raw), err
}
