package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
)

// headerLog is a reverse proxy in front of an emulator that records the
// session token and access key of every request.
type headerLog struct {
	mu      sync.Mutex
	tokens  []string
	keys    []string
	backend string
}

func newHeaderLog(t *testing.T, backend string) (*headerLog, string) {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	l := &headerLog{backend: backend}
	proxy := httputil.NewSingleHostReverseProxy(u)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.tokens = append(l.tokens, r.Header.Get("X-Amz-Security-Token"))
		auth := r.Header.Get("Authorization")
		if _, rest, ok := strings.Cut(auth, "Credential="); ok {
			auth, _, _ = strings.Cut(rest, "/")
		}
		l.keys = append(l.keys, auth)
		l.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return l, ts.URL
}

// check reports requests that did not carry the token and key.
func (l *headerLog) check(t *testing.T, what, token, key string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tokens) == 0 {
		t.Errorf("%s: no request reached the emulator", what)
	}
	for i := range l.tokens {
		if l.tokens[i] != token || l.keys[i] != key {
			t.Errorf("%s request %d: X-Amz-Security-Token %q, access key %q; want %q, %q", what, i, l.tokens[i], l.keys[i], token, key)
			return
		}
	}
}

// `meridian-publish` signs with the SDK's default credential chain: a
// session token in the environment (SSO, an assumed role) reaches every S3
// and DynamoDB request. Not parallel: it sets the environment.
func TestPublishSessionToken(t *testing.T) {
	const token, key = "session-token-for-test", "ASIATESTSESSION"
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": token,
		"AWS_REGION": "us-east-1", "AWS_PROFILE": "", "AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"), "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	dir := datadir.Dir(t.TempDir())
	if err := os.MkdirAll(dir.Grid(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir.Grid(), "a"+datadir.GridExt), []byte("grid bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dir.Reports(energy.Dataset).Publish(ctx, func(ctx context.Context, s kv.Store) error {
		_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error { return w.Put("P", "s", 1) })
		return err
	}); err != nil {
		t.Fatal(err)
	}

	const bucket = "meridian-data"
	s3c := s3blobtest.FakeS3(t, bucket)
	s3log, s3URL := newHeaderLog(t, *s3c.Options().BaseEndpoint)
	dc, ddbURL := dynamokvtest.Minidyn(t, "reports")
	ddbLog, ddbURL := newHeaderLog(t, ddbURL)

	var stdout, stderr bytes.Buffer
	code := run([]string{"-data", string(dir), "-bucket", bucket, "-table", "reports", "-s3-endpoint", s3URL, "-dynamodb-endpoint", ddbURL}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("publish exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	s3log.check(t, "S3", token, key)
	ddbLog.check(t, "DynamoDB", token, key)
	if d, ok, err := kv.Open(ctx, dynamokv.New(dc, "reports", dynamokv.Options{Timeout: emulatorTimeout}), energy.Dataset); err != nil || !ok || d.Items != 1 {
		t.Errorf("published dataset: %+v, %v, %v", d, ok, err)
	}
}

// The DynamoDB write flags are checked before anything is read or sent.
func TestPublishWorkerFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-dynamodb-workers", "0"},
		{"-dynamodb-workers", "65"},
		{"-dynamodb-attempts", "0"},
		{"-dynamodb-workers", "x"},
	} {
		var stdout, stderr bytes.Buffer
		all := append([]string{"-bucket", "b", "-table", "t", "-data", t.TempDir()}, args...)
		if code := run(all, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), args[0][1:]) {
			t.Errorf("publish %v = exit %d, stderr %q; want 2 and a word on %s", args, code, stderr.String(), args[0])
		}
	}
}

// emulatorTimeout bounds each of a test's own DynamoDB calls to an
// emulator: the 3 s a Lambda gives a call (dynamokv.DefaultTimeout) is too
// short for an in-process emulator on a loaded machine, where make test
// runs packages side by side.
const emulatorTimeout = time.Minute
