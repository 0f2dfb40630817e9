package datafetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// outcome of one URL.
type outcome uint8

const (
	unchanged    outcome = iota // 304, or the same validators
	fetched                     // a complete new file in .partial
	notPublished                // 404 of an optional source
)

// download is what fetching one URL produced.
type download struct {
	outcome      outcome
	path         string // the complete file (fetched)
	etag, lastMo string
	size         int64
	sha256       string
}

// partialMeta is the sidecar of a partial download: a resume is only
// asked for (If-Range) under the validators the first bytes came with.
type partialMeta struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// FetchError says which dataset, URL and step failed, and why.
type FetchError struct {
	Dataset string
	URL     string // or file
	Reason  string
	Err     error
}

func (e *FetchError) Error() string {
	s := "datafetch: " + e.Dataset + ": " + e.URL + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FetchError) Unwrap() error { return e.Err }

// retryable errors are tried again (resuming) up to Options.Attempts.
type retryable struct{ error }

func (r retryable) Unwrap() error { return r.error }

// fetchURL downloads src into key's .partial directory, resuming a
// partial file left by an earlier attempt or run, with prev's validators
// for a conditional GET. Memory: one copy buffer, whatever the file size.
func (f *Fetcher) fetchURL(ctx context.Context, key string, src Expanded, prev *FileState) (download, error) {
	part := partialPath(f.opts.Dir, key, src.Name)
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		return download{}, err
	}
	var last error
	for attempt := 0; attempt < f.opts.Attempts; attempt++ {
		if attempt > 0 {
			f.logf("  %s: retrying (%v)", src.Name, last)
			select {
			case <-ctx.Done():
				return download{}, ctx.Err()
			case <-time.After(f.opts.RetryDelay * time.Duration(attempt)):
			}
		}
		d, err := f.fetchOnce(ctx, src, prev, part)
		if err == nil {
			return d, nil
		}
		last = err
		var r retryable
		if !errors.As(err, &r) {
			return download{}, err
		}
	}
	return download{}, last
}

func (f *Fetcher) fetchOnce(ctx context.Context, src Expanded, prev *FileState, part string) (download, error) {
	url := f.resolve(src.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return download{}, err
	}
	// Bytes as stored: a transparent gzip would break sizes and ranges.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", userAgent)
	have, meta := partialOf(part, src.URL)
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
		if meta.ETag != "" {
			req.Header.Set("If-Range", meta.ETag)
		} else {
			req.Header.Set("If-Range", meta.LastModified)
		}
	} else {
		setConditional(req, prev)
	}
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return download{}, ctx.Err()
		}
		return download{}, retryable{err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		if prev == nil {
			return download{}, fmt.Errorf("304 Not Modified to an unconditional request")
		}
		return download{outcome: unchanged, etag: prev.ETag, lastMo: prev.LastModified, size: prev.Size, sha256: prev.SHA256}, nil
	case resp.StatusCode == http.StatusNotFound && src.Optional:
		return download{outcome: notPublished}, nil
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The partial file is no prefix of what is served now.
		os.Remove(part)
		return download{}, retryable{fmt.Errorf("HTTP %s to a resume at %d: restarting", resp.Status, have)}
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return download{}, retryable{fmt.Errorf("HTTP %s", resp.Status)}
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent:
		return download{}, fmt.Errorf("HTTP %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/html") && !expectsHTML(src) {
		return download{}, fmt.Errorf("the server answered an HTML page, not the file (a login, licence or listing page?)")
	}
	etag, lastMo := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	// Unchanged although the server did not say 304.
	if prev != nil && have == 0 && resp.StatusCode == http.StatusOK && (etag != "" && etag == prev.ETag || etag == "" && lastMo != "" && lastMo == prev.LastModified) {
		return download{outcome: unchanged, etag: prev.ETag, lastMo: prev.LastModified, size: prev.Size, sha256: prev.SHA256}, nil
	}
	var w *os.File
	var total int64
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			// Not the bytes asked for: start over.
			os.Remove(part)
			return download{}, retryable{fmt.Errorf("206 with Content-Range %q for a resume at %d: restarting", resp.Header.Get("Content-Range"), have)}
		}
		total = size
		w, err = os.OpenFile(part, os.O_WRONLY|os.O_APPEND, 0o644)
		etag, lastMo = meta.ETag, meta.LastModified
	default: // 200: the whole file, whatever was asked (a server that ignores Range)
		have = 0
		total = resp.ContentLength
		if err := writePartialMeta(part, partialMeta{URL: src.URL, ETag: etag, LastModified: lastMo}); err != nil {
			return download{}, err
		}
		w, err = os.Create(part)
	}
	if err != nil {
		return download{}, err
	}
	if total > f.opts.MaxDownload {
		w.Close()
		os.Remove(part)
		return download{}, fmt.Errorf("the server announces %d bytes, over the limit of %d", total, f.opts.MaxDownload)
	}
	n, cerr := io.CopyBuffer(w, io.LimitReader(resp.Body, f.opts.MaxDownload-have+1), make([]byte, copyBuffer))
	if err := w.Close(); cerr == nil {
		cerr = err
	}
	got := have + n
	switch {
	case got > f.opts.MaxDownload:
		os.Remove(part)
		return download{}, fmt.Errorf("more than %d bytes: refused", f.opts.MaxDownload)
	case cerr != nil:
		if ctx.Err() != nil {
			return download{}, ctx.Err()
		}
		// Kept for a resume.
		return download{}, retryable{fmt.Errorf("body cut at %d of %d bytes: %w", got, total, cerr)}
	case total >= 0 && got != total:
		return download{}, retryable{fmt.Errorf("body cut at %d of %d bytes", got, total)}
	}
	sum, size, err := hashFile(part)
	if err != nil {
		return download{}, err
	}
	if src.Size > 0 && size != src.Size {
		os.Remove(part)
		return download{}, fmt.Errorf("%d bytes, the publisher states %d", size, src.Size)
	}
	if src.SHA256 != "" && !strings.EqualFold(sum, src.SHA256) {
		os.Remove(part)
		return download{}, fmt.Errorf("SHA-256 %s, the manifest expects %s", sum, src.SHA256)
	}
	return download{outcome: fetched, path: part, etag: etag, lastMo: lastMo, size: size, sha256: sum}, nil
}

const (
	copyBuffer = 64 << 10
	userAgent  = "meridian-data-fetch/1 (+https://github.com/meridian)"
)

func expectsHTML(src Expanded) bool {
	for _, f := range src.Files {
		if l := strings.ToLower(f); strings.HasSuffix(l, ".html") || strings.HasSuffix(l, ".htm") {
			return true
		}
	}
	return false
}

// partialOf returns the size of a partial download of url and the
// validators it was started under; 0 when there is none to resume (no
// file, another URL, or no validator to make If-Range safe).
func partialOf(part, url string) (int64, partialMeta) {
	fi, err := os.Stat(part)
	if err != nil || fi.Size() == 0 {
		return 0, partialMeta{}
	}
	b, err := os.ReadFile(part + ".json")
	var m partialMeta
	if err != nil || json.Unmarshal(b, &m) != nil || m.URL != url || m.ETag == "" && m.LastModified == "" {
		return 0, partialMeta{} // a 200 rewrites it from the start
	}
	return fi.Size(), m
}

func writePartialMeta(part string, m partialMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(part+".json", b, 0o644)
}

// parseContentRange reads "bytes START-END/SIZE"; size is -1 for "*".
func parseContentRange(s string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, 0, false
	}
	if sz == "*" {
		return start, -1, true
	}
	size, err := strconv.ParseInt(sz, 10, 64)
	if err != nil || size <= end {
		return 0, 0, false
	}
	return start, size, true
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, f, make([]byte, copyBuffer))
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func partialPath(dir, key, name string) string {
	return filepath.Join(dir, key, ".partial", safeName(name))
}

// safeName keeps a download's name a single path element.
func safeName(n string) string {
	n = filepath.Base(filepath.Clean("/" + strings.ReplaceAll(n, "\\", "/")))
	if n == "/" || n == "." || n == "" {
		return "download"
	}
	return n
}

// setConditional asks for the file only if it changed since prev, the
// state of the version fetched last (nil: none).
func setConditional(req *http.Request, prev *FileState) {
	if prev == nil {
		return
	}
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
}
