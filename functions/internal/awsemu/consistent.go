package awsemu

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// consistentS3 stands in front of s3rver and makes a PutObject answer only
// once the object reads back whole, as S3 does (read-after-write
// consistency). s3rver 3.7.1 answers a PUT when the body has passed
// through its hash, before its file stream has flushed the object to disk
// (lib/stores/filesystem.js putObject resolves on the Transform's finish),
// so a HEAD right after it can read 0 bytes: meridian-publish, which checks
// each upload, then failed once in about ten runs on this loaded machine
// ("s3 object ... after upload: 0 bytes; want 7659").
type consistentS3 struct {
	target *url.URL
	rp     *httputil.ReverseProxy
	client *http.Client
	wait   time.Duration // the longest a PUT's answer is held
	poll   time.Duration
}

func newConsistentS3(target *url.URL) *consistentS3 {
	p := &consistentS3{target: target, client: &http.Client{Timeout: 10 * time.Second}, wait: 10 * time.Second, poll: 5 * time.Millisecond}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host // SigV4 signs it
		},
		ModifyResponse: p.settle,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "s3rver proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p
}

func (p *consistentS3) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.rp.ServeHTTP(w, r) }

// settle holds a successful PutObject's answer until an unsigned HEAD of
// the object (s3rver lets those through) reads its length, or p.wait has
// passed, or the HEAD answers something else than 200 or 404.
func (p *consistentS3) settle(resp *http.Response) error {
	req := resp.Request
	want, ok := putObjectLength(req)
	if !ok || resp.StatusCode != http.StatusOK {
		return nil
	}
	u := *p.target
	u.Path, u.RawPath = req.URL.Path, req.URL.RawPath
	ctx, cancel := context.WithTimeout(req.Context(), p.wait)
	defer cancel()
	for {
		head, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
		if err != nil {
			return nil
		}
		hr, err := p.client.Do(head)
		if err != nil {
			return nil // the client sees the PUT's answer; a read then tells
		}
		hr.Body.Close()
		if hr.StatusCode != http.StatusOK && hr.StatusCode != http.StatusNotFound {
			return nil
		}
		if hr.StatusCode == http.StatusOK && hr.ContentLength == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(p.poll):
		}
	}
}

// putObjectLength is the object length of a PutObject request (a PUT of
// /bucket/key with no subresource, not a copy), from
// X-Amz-Decoded-Content-Length when the body is aws-chunked.
func putObjectLength(r *http.Request) (int64, bool) {
	if r.Method != http.MethodPut || r.URL.RawQuery != "" || r.Header.Get("X-Amz-Copy-Source") != "" {
		return 0, false
	}
	if bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); bucket == "" || key == "" {
		return 0, false
	}
	if d := r.Header.Get("X-Amz-Decoded-Content-Length"); d != "" {
		n, err := strconv.ParseInt(d, 10, 64)
		return n, err == nil
	}
	return r.ContentLength, r.ContentLength >= 0
}
