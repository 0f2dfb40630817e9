package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/paulmach/orb"
	minidyn "github.com/truora/minidyn/server"

	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/convert"
	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/energy"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gateway"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/publish"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/datalayers"
)

// awsHandlers are the Lambdas' handlers as their main.go builds them, over
// a data bucket: the search function's and the tiles function's.
// cached puts the block cache the functions use in front of S3; without it
// every lookup reaches S3 (the fault test needs that).
func awsHandlers(t *testing.T, s3c s3blob.API, bucket string, indexes []string, cached bool) (search, tiles http.Handler, grids []*gridindex.Index) {
	t.Helper()
	ctx := context.Background()
	var gridStore blob.Store = s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	if cached {
		gridStore = blob.NewCached(gridStore, blob.CacheOptions{})
	}
	// As gridstore.Open does: through the release manifest when publish
	// wrote one.
	grids, err := gridstore.OpenIndexes(ctx, gridStore, indexes, "s3://"+bucket+"/grid/")
	if err != nil {
		t.Fatalf("open grid indexes from S3: %v", err)
	}
	logger := slog.New(slog.DiscardHandler)
	search = lambdafn.Convert((*convert.Handler).SearchRoutes).Handler(logger, lambdafn.Config{}, nil, gridstore.Fixed(grids))
	svc := grid.New()
	svc.SetIndexes(grids)
	th := tile.NewHandler(tile.Options{
		Generator:   tile.NewGenerator(svc),
		Archives:    archive.NewSet(s3blob.New(s3c, bucket, "tiles/", s3blob.Options{}), -1),
		Attribution: tile.Attribution(svc.Sources),
	})
	mux := api.NewMux()
	mux.Mount(th.Routes()...)
	return search, apigw.Wrap(mux, logger), grids
}

// localRequest turns a recorded API Gateway event into the same request to
// the local server, with the local demo key in place of the event's.
func localRequest(t *testing.T, ev events.APIGatewayProxyRequest, key string) *http.Request {
	t.Helper()
	q := url.Values{}
	for k, v := range ev.QueryStringParameters {
		q.Set(k, v)
	}
	if q.Has("api_key") {
		q.Set("api_key", key)
	}
	r := httptest.NewRequest(ev.HTTPMethod, ev.Path+"?"+q.Encode(), strings.NewReader(ev.Body))
	for k, v := range ev.Headers {
		r.Header.Set(k, v)
	}
	if r.Header.Get("X-API-Key") != "" || !q.Has("api_key") {
		r.Header.Set("X-API-Key", key)
	}
	r.Host = ev.Headers["Host"]
	return r
}

// emulators are the S3 and DynamoDB the test publishes into: the external
// emulator processes CI starts (MERIDIAN_S3_ENDPOINT, s3rver's keys;
// MERIDIAN_DYNAMODB_ENDPOINT) when set, else in-process gofakes3 and
// minidyn. s3Key is the access key (and secret) of the S3 emulator.
func emulators(t *testing.T) (bucket string, s3c *s3.Client, s3Endpoint, s3Key, ddbEndpoint string) {
	bucket = fmt.Sprintf("meridian-data-%d", time.Now().UnixNano()%1e9)
	if ep := os.Getenv("MERIDIAN_S3_ENDPOINT"); ep != "" {
		s3c, s3Endpoint, s3Key = s3blobtest.ExternalS3(t, bucket), ep, "S3RVER"
	} else {
		s3c = s3blobtest.FakeS3(t, bucket)
		s3Endpoint, s3Key = *s3c.Options().BaseEndpoint, "test"
	}
	if ddbEndpoint = os.Getenv("MERIDIAN_DYNAMODB_ENDPOINT"); ddbEndpoint == "" {
		ddb := httptest.NewServer(minidyn.NewServer())
		t.Cleanup(ddb.Close)
		ddbEndpoint = ddb.URL
	}
	return bucket, s3c, s3Endpoint, s3Key, ddbEndpoint
}

// The Lambdas, reading what `meridian-publish` put in S3 and DynamoDB
// emulators, answer recorded requests byte for byte as the local server
// does from its data directory.
func TestAWSHandlersAnswerAsTheLocalServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := datadir.Dir(t.TempDir())
	key, _ := gateway.EnsureDemoKey(string(dir))
	srv, err := newServer(t.Context(), serverConfig{data: dir, logger: slog.New(slog.DiscardHandler), archiveRecheck: -1})
	if err != nil {
		t.Fatal(err)
	}
	twp, _ := tile.Lookup("ab", "twp")
	b := orb.Bound{Min: orb.Point{-114.5, 50.8}, Max: orb.Point{-113.5, 51.3}}
	if _, err := datalayers.BuildArchive(ctx, twp, tile.NewGenerator(srv.svc).Tile, dir.Tiles(), "test", tile.BuildOptions{MinZoom: 10, MaxZoom: 10, Bounds: b}); err != nil {
		t.Fatal(err)
	}
	cases := []string{"search-legal-location", "search-legal-location-ontario", "search-coordinates", "search-legal-location-not-found",
		"tiles-tilejson", "tiles-sec", "tiles-twp-archive", "tiles-empty", "tiles-not-published",
		"energy-report", "energy-wells", "energy-tenure", "energy-operators", "ag-report", "ag-report-lsd-include"}
	local := map[string]*httptest.ResponseRecorder{}
	for _, name := range cases {
		ev, err := apigw.ReadEvent(filepath.Join("..", "..", "events", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		srv.handler.ServeHTTP(w, localRequest(t, ev, key))
		local[name] = w
	}
	srv.Close()

	bucket, s3c, s3Endpoint, s3Key, ddbEndpoint := emulators(t)
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ddbEndpoint, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf("reports-%d", time.Now().UnixNano())
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		t.Fatal(err)
	}
	o := publish.Options{Domains: reportDomains, Data: dir, Bucket: bucket, Table: table, S3Endpoint: s3Endpoint, DynamoEndpoint: ddbEndpoint,
		Region: "us-east-1", AccessKey: s3Key, SecretKey: s3Key, Progress: io.Discard}
	if err := publish.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	remote := dynamokv.New(dc, table, dynamokv.Options{Timeout: emulatorTimeout})
	if ds, ok, err := kv.Open(ctx, remote, "energy"); err != nil || !ok || ds.Items == 0 {
		t.Errorf("energy dataset in DynamoDB: %+v %v %v", ds, ok, err)
	}
	names, _ := dataingest.GridNames(dir)
	search, tiles, grids := awsHandlers(t, s3c, bucket, names, true)
	// The report functions as functions/energy and functions/ag build them:
	// over the DynamoDB table and the grid indexes on S3.
	logger := slog.New(slog.DiscardHandler)
	reports := map[string]http.Handler{
		"energy-": lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
			return energyapi.NewHandler(s, svc, time.Now).Routes()
		}).Handler(logger, lambdafn.Config{}, remote, gridstore.Fixed(grids)),
		"ag-": lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
			return agapi.NewHandler(s, svc).Routes()
		}).Handler(logger, lambdafn.Config{}, remote, gridstore.Fixed(grids)),
	}

	for _, name := range cases {
		ev, _ := apigw.ReadEvent(filepath.Join("..", "..", "events", name+".json"))
		h := search
		if strings.HasPrefix(name, "tiles-") {
			h = tiles
		}
		for prefix, rh := range reports {
			if strings.HasPrefix(name, prefix) {
				h = rh
			}
		}
		resp, err := apigw.Invoke(ctx, h, ev)
		if err != nil {
			t.Fatal(err)
		}
		body := []byte(resp.Body)
		if resp.IsBase64Encoded {
			body, _ = base64.StdEncoding.DecodeString(resp.Body)
		}
		want := local[name]
		// What differs by design: the key written into TileJSON, and the
		// request id in error bodies.
		got := strings.ReplaceAll(string(body), "mk_example_maps", key)
		wantBody := want.Body.String()
		if i := strings.Index(wantBody, `"request_id":"`); i >= 0 {
			wantBody = wantBody[:i]
			got = got[:min(len(got), i)]
		}
		if resp.StatusCode != want.Code || got != wantBody {
			t.Errorf("%s: Lambda %d %d bytes, local server %d %d bytes\nlambda: %.200q\nlocal:  %.200q", name, resp.StatusCode, len(body), want.Code, want.Body.Len(), got, wantBody)
		}
	}
}

// With the S3 emulator failing, a search that needs an index page answers
// 503 upstream_unavailable; once it is back, the same search succeeds.
func TestAWSSearchWhenS3Fails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := datadir.Dir(t.TempDir())
	gateway.EnsureDemoKey(string(dir))
	srv, err := newServer(t.Context(), serverConfig{data: dir, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	const bucket = "meridian-data"
	s3c := s3blobtest.FakeS3(t, bucket)
	store := s3blob.New(s3c, bucket, "grid/", s3blob.Options{})
	names, _ := dataingest.GridNames(dir)
	for _, n := range names {
		data, _ := os.ReadFile(filepath.Join(dir.Grid(), n))
		if err := store.Put(ctx, n, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	// A proxy that fails every request while down is set.
	target, _ := url.Parse(*s3c.Options().BaseEndpoint)
	var down atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "InternalError", http.StatusInternalServerError)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	client := s3blobtest.Client(t, proxy.URL, "test", "test")
	search, _, _ := awsHandlers(t, client, bucket, names, false)

	ev, _ := apigw.ReadEvent(filepath.Join("..", "..", "events", "search-legal-location.json"))
	down.Store(true)
	resp, err := apigw.Invoke(ctx, search, ev)
	if err != nil || resp.StatusCode != 503 || !strings.Contains(resp.Body, `"code":"upstream_unavailable"`) {
		t.Fatalf("S3 down: %d %s %v", resp.StatusCode, resp.Body, err)
	}
	down.Store(false)
	resp, err = apigw.Invoke(ctx, search, ev)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Body, `"legal_location":"NW-25-24-1-W5"`) {
		t.Fatalf("S3 back: %d %.200s %v", resp.StatusCode, resp.Body, err)
	}
}

// With DynamoDB failing, an energy report answers 503 upstream_unavailable
// within the function's time; once it is back, the same request succeeds.
func TestAWSReportWhenDynamoDBFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ddb := httptest.NewServer(minidyn.NewServer())
	t.Cleanup(ddb.Close)
	target, _ := url.Parse(ddb.URL)
	var down atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"down"}`, http.StatusInternalServerError)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: proxy.URL, AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamokv.CreateTable(ctx, client, "reports"); err != nil {
		t.Fatal(err)
	}
	store := dynamokv.New(client, "reports", dynamokv.Options{Timeout: emulatorTimeout})
	if _, err := dataingest.IngestDemo(ctx, energy.Dataset, store, grid.New()); err != nil {
		t.Fatal(err)
	}
	h := lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route {
		return energyapi.NewHandler(s, svc, time.Now).Routes()
	}).Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, store, gridstore.Fixed(nil))
	ev, _ := apigw.ReadEvent(filepath.Join("..", "..", "events", "energy-wells.json"))

	down.Store(true)
	start := time.Now()
	resp, err := apigw.Invoke(ctx, h, ev)
	took := time.Since(start)
	if err != nil || resp.StatusCode != 503 || !strings.Contains(resp.Body, `"code":"upstream_unavailable"`) {
		t.Fatalf("DynamoDB down: %d %s %v", resp.StatusCode, resp.Body, err)
	}
	if took > 10*time.Second { // the function's timeout in the stack
		t.Errorf("the 503 took %s", took)
	}
	down.Store(false)
	resp, err = apigw.Invoke(ctx, h, ev)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Body, `"uwi":"02/09-10-060-22W5/0"`) {
		t.Fatalf("DynamoDB back: %d %.200s %v", resp.StatusCode, resp.Body, err)
	}
	t.Logf("503 after %s while DynamoDB failed", took.Round(time.Millisecond))
}

// emulatorTimeout bounds each of a test's own DynamoDB calls to an
// emulator: the 3 s a Lambda gives a call (dynamokv.DefaultTimeout) is too
// short for an in-process emulator on a loaded machine, where make test
// runs packages side by side.
const emulatorTimeout = time.Minute
