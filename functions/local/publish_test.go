package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/datadir"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
	"meridian/shared/publish"
	"meridian/shared/release"
	"meridian/shared/tile/datalayers"
)

// publish copies a data directory (fixture grids, demo reports) into an S3
// and a DynamoDB emulator; a second run skips everything; the copy reads
// back as the original.
func TestPublishToEmulators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := datadir.Dir(t.TempDir())
	gateway.EnsureDemoKey(string(dir))
	srv, err := newServer(t.Context(), serverConfig{data: dir, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close() // publish reads the report versions a server serves

	const bucket = "meridian-data"
	s3c := s3blobtest.FakeS3(t, bucket)
	dc, ddbURL := dynamokvtest.Minidyn(t, "reports")
	o := publish.Options{Data: dir, Domains: reportDomains, Bucket: bucket, Table: "reports", S3Endpoint: *s3c.Options().BaseEndpoint,
		DynamoEndpoint: ddbURL, Region: "us-east-1", AccessKey: "test", SecretKey: "test"}

	var out bytes.Buffer
	o.Progress = &out
	if err := publish.Run(ctx, o); err != nil {
		t.Fatalf("publish: %v\n%s", err, out.String())
	}
	// The four fixture grid indexes and the data archives the first start built.
	files := 4 + len(datalayers.Names())
	if !strings.Contains(out.String(), fmt.Sprintf("files: %d uploaded, 0 already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 published") ||
		!strings.Contains(out.String(), "dataset ag: version 1 published") {
		t.Errorf("first run:\n%s", out.String())
	}
	// The grid indexes are in the bucket at the keys the manifest names,
	// and only there: nothing is overwritten in place.
	grid := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	m, ok, err := release.Read(ctx, grid)
	if err != nil || !ok || len(m.Files) != 4 {
		t.Fatalf("grid manifest: %+v, %v, %v", m, ok, err)
	}
	const name = "fixture-altalis-ats-v4.1.mgix"
	key, ok := m.Resolve(name)
	if info, err := grid.Stat(ctx, key); !ok || err != nil || info.Size == 0 || info.Size != m.Files[name].Size || !strings.HasPrefix(key, "v/") {
		t.Errorf("grid index %s at %q: %+v, %v", name, key, info, err)
	}
	if _, err := grid.Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("grid index also at its name: %v; want fs.ErrNotExist", err)
	}
	tiles := s3blob.New(s3c, bucket, "tiles/", s3blob.Options{})
	if tm, ok, err := release.Read(ctx, tiles); err != nil || !ok || len(tm.Files) != len(datalayers.Names()) {
		t.Errorf("tiles manifest: %+v, %v, %v", tm, ok, err)
	}

	local := servedReports(t, string(dir), energy.Dataset)
	remote := dynamokv.New(dc, o.Table, dynamokv.Options{Timeout: emulatorTimeout})
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
	if err := publish.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("files: 0 uploaded, %d already there", files)) || !strings.Contains(out.String(), "dataset energy: version 1 already published") {
		t.Errorf("second run should skip everything:\n%s", out.String())
	}

	// A table that throttles every batch write: the publish (-merge, so
	// that it writes new versions) stops with an error that says so, and
	// the table serves version 1, whole, as before.
	target, _ := url.Parse(ddbURL)
	throttle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".BatchWriteItem") {
			dynamoThrottled(w)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(throttle.Close)
	before, _, _ := kv.Open(ctx, remote, energy.Dataset)
	o.DynamoEndpoint, o.Merge, o.DynamoAttempts, o.DynamoWorkers = throttle.URL, true, 2, 4
	out.Reset()
	err = publish.Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "throttled after 2 attempts") {
		t.Fatalf("publish to a table that throttles every batch = %v, want an error saying so\n%s", err, out.String())
	}
	t.Logf("publish to a table that throttles every batch: %v", err)
	after, ok, err := kv.Open(ctx, remote, energy.Dataset)
	if err != nil || !ok || after.Version != before.Version || after.Items != before.Items {
		t.Fatalf("after the failed publish the table serves %+v (%v, %v), want version %d as before", after, ok, err, before.Version)
	}
	n := 0
	if err := remote.ScanKeys(ctx, fmt.Sprintf("%s@%d#", energy.Dataset, before.Version), func(keys []kv.Key) error { n += len(keys); return nil }); err != nil || n != before.Items {
		t.Errorf("served version after the failed publish: %d items (%v), want %d", n, err, before.Items)
	}
}

// dynamoThrottled answers like a DynamoDB table over its rate.
func dynamoThrottled(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Throughput exceeds the current capacity of your table or index."}`)
}
