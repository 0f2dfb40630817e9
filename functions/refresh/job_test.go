package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/ag"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/datafetch"
	"meridian/shared/datafetch/datafetchtest"
	"meridian/shared/demo"
	"meridian/shared/demo/griddemo"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/release"
)

// meridianBin and publishBin are the binaries the job runs, built once.
var meridianBin, publishBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meridian-refresh-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	meridianBin, publishBin = filepath.Join(dir, "meridian"), filepath.Join(dir, "meridian-publish")
	for bin, pkg := range map[string]string{meridianBin: "meridian/functions/local", publishBin: "meridian/functions/publish"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mbPublisher serves the two downloads of mb-original-survey (the fixture
// CSVs, the corners zipped as MLI zips them) with ETags, 304 and HEAD
// through http.ServeContent, and counts the bodies it sends.
type mbPublisher struct {
	mu     sync.Mutex
	files  map[string][]byte // by URL path
	bodies int               // GET answers with a body
	heads  int
}

func newMBPublisher(t *testing.T) (*mbPublisher, *httptest.Server) {
	t.Helper()
	files, err := griddemo.Files()
	if err != nil {
		t.Fatal(err)
	}
	p := &mbPublisher{files: map[string][]byte{}}
	p.set(t, files[griddemo.MBSurveyFile], files[griddemo.MBCornersFile])
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return p, ts
}

// set replaces the published files.
func (p *mbPublisher) set(t *testing.T, survey, corners []byte) {
	t.Helper()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("mb_township_system_corners/MB_QuarterSectionCorners_FIXTURE.csv")
	w.Write(corners)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files["/datasets/11fa11f9015b45438d6493dcb3d8071c_0.csv"] = survey
	p.files["/quarter_sec/data/mb_township_system_corners.zip"] = zb.Bytes()
}

func (p *mbPublisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	b, ok := p.files[r.URL.Path]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := sha256.Sum256(b)
	w.Header().Set("ETag", `"`+hex.EncodeToString(h[:8])+`"`)
	rec := &statusRecorder{ResponseWriter: w}
	http.ServeContent(rec, r, "", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), bytes.NewReader(b))
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Method == http.MethodHead {
		p.heads++
	} else if rec.status == http.StatusOK || rec.status == http.StatusPartialContent {
		p.bodies++
	}
}

func (p *mbPublisher) counts() (bodies, heads int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bodies, p.heads
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// testJob is a Job against an S3 emulator (gofakes3), a DynamoDB emulator
// (minidyn) and the local publisher at base.
func testJob(t *testing.T, base string) (*Job, *s3.Client, *dynamodb.Client) {
	t.Helper()
	const bucket = "meridian-data"
	s3c := s3blobtest.FakeS3(t, bucket)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	dc, err := dynamokv.NewClient(context.Background(), dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddb.URL,
		AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(context.Background(), dc, "reports"); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("job output:\n%s", log.String())
		}
	})
	return &Job{
		S3: s3c, Bucket: bucket, Table: "reports", Prefix: defaultPrefix,
		Scratch:  filepath.Join(t.TempDir(), "scratch"),
		Meridian: meridianBin,
		Publish:  publishBin,
		Env: []string{"MERIDIAN_FETCH_BASE_URL=" + base, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
			"AWS_SESSION_TOKEN=", "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"},
		PublishFlags: []string{"-s3-endpoint", *s3c.Options().BaseEndpoint, "-dynamodb-endpoint", ddb.URL, "-region", "us-east-1"},
		FetchBaseURL: base,
		Log:          slog.New(slog.NewTextHandler(&log, nil)),
		Out:          &log,
	}, s3c, dc
}

// gridManifest reads grid/MANIFEST.json and its ETag.
func gridManifest(t *testing.T, s3c *s3.Client, bucket string) (release.Manifest, string) {
	t.Helper()
	ctx := context.Background()
	m, ok, err := release.Read(ctx, s3blob.New(s3c, bucket, "grid/", s3blob.Options{}))
	if err != nil || !ok {
		t.Fatalf("grid manifest: %v, %v", ok, err)
	}
	head, err := s3c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("grid/" + release.ManifestKey)})
	if err != nil {
		t.Fatal(err)
	}
	return m, aws.ToString(head.ETag)
}

func object(t *testing.T, s3c *s3.Client, bucket, key string) ([]byte, bool) {
	t.Helper()
	out, err := s3c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, false
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return b, true
}

// The Lambda's handler refreshes the Manitoba grid end to end: the first
// run fetches, checks, ingests into scratch and publishes the index to S3
// behind the manifest, and records the download in the bucket; the second,
// with nothing changed, is answered 304 to its HEADs, downloads no body and
// publishes nothing; a changed file is published again; a file the -check
// rejects fails the run and changes nothing served or recorded.
func TestRefreshGridEndToEnd(t *testing.T) {
	ctx := context.Background()
	pub, ts := newMBPublisher(t)
	job, s3c, _ := testJob(t, ts.URL)
	handler := newHandler(job, []string{"mb-original-survey"})

	res, err := handler(ctx, Request{})
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !slices.Equal(res.Updated, []string{"mb-original-survey"}) || !res.Published {
		t.Fatalf("first run: %+v, want mb-original-survey updated and published", res)
	}
	t.Logf("first run: %.2f s, scratch %d bytes at most, meridian peak RSS %d KiB", res.Seconds, res.ScratchBytes, res.PeakRSSKiB)
	m1, etag1 := gridManifest(t, s3c, job.Bucket)
	if len(m1.Files) != 1 {
		t.Fatalf("grid manifest names %v, want the one Manitoba index", m1.Files)
	}
	var name string
	for n := range m1.Files {
		name = n
	}
	key1, _ := m1.Resolve(name)
	if b, ok := object(t, s3c, job.Bucket, "grid/"+key1); !ok || int64(len(b)) != m1.Files[name].Size {
		t.Fatalf("index %s at grid/%s: %d bytes, %v", name, key1, len(b), ok)
	}
	state, ok := object(t, s3c, job.Bucket, "refresh/downloads/mb-original-survey/state.json")
	if !ok || !bytes.Contains(state, []byte(`"etag"`)) {
		t.Fatalf("recorded state: %s, %v", state, ok)
	}
	if _, err := os.Stat(job.Scratch); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch %s left behind: %v", job.Scratch, err)
	}
	if res.ScratchBytes <= 0 || res.PeakRSSKiB <= 0 {
		t.Errorf("scratch %d bytes, peak RSS %d KiB: not measured", res.ScratchBytes, res.PeakRSSKiB)
	}

	bodies, heads := pub.counts()
	res, err = handler(ctx, Request{Datasets: []string{"mb-original-survey"}})
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	b2, h2 := pub.counts()
	if res.Published || len(res.Updated) != 0 || !slices.Equal(res.Unchanged, []string{"mb-original-survey"}) {
		t.Errorf("second run: %+v, want unchanged and nothing published", res)
	}
	if b2 != bodies || h2 != heads+2 {
		t.Errorf("second run: %d bodies and %d HEADs sent, want 0 and 2", b2-bodies, h2-heads)
	}
	t.Logf("second run (nothing changed): %.2f s", res.Seconds)
	if _, etag := gridManifest(t, s3c, job.Bucket); etag != etag1 {
		t.Errorf("manifest rewritten by a run that changed nothing: %s, was %s", etag, etag1)
	}

	files, _ := griddemo.Files()
	corners := files[griddemo.MBCornersFile]
	// The corners of one quarter fewer: a different index.
	lines := bytes.SplitAfter(corners, []byte("\n"))
	changed := bytes.Join(append(lines[:1:1], lines[2:]...), nil)
	pub.set(t, files[griddemo.MBSurveyFile], changed)
	if res, err = handler(ctx, Request{}); err != nil || !res.Published {
		t.Fatalf("run after a change: %+v, %v", res, err)
	}
	m3, etag3 := gridManifest(t, s3c, job.Bucket)
	if key3, _ := m3.Resolve(name); etag3 == etag1 || key3 == key1 {
		t.Errorf("after a change the manifest names %s (ETag %s), as before (%s, %s)", key3, etag3, key1, etag1)
	}
	state3, _ := object(t, s3c, job.Bucket, "refresh/downloads/mb-original-survey/state.json")

	// A corners file the -check rejects: the run fails, the release and
	// the recorded download stay.
	pub.set(t, files[griddemo.MBSurveyFile], []byte("not,a,corners,file\n1,2,3\n"))
	res, err = handler(ctx, Request{})
	if err == nil || res.Published {
		t.Fatalf("run over a broken file: %+v, %v; want an error and nothing published", res, err)
	}
	t.Logf("broken file: %v", err)
	m4, etag4 := gridManifest(t, s3c, job.Bucket)
	if etag4 != etag3 || len(m4.Files) != len(m3.Files) {
		t.Errorf("manifest changed by a failed run")
	}
	if state4, _ := object(t, s3c, job.Bucket, "refresh/downloads/mb-original-survey/state.json"); !bytes.Equal(state4, state3) {
		t.Errorf("recorded download changed by a failed run")
	}
}

func TestSelectEntries(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string // in the error; "" for none
	}{
		{"open", Request{Datasets: []string{"mb-original-survey", "aer-st37"}}, ""},
		{"none", Request{}, "no datasets"},
		{"unknown", Request{Datasets: []string{"nope"}}, `no dataset "nope"`},
		{"hand step", Request{Datasets: []string{"altalis-ats"}}, "needs a hand step"},
		{"hand step with its url", Request{Datasets: []string{"altalis-ats"}, URL: "https://example.com/ATS_V4_1.zip"}, ""},
		{"url for two", Request{Datasets: []string{"aer-st37", "petrinex-ba"}, URL: "https://example.com/x.zip"}, "exactly one"},
	}
	for _, tc := range tests {
		_, err := selectEntries(tc.req)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: selectEntries(%+v) = %v, want %q", tc.name, tc.req, err, tc.want)
		}
	}
}

// domainOf adds the datasets an energy ingest reads besides the one asked
// for, and nothing to a grid.
func TestDomainOf(t *testing.T) {
	entries, _ := selectEntries(Request{Datasets: []string{"petrinex-ba"}})
	keys := keysOf(domainOf(entries))
	if keys[0] != "petrinex-ba" || !slices.Contains(keys, "aer-st37") || !slices.Contains(keys, "owa-inventory") || slices.Contains(keys, "aafc-slc") {
		t.Errorf("domain of petrinex-ba: %v", keys)
	}
	entries, _ = selectEntries(Request{Datasets: []string{"mb-original-survey"}})
	if keys := keysOf(domainOf(entries)); !slices.Equal(keys, []string{"mb-original-survey"}) {
		t.Errorf("domain of mb-original-survey: %v", keys)
	}
}

func TestLoadConfig(t *testing.T) {
	_, err := loadConfig(func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "DATA_BUCKET") || !strings.Contains(err.Error(), "REPORTS_TABLE") {
		t.Errorf("empty environment: %v; want both DATA_BUCKET and REPORTS_TABLE named", err)
	}
	env := map[string]string{"DATA_BUCKET": "b", "REPORTS_TABLE": "t", "REFRESH_DATASETS": " aer-st37, petrinex-ba ,", "REFRESH_URL": "https://example.com/x.zip",
		"MERIDIAN_FETCH_BASE_URL": "http://127.0.0.1:9/base"}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil || c.Prefix != defaultPrefix || !slices.Equal(c.Datasets, []string{"aer-st37", "petrinex-ba"}) || filepath.Base(c.Meridian) != "meridian" || filepath.Base(c.Publish) != "meridian-publish" || c.URL != "https://example.com/x.zip" ||
		c.FetchBaseURL != "http://127.0.0.1:9/base" {
		t.Errorf("loadConfig = %+v, %v", c, err)
	}
}

// The energy group (the Fargate task's program, run here in-process)
// end to end against the demo files as the publishers pack them: every
// energy dataset fetched, checked and ingested into scratch, the energy
// report dataset published to DynamoDB with a conditional flip and the
// energy tile archives to S3 behind their manifest; a second run is
// answered 304 and publishes nothing.
func TestRefreshEnergyEndToEnd(t *testing.T) {
	ctx := context.Background()
	now := demo.AsOf() // the demo's months are the manifest's on that day
	pub, ts, _ := datafetchtest.NewPublisher(t, now)
	job, s3c, dc := testJob(t, ts.URL)
	job.Now = func() time.Time { return now }
	var keys []string
	for _, g := range datafetch.Manifest() {
		if g.Ingest.Kind == "energy" && g.Access.Unattended() {
			keys = append(keys, g.Key)
		}
	}
	// The Manitoba grid first: the energy ingest places parcels on it.
	if res, err := job.Run(ctx, Request{Datasets: []string{"mb-original-survey"}}); err != nil || !res.Published {
		t.Fatalf("grid run: %+v, %v", res, err)
	}
	_, gridETag := gridManifest(t, s3c, job.Bucket)
	res, err := job.Run(ctx, Request{Datasets: keys})
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if _, etag := gridManifest(t, s3c, job.Bucket); etag != gridETag {
		t.Errorf("the energy run rewrote the grid manifest")
	}
	if !strings.Contains(job.Out.(*bytes.Buffer).String(), "grid index for the ingest") {
		t.Errorf("the energy ingest was not given the published grid")
	}
	if !slices.Equal(res.Updated, keys) || !res.Published {
		t.Fatalf("first run: %+v, want %v updated and published", res, keys)
	}
	t.Logf("energy, first run: %.2f s, scratch %d bytes at most, meridian peak RSS %d KiB", res.Seconds, res.ScratchBytes, res.PeakRSSKiB)
	remote := dynamokv.New(dc, job.Table, dynamokv.Options{Timeout: emulatorTimeout})
	ds, ok, err := kv.Open(ctx, remote, energy.Dataset)
	if err != nil || !ok || ds.Items == 0 {
		t.Fatalf("energy dataset in DynamoDB: %+v, %v, %v", ds, ok, err)
	}
	page, err := ds.Query(ctx, kv.Query{PK: energy.PKOperators})
	if err != nil || len(page.Items) == 0 {
		t.Errorf("energy operators in DynamoDB: %d items, %v", len(page.Items), err)
	}
	tm, ok, err := release.Read(ctx, s3blob.New(s3c, job.Bucket, "tiles/", s3blob.Options{}))
	if err != nil || !ok || len(tm.Files) == 0 {
		t.Errorf("tiles manifest: %d files, %v, %v", len(tm.Files), ok, err)
	}

	pub.Lock()
	pub.Cond = 0
	pub.Unlock()
	res, err = job.Run(ctx, Request{Datasets: keys})
	if err != nil || res.Published || len(res.Updated) != 0 || !slices.Equal(res.Unchanged, keys) {
		t.Fatalf("second run: %+v, %v; want every dataset unchanged, nothing published", res, err)
	}
	pub.Lock()
	cond := pub.Cond
	pub.Unlock()
	if cond == 0 {
		t.Error("second run sent no conditional request")
	}
	if again, _, _ := kv.Open(ctx, remote, energy.Dataset); again.Version != ds.Version {
		t.Errorf("second run published version %d (was %d)", again.Version, ds.Version)
	}
	t.Logf("energy, second run: %.2f s, %d conditional requests", res.Seconds, cond)
	checkEnergyChanges(t, job, s3c, remote, pub, keys)
}

// The agriculture group (the other Fargate task) end to end: every
// unattended agriculture dataset fetched, checked, ingested and the ag
// report dataset published; a second run publishes nothing.
func TestRefreshAgEndToEnd(t *testing.T) {
	ctx := context.Background()
	now := demo.AsOf()
	_, ts, _ := datafetchtest.NewPublisher(t, now)
	job, _, dc := testJob(t, ts.URL)
	job.Now = func() time.Time { return now }
	var keys []string
	for _, g := range datafetch.Manifest() {
		if g.Ingest.Kind == "ag" && g.Access.Unattended() {
			keys = append(keys, g.Key)
		}
	}
	res, err := job.Run(ctx, Request{Datasets: keys})
	if err != nil || !slices.Equal(res.Updated, keys) || !res.Published {
		t.Fatalf("first run: %+v, %v; want %v updated and published", res, err, keys)
	}
	t.Logf("ag, first run: %.2f s, scratch %d bytes at most, meridian peak RSS %d KiB", res.Seconds, res.ScratchBytes, res.PeakRSSKiB)
	remote := dynamokv.New(dc, job.Table, dynamokv.Options{Timeout: emulatorTimeout})
	ds, ok, err := kv.Open(ctx, remote, ag.Dataset)
	if err != nil || !ok || ds.Items == 0 {
		t.Fatalf("ag dataset in DynamoDB: %+v, %v, %v", ds, ok, err)
	}
	res, err = job.Run(ctx, Request{Datasets: keys})
	if err != nil || res.Published || !slices.Equal(res.Unchanged, keys) {
		t.Fatalf("second run: %+v, %v; want every dataset unchanged, nothing published", res, err)
	}
	if again, _, _ := kv.Open(ctx, remote, ag.Dataset); again.Version != ds.Version {
		t.Errorf("second run published version %d (was %d)", again.Version, ds.Version)
	}
	t.Logf("ag, second run: %.2f s", res.Seconds)
}

// A state file in the bucket that names a path instead of a file is
// refused before anything is written outside the scratch directory.
func TestPullFilesRefusesPaths(t *testing.T) {
	j := &Job{Scratch: t.TempDir()}
	for _, s := range []*datafetch.State{
		{Version: "../../etc", Files: []datafetch.FileState{{Files: []string{"x"}}}},
		{Version: "v1", Files: []datafetch.FileState{{Files: []string{"../x"}}}},
		{Version: "v1", Files: []datafetch.FileState{{Files: []string{"a/b"}}}},
	} {
		if err := j.pullFiles(context.Background(), j.Scratch, "aer-st37", s); err == nil || !strings.Contains(err.Error(), "not a plain name") {
			t.Errorf("pullFiles(%+v) = %v, want a refusal", s, err)
		}
	}
	if !saidUnchanged("aafc-aci-legend: unchanged\naafc-aci: updated\n", "aafc-aci-legend") || saidUnchanged("aafc-aci-legend: unchanged\n", "aafc-aci") {
		t.Error("saidUnchanged mixes up aafc-aci and aafc-aci-legend")
	}
}

// A publish that fails (S3 unreachable for meridian-publish) fails the run
// and records no download, so the next run fetches and publishes again.
func TestRefreshPublishFailureRecordsNothing(t *testing.T) {
	ctx := context.Background()
	_, ts := newMBPublisher(t)
	job, s3c, _ := testJob(t, ts.URL)
	good := slices.Clone(job.PublishFlags)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	job.PublishFlags[1] = dead.URL // -s3-endpoint
	req := Request{Datasets: []string{"mb-original-survey"}}
	res, err := job.Run(ctx, req)
	if err == nil || res.Published || !strings.Contains(err.Error(), "publish") {
		t.Fatalf("run with S3 down for publish: %+v, %v; want a publish error", res, err)
	}
	if _, ok := object(t, s3c, job.Bucket, "refresh/downloads/mb-original-survey/state.json"); ok {
		t.Error("download recorded although the publish failed")
	}
	if _, ok := object(t, s3c, job.Bucket, "grid/"+release.ManifestKey); ok {
		t.Error("grid manifest written although the publish failed")
	}
	job.PublishFlags = good
	if res, err = job.Run(ctx, req); err != nil || !res.Published || !slices.Equal(res.Updated, req.Datasets) {
		t.Fatalf("next run: %+v, %v; want it fetched and published", res, err)
	}
}

// emulatorTimeout bounds each of a test's own DynamoDB calls to an
// emulator: the 3 s a Lambda gives a call (dynamokv.DefaultTimeout) is too
// short for an in-process emulator on a loaded machine, where make test
// runs packages side by side.
const emulatorTimeout = time.Minute
