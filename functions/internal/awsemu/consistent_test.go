package awsemu

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeLaggingS3 answers a PUT at once but lets HEADs of the object read 0
// bytes lag times before they read it whole, as s3rver does while its file
// stream flushes; head is the answer to a HEAD of anything else.
type fakeLaggingS3 struct {
	mu    sync.Mutex
	lag   int
	heads int
	size  map[string]int
	head  int // status of HEADs when not 0
}

func (f *fakeLaggingS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		f.size[r.URL.Path] = len(b)
	case http.MethodHead:
		f.heads++
		if f.head != 0 {
			w.WriteHeader(f.head)
			return
		}
		n, ok := f.size[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if f.heads <= f.lag {
			n = 0
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
	}
}

// set changes the fake between requests.
func (f *fakeLaggingS3) set(lag, head int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lag, f.head, f.heads = lag, head, 0
}

func (f *fakeLaggingS3) headCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.heads
}

func put(t *testing.T, base, path, body string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, base+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A PutObject's answer waits until the object reads back whole; other
// PUTs, and a backend that refuses unsigned HEADs, are not held.
func TestConsistentS3(t *testing.T) {
	f := &fakeLaggingS3{lag: 3, size: map[string]int{}}
	backend := httptest.NewServer(f)
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	p := newConsistentS3(u)
	p.poll, p.wait = time.Millisecond, time.Hour // only the object's length ends the wait
	proxy := httptest.NewServer(p)
	defer proxy.Close()

	if st := put(t, proxy.URL, "/bucket/grid/v/1/a.mgix", "0123456789", nil); st != 200 || f.headCount() != 4 {
		t.Errorf("object PUT: status %d after %d HEADs, want 200 after 4 (3 reading 0 bytes)", st, f.headCount())
	}
	f.set(3, 0)
	put(t, proxy.URL, "/bucket/grid/v/2/b.mgix", "0123456789", map[string]string{"X-Amz-Decoded-Content-Length": "10"})
	if f.headCount() != 4 {
		t.Errorf("aws-chunked PUT: %d HEADs, want 4", f.headCount())
	}
	f.set(0, 0)
	put(t, proxy.URL, "/bucket", "", nil)
	put(t, proxy.URL, "/bucket/k?tagging", "<Tagging/>", nil)
	put(t, proxy.URL, "/bucket/copy", "", map[string]string{"X-Amz-Copy-Source": "/bucket/grid/v/1/a.mgix"})
	if f.headCount() != 0 {
		t.Errorf("bucket, tagging and copy PUTs: %d HEADs, want none", f.headCount())
	}
	f.set(0, http.StatusForbidden)
	if st := put(t, proxy.URL, "/bucket/k2", "x", nil); st != 200 || f.headCount() != 1 {
		t.Errorf("HEAD refused: status %d after %d HEADs, want 200 after 1", st, f.headCount())
	}
}
