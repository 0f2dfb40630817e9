package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
	"meridian/shared/blob/s3blob"
	"meridian/shared/datadir"
	"meridian/shared/demo/griddemo"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/release"
	"meridian/shared/survey/gridindex"
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
	s3c := blobtest.FakeS3(t, bucket)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	o := publishOptions{data: dir, bucket: bucket, table: "reports", s3Endpoint: *s3c.Options().BaseEndpoint,
		dynamoEndpoint: ddb.URL, region: "us-east-1", accessKey: "test", secretKey: "test"}
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, o.table); err != nil {
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
	remote := dynamokv.New(dc, o.table, dynamokv.Options{})
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

	// A table that throttles every batch write: the publish (-merge, so
	// that it writes new versions) stops with an error that says so, and
	// the table serves version 1, whole, as before.
	target, _ := url.Parse(ddb.URL)
	throttle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".BatchWriteItem") {
			dynamoThrottled(w)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(throttle.Close)
	before, _, _ := kv.Open(ctx, remote, energy.Dataset)
	o.dynamoEndpoint, o.merge, o.dynamoAttempts, o.dynamoWorkers = throttle.URL, true, 2, 4
	out.Reset()
	err = publish(ctx, o)
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
	s3c := blobtest.FakeS3(t, bucket)
	s3log, s3URL := newHeaderLog(t, *s3c.Options().BaseEndpoint)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, "reports"); err != nil {
		t.Fatal(err)
	}
	ddbLog, ddbURL := newHeaderLog(t, ddb.URL)

	var stdout, stderr bytes.Buffer
	code := publishCommand([]string{"-data", string(dir), "-bucket", bucket, "-table", "reports", "-s3-endpoint", s3URL, "-dynamodb-endpoint", ddbURL}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("publish exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	s3log.check(t, "S3", token, key)
	ddbLog.check(t, "DynamoDB", token, key)
	if d, ok, err := kv.Open(ctx, dynamokv.New(dc, "reports", dynamokv.Options{}), energy.Dataset); err != nil || !ok || d.Items != 1 {
		t.Errorf("published dataset: %+v, %v, %v", d, ok, err)
	}
}

// An index opened from a published release keeps reading the bytes it
// opened after the file is published again with other content: publish
// writes new objects and a new manifest, never over the old object. A new
// open reads the new release.
func TestPublishKeepsOpenIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files, err := griddemo.Indexes(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(files))
	first, second := files[names[0]], files[names[1]]

	dir := datadir.Dir(t.TempDir())
	if err := os.MkdirAll(dir.Grid(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir.Grid(), "served"+datadir.GridExt)
	const bucket = "meridian-data"
	s3c := blobtest.FakeS3(t, bucket)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	o := publishOptions{data: dir, bucket: bucket, table: "reports", s3Endpoint: *s3c.Options().BaseEndpoint,
		dynamoEndpoint: ddb.URL, region: "us-east-1", accessKey: "test", secretKey: "test", progress: io.Discard}
	store := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	open := func() *gridindex.Index {
		t.Helper()
		ixs, err := gridstore.OpenIndexes(ctx, store, []string{"served" + datadir.GridExt}, "test:")
		if err != nil {
			t.Fatal(err)
		}
		return ixs[0]
	}

	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := publish(ctx, o); err != nil {
		t.Fatal(err)
	}
	held := open()
	if err := os.WriteFile(path, second, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := publish(ctx, o); err != nil {
		t.Fatal(err)
	}

	// What the held index reads now (its first reads past the header)
	// against the same reads of the first file, from memory.
	mem := blob.NewMem()
	mem.Put(ctx, "x", bytes.NewReader(first))
	ref, err := gridindex.Open(ctx, mem, "x", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.GroupKeys(ctx, "", 50)
	if err != nil || len(want) == 0 {
		t.Fatalf("GroupKeys of the first file = %v, %v", want, err)
	}
	got, err := held.GroupKeys(ctx, "", 50)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("index held across a publish reads %v, %v; want the first file's %v", got, err, want)
	}
	if m := open().Meta(); m.Name == held.Meta().Name {
		t.Errorf("a new open after the second publish reads %q, the first file's dataset", m.Name)
	}
}

// Two publishes that overlap: the second to write the manifest finds it
// changed since it started and fails, leaving the first one's release.
func TestPublishManifestConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "meridian-data"
	client := blobtest.FakeS3(t, bucket)
	mine := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/01/a.mgix", Size: 1}}}
	theirs := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/02/a.mgix", Size: 2}}}
	read := func() manifestBase {
		t.Helper()
		b, err := readManifestBase(ctx, client, bucket, "grid/")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	served := func() string {
		t.Helper()
		m, _, err := release.Read(ctx, s3blob.New(client, bucket, "grid/", s3blob.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		key, _ := m.Resolve("a.mgix")
		return key
	}

	myBase, theirBase := read(), read() // both start with no manifest
	if ok, err := writeManifest(ctx, client, theirBase, theirs); !ok || err != nil {
		t.Fatalf("first manifest write = %v, %v", ok, err)
	}
	if ok, err := writeManifest(ctx, client, myBase, mine); ok || !errors.Is(err, errReleaseConflict) {
		t.Errorf("manifest write over one written meanwhile (none at start) = %v, %v; want errReleaseConflict", ok, err)
	}
	if got := served(); got != "v/02/a.mgix" {
		t.Errorf("manifest after the lost race names %q, want the winner's", got)
	}

	myBase, theirBase = read(), read()
	if ok, err := writeManifest(ctx, client, theirBase, mine); !ok || err != nil {
		t.Fatalf("manifest write with the current ETag = %v, %v", ok, err)
	}
	third := release.Manifest{Files: map[string]release.File{"a.mgix": {Key: "v/03/a.mgix", Size: 3}}}
	if ok, err := writeManifest(ctx, client, myBase, third); ok || !errors.Is(err, errReleaseConflict) {
		t.Errorf("manifest write with a stale ETag = %v, %v; want errReleaseConflict", ok, err)
	}
	if got := served(); got != "v/01/a.mgix" {
		t.Errorf("manifest after the second lost race names %q, want v/01/a.mgix", got)
	}
	if ok, err := writeManifest(ctx, client, read(), mine); ok || err != nil {
		t.Errorf("manifest write of the same files = %v, %v; want skipped", ok, err)
	}
}

// -merge publishes a directory holding part of the data (what the refresh
// job ingested into scratch storage): the manifest keeps naming the files
// the directory lacks, and a directory without a report store publishes
// its files alone.
func TestPublishMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bucket = "meridian-merge"
	s3c := blobtest.FakeS3(t, bucket)
	write := func(dir, name, body string) {
		t.Helper()
		p := filepath.Join(datadir.Dir(dir).Grid(), name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full, part := t.TempDir(), t.TempDir()
	write(full, "a.mgix", "index a, first")
	write(full, "b.mgix", "index b, first")
	write(part, "b.mgix", "index b, second")
	o := publishOptions{bucket: bucket, table: "unused", s3Endpoint: *s3c.Options().BaseEndpoint,
		region: "us-east-1", accessKey: "test", secretKey: "test", merge: true}
	grid := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	var out bytes.Buffer
	o.progress = &out
	for _, dir := range []string{full, part} {
		o.data = datadir.Dir(dir)
		if err := publish(ctx, o); err != nil {
			t.Fatalf("publish -merge %s: %v\n%s", dir, err, out.String())
		}
	}
	if !strings.Contains(out.String(), "dataset energy: never ingested here, not published") {
		t.Errorf("no word about the missing report store:\n%s", out.String())
	}
	m, ok, err := release.Read(ctx, grid)
	if err != nil || !ok {
		t.Fatalf("grid manifest: %v %v", ok, err)
	}
	if got := slices.Sorted(maps.Keys(m.Files)); !slices.Equal(got, []string{"a.mgix", "b.mgix"}) {
		t.Fatalf("manifest names %v, want a.mgix (kept) and b.mgix (new)", got)
	}
	for name, want := range map[string]string{"a.mgix": "index a, first", "b.mgix": "index b, second"} {
		key, _ := m.Resolve(name)
		b, err := grid.ReadRange(ctx, key, 0, int64(len(want)))
		if err != nil || string(b) != want {
			t.Errorf("%s at %s: %q, %v; want %q", name, key, b, err, want)
		}
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
		if code := publishCommand(all, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), args[0][1:]) {
			t.Errorf("publish %v = exit %d, stderr %q; want 2 and a word on %s", args, code, stderr.String(), args[0])
		}
	}
}

// heapSink takes every batch write after half a millisecond (slower than
// the source reads, so that a publish that did not wait for its writes
// would pile them up) and drops it, sampling the heap in use (after a GC)
// every 40 calls; the other calls go to the emulator.
type heapSink struct {
	dynamokv.API
	calls, items atomic.Int64
	peak         atomic.Uint64
}

func (h *heapSink) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	time.Sleep(500 * time.Microsecond)
	for _, reqs := range in.RequestItems {
		h.items.Add(int64(len(reqs)))
	}
	if h.calls.Add(1)%40 == 0 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		for {
			p := h.peak.Load()
			if ms.HeapInuse <= p || h.peak.CompareAndSwap(p, ms.HeapInuse) {
				break
			}
		}
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

// Publishing a report dataset to DynamoDB streams it: the heap while
// copying 48,000 items from a bbolt store is no larger than while copying
// 6,000 (a bbolt scan batch of keys and the write stream's batches, not
// the dataset).
func TestPublishDatasetHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("copies 56,000 items")
	}
	ctx := context.Background()
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, "reports"); err != nil {
		t.Fatal(err)
	}
	peak := func(n int) uint64 {
		src, err := kv.OpenBolt(filepath.Join(t.TempDir(), "reports.db"), kv.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		name := fmt.Sprintf("heap%d", n)
		_, err = kv.Publish(ctx, src, kv.DatasetInfo{Name: name, Source: "test"}, func(w *kv.Writer) error {
			for i := range n {
				data := fmt.Appendf(nil, `{"uwi":"100/%02d-%02d-%03d-%02dW4/0","operator":"Juniper Bend Energy Corp. (demo)","status":"Pumping","fluid":"crude oil","depth_m":%d.5}`,
					i%16+1, i/16%36+1, i/576%126+1, i%30+1, 1000+i%3000)
				if err := w.PutRaw(fmt.Sprintf("LSD#%07d", i/20), fmt.Sprintf("WELL#%07d", i), data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Setting up the source leaves bbolt's page buffers of its load
		// (one transaction's worth) in a sync.Pool, which one collection
		// only moves to the victim cache: two empty it, so the samples
		// measure the publish alone.
		runtime.GC()
		runtime.GC()
		sink := &heapSink{API: dc}
		remote := dynamokv.New(sink, "reports", dynamokv.Options{Timeout: time.Minute, WriteConcurrency: defaultPublishWorkers})
		if err := copyDataset(ctx, src, remote, name, false, io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := sink.items.Load(); got != int64(n) {
			t.Fatalf("copied %d items, want %d", got, n)
		}
		return sink.peak.Load()
	}
	peak(2_000) // warms up what is made once (the SDK's and HTTP's pools)
	small, large := peak(6_000), peak(48_000)
	t.Logf("heap in use while publishing: %d KiB for 6,000 items, %d KiB for 48,000", small>>10, large>>10)
	if large > small+2<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB with 8 times the items: the publish is not streaming", small>>10, large>>10)
	}
}
