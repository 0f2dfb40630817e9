package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/tile/datalayers"
)

// publish copies a data directory (fixture grids, demo reports) into an S3
// and a DynamoDB emulator; a second run skips everything; the copy reads
// back as the original.
func TestPublishToEmulators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	gateway.EnsureDemoKey(dir)
	srv, err := newServer(serverConfig{dataDir: dir, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close() // publish reads reports.db, which a server holds

	const bucket = "meridian-data"
	s3c := blobtest.FakeS3(t, bucket)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	o := publishOptions{dataDir: dir, bucket: bucket, table: "reports", s3Endpoint: *s3c.Options().BaseEndpoint,
		dynamoEndpoint: ddb.URL, region: "us-east-1", accessKey: "test", secretKey: "test"}
	dc, err := kv.NewDynamoClient(ctx, kv.DynamoClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.CreateTable(ctx, dc, o.table); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	o.progress = &out
	if err := publish(ctx, o); err != nil {
		t.Fatalf("publish: %v\n%s", err, out.String())
	}
	// The four fixture grid indexes and the data archives the first start built.
	files := 4 + len(datalayers.Names())
	if !strings.Contains(out.String(), fmt.Sprintf("files: %d uploaded, 0 already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 published") ||
		!strings.Contains(out.String(), "dataset ag: version 1 published") {
		t.Errorf("first run:\n%s", out.String())
	}
	grid := blob.NewS3(s3c, bucket, "grid/", blob.S3Options{})
	if info, err := grid.Stat(ctx, "fixture-altalis-ats-v4.1.mgix"); err != nil || info.Size == 0 {
		t.Errorf("grid index not in the bucket: %v", err)
	}

	local, _ := kv.OpenBolt(reportsPath(dir), kv.BoltOptions{ReadOnly: true})
	defer local.Close()
	remote := kv.NewDynamo(dc, o.table, kv.DynamoOptions{})
	want, _, _ := kv.Open(ctx, local, energy.Dataset)
	got, ok, err := kv.Open(ctx, remote, energy.Dataset)
	if err != nil || !ok || got.Info.Source != want.Info.Source || !got.Info.Demo {
		t.Fatalf("remote energy dataset %+v %v %v", got, ok, err)
	}
	for _, pk := range []string{energy.PKOperators, energy.PKExpiring, energy.PKSources} {
		a, _ := want.Query(ctx, kv.Query{PK: pk})
		b, err := got.Query(ctx, kv.Query{PK: pk})
		if err != nil || len(a.Items) == 0 || len(a.Items) != len(b.Items) || string(a.Items[0].Data) != string(b.Items[0].Data) {
			t.Errorf("%s: local %d items, remote %d (%v)", pk, len(a.Items), len(b.Items), err)
		}
	}

	out.Reset()
	if err := publish(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("files: 0 uploaded, %d already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 already published") {
		t.Errorf("second run should skip everything:\n%s", out.String())
	}
}

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

// `meridian publish` signs with the SDK's default credential chain: a
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
	dir := t.TempDir()
	if err := os.MkdirAll(gridPath(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gridPath(dir), "a"+gridExt), []byte("grid bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := kv.OpenBolt(reportsPath(dir), kv.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Publish(ctx, local, kv.DatasetInfo{Name: "tiny", Source: "test"}, func(w *kv.Writer) error { return w.Put("P", "s", 1) }); err != nil {
		t.Fatal(err)
	}
	local.Close()

	const bucket = "meridian-data"
	s3c := blobtest.FakeS3(t, bucket)
	s3log, s3URL := newHeaderLog(t, *s3c.Options().BaseEndpoint)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	dc, err := kv.NewDynamoClient(ctx, kv.DynamoClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.CreateTable(ctx, dc, "reports"); err != nil {
		t.Fatal(err)
	}
	ddbLog, ddbURL := newHeaderLog(t, ddb.URL)

	var stdout, stderr bytes.Buffer
	code := publishCommand([]string{"-data", dir, "-bucket", bucket, "-table", "reports", "-s3-endpoint", s3URL, "-dynamodb-endpoint", ddbURL}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("publish exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	s3log.check(t, "S3", token, key)
	ddbLog.check(t, "DynamoDB", token, key)
	if d, ok, err := kv.Open(ctx, kv.NewDynamo(dc, "reports", kv.DynamoOptions{}), "tiny"); err != nil || !ok || d.Items != 1 {
		t.Errorf("published dataset: %+v, %v, %v", d, ok, err)
	}
}
