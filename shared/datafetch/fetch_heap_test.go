//go:build heaptest

package datafetch_test

import (
	"archive/zip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"meridian/shared/datafetch"
	"meridian/shared/internal/heaptest"
)

// Memory: a download streams to disk, and unpacking streams from it. The
// bytes allocated while fetching and unpacking 48 MiB stay a small
// fraction of the file (measured: see the log line).
func TestFetchHeapBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 96 MiB")
	}
	const size = 48 << 20
	srv, _ := newServer(t)
	srv.stream = size
	// A stored (uncompressed) zip of the same size, written to disk by
	// streaming.
	zpath := filepath.Join(t.TempDir(), "big.zip")
	zf, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "WellList.txt", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(w, &pattern{}, size)
	zw.Close()
	zf.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/big.zip", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, zpath) })
	mux.Handle("/", srv)
	ts2 := httptest.NewServer(mux)
	defer ts2.Close()

	for _, tc := range []struct{ path, file string }{{"/big", "big"}, {"/big.zip", "WellList.txt"}} {
		// The best of three attempts (heaptest.Lowest), each into a
		// directory of its own: TotalAlloc counts what every goroutine of
		// the process allocates, the server's and other tests' included.
		alloc := heaptest.Lowest(8<<20, func() uint64 {
			f := newFetcher(t, ts2, t.TempDir())
			e := entry("big"+strings.ReplaceAll(tc.path, ".", ""), tc.path, tc.file)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := runOne(t, f, e, &fakeIngesterNoRead{})
			runtime.ReadMemStats(&after)
			if r.Status != datafetch.StatusUpdated {
				t.Fatalf("%s: %s %v", tc.path, r.Status, r.Err)
			}
			return after.TotalAlloc - before.TotalAlloc
		})
		t.Logf("%s: %d MiB fetched and unpacked with %.2f MiB allocated in all (server included)", tc.path, size>>20, float64(alloc)/(1<<20))
		if alloc > 8<<20 {
			t.Errorf("%s: %d bytes allocated for a %d-byte download: not streaming", tc.path, alloc, size)
		}
	}
}

type fakeIngesterNoRead struct{}

func (fakeIngesterNoRead) Check(context.Context, datafetch.Ingest, datafetch.Input) error { return nil }

func (fakeIngesterNoRead) Ingest(context.Context, datafetch.Ingest, datafetch.Input) error {
	return nil
}
