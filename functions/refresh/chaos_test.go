package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	minidyn "github.com/truora/minidyn/server"

	"meridian/functions/internal/faultproxy"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/demo/griddemo"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/release"
)

// The refresh job through S3 and DynamoDB that throttle, fail, reset and
// stall (faultproxy) at MERIDIAN_CHAOS_RATE (0.1 by default; seed
// MERIDIAN_CHAOS_SEED) of the
// requests, its own and meridian-publish's: every run over a changed
// download either publishes it (recording the download may then still
// fail: the next run fetches it again) or fails leaving the served
// release (the grid manifest) and the recorded download as they were; whatever
// happened, the manifest names whole objects; and once the faults stop
// the next run publishes. make chaos runs it and counts its runs
// (MERIDIAN_CHAOS_REFRESHES, 3 by default) in its publishes.
func TestRefreshUnderFaults(t *testing.T) {
	rate, runs := 0.1, 3
	if s := os.Getenv("MERIDIAN_CHAOS_RATE"); s != "" {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || r < 0 || r > 1 {
			t.Fatalf("MERIDIAN_CHAOS_RATE=%q: want 0-1", s)
		}
		rate = r
	}
	if s := os.Getenv("MERIDIAN_CHAOS_REFRESHES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MERIDIAN_CHAOS_REFRESHES=%q: want a count", s)
		}
		runs = n
	}
	var seed uint64 = 1
	if s := os.Getenv("MERIDIAN_CHAOS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("MERIDIAN_CHAOS_SEED=%q: want a number", s)
		}
		seed = n
	}
	ctx := context.Background()
	pub, ts := newMBPublisher(t)

	const bucket, table = "meridian-data", "reports"
	s3srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(s3srv.Close)
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	direct := s3blobtest.Client(t, s3srv.URL, "test", "test")
	if _, err := direct.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddb.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		t.Fatal(err)
	}
	proxy := func(svc faultproxy.Service, backend string, seed uint64) (*faultproxy.Proxy, string) {
		u, _ := url.Parse(backend)
		p := faultproxy.New(svc, u, seed, 0)
		srv := httptest.NewServer(p)
		t.Cleanup(srv.Close)
		return p, srv.URL
	}
	s3p, s3URL := proxy(faultproxy.S3, s3srv.URL, seed)
	ddbp, ddbURL := proxy(faultproxy.DynamoDB, ddb.URL, seed+1)

	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("job output:\n%s", log.String())
		}
	})
	job := &Job{
		S3: s3blobtest.Client(t, s3URL, "test", "test"), Bucket: bucket, Table: table, Prefix: defaultPrefix,
		Scratch: filepath.Join(t.TempDir(), "scratch"), Meridian: meridianBin, Publish: publishBin,
		Env: []string{"MERIDIAN_FETCH_BASE_URL=" + ts.URL, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
			"AWS_SESSION_TOKEN=", "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"},
		PublishFlags: []string{"-s3-endpoint", s3URL, "-dynamodb-endpoint", ddbURL, "-region", "us-east-1"},
		FetchBaseURL: ts.URL,
		Log:          slog.New(slog.NewTextHandler(&log, nil)),
		Out:          &log,
	}
	req := Request{Datasets: []string{"mb-original-survey"}}
	if res, err := job.Run(ctx, req); err != nil || !res.Published {
		t.Fatalf("first run, no faults: %+v, %v", res, err)
	}

	// served is what readers follow and what the next run starts from.
	served := func() (manifest, state []byte) {
		manifest, _ = object(t, direct, bucket, "grid/"+release.ManifestKey)
		state, _ = object(t, direct, bucket, "refresh/downloads/mb-original-survey/state.json")
		return manifest, state
	}
	// whole checks that each file the manifest names is in the bucket at
	// its size.
	whole := func(when string) {
		m, ok, err := release.Read(ctx, s3blob.New(direct, bucket, "grid/", s3blob.Options{Timeout: time.Minute}))
		if err != nil || !ok {
			t.Fatalf("%s: grid manifest: %v %v", when, ok, err)
		}
		for name, f := range m.Files {
			key, _ := m.Resolve(name)
			if b, ok := object(t, direct, bucket, "grid/"+key); !ok || int64(len(b)) != f.Size {
				t.Errorf("%s: the manifest names grid/%s of %d bytes; the bucket has %d (%v)", when, key, f.Size, len(b), ok)
			}
		}
	}

	files, _ := griddemo.Files()
	lines := bytes.SplitAfter(files[griddemo.MBCornersFile], []byte("\n"))
	s3p.SetRate(rate)
	ddbp.SetRate(rate)
	ok, changedOnFailure := 0, 0
	for i := range runs {
		// A different corners file each run (one line fewer): something new
		// to fetch, ingest and publish.
		drop := 1 + i%(len(lines)-2)
		pub.set(t, files[griddemo.MBSurveyFile], bytes.Join(append(lines[:drop:drop], lines[drop+1:]...), nil))
		m0, s0 := served()
		res, err := job.Run(ctx, req)
		m1, s1 := served()
		switch {
		case res.Published:
			// The publish completed. Recording the download may still have
			// failed (err): the next run fetches it again, and the
			// release served is whole either way.
			ok++
			if bytes.Equal(m0, m1) {
				t.Errorf("run %d published, but the manifest did not change", i)
			}
			if err != nil {
				t.Logf("run %d published; then: %.300v", i, err)
			} else if bytes.Equal(s0, s1) {
				t.Errorf("run %d succeeded, but the recorded download did not change", i)
			}
		case err == nil:
			t.Errorf("run %d over a changed file: %+v, neither an error nor a publish", i, res)
		default:
			t.Logf("run %d failed: %.300v", i, err)
			if !bytes.Equal(m0, m1) || !bytes.Equal(s0, s1) {
				changedOnFailure++
				t.Errorf("run %d failed but changed the served release (manifest changed %v, recorded download changed %v)", i, !bytes.Equal(m0, m1), !bytes.Equal(s0, s1))
			}
		}
		whole(fmt.Sprintf("after run %d", i))
	}
	faults := s3p.Total() + ddbp.Total()
	t.Logf("S3 proxy: %s", s3p.Summary())
	t.Logf("DynamoDB proxy: %s", ddbp.Summary())
	// make chaos reads this line.
	fmt.Printf("refresh under faults: %d runs ok of %d, %d faults injected, %d failed runs changed the served version\n", ok, runs, faults, changedOnFailure)

	s3p.SetRate(0)
	ddbp.SetRate(0)
	pub.set(t, files[griddemo.MBSurveyFile], files[griddemo.MBCornersFile])
	if res, err := job.Run(ctx, req); err != nil || !res.Published {
		t.Fatalf("run after the faults stopped: %+v, %v", res, err)
	}
	whole("after the faults stopped")
}
