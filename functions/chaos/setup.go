package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/paulmach/orb"
	minidyn "github.com/truora/minidyn/server"

	"meridian/functions/internal/awsemu"
	"meridian/functions/internal/faultproxy"
	"meridian/shared/ag"
	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/awsconf"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/convert"
	"meridian/shared/dataingest"
	"meridian/shared/energy"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/publish"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/datalayers"
)

// The data, the emulators behind their fault proxies, and the functions' handlers over them.

// prepareData writes the demo data directory: the fixture grids, the demo
// reports, the data layers' archives, and a township archive (as the AWS
// parity test builds one) so that archive tiles are served.
func (e *env) prepareData(ctx context.Context) error {
	if err := dataingest.EnsureFixtures(ctx, e.dir, e.logger); err != nil {
		return err
	}
	svc := grid.New()
	_, err := dataingest.OpenGrids(ctx, e.dir, svc, e.logger, 0)
	if err != nil {
		return err
	}
	if err := dataingest.EnsureDemoReports(ctx, e.dir, svc, e.logger); err != nil {
		return err
	}
	if err := dataingest.EnsureDataArchives(ctx, e.dir, svc, e.logger); err != nil {
		return err
	}
	twp, _ := tile.Lookup("ab", "twp")
	b := orb.Bound{Min: orb.Point{-114.5, 50.8}, Max: orb.Point{-113.5, 51.3}}
	if _, err := datalayers.BuildArchive(ctx, twp, tile.NewGenerator(svc).Tile, e.dir.Tiles(), "test", tile.BuildOptions{MinZoom: 10, MaxZoom: 10, Bounds: b}); err != nil {
		return err
	}
	e.gridNames, err = dataingest.GridNames(e.dir)
	return err
}

func (e *env) startEmulators(ctx context.Context, o options) error {
	e.s3URL = serve(e, gofakes3.New(s3mem.New()).Server())
	if o.dynoxide != "" && o.ddbEndpoint == "" {
		// dynoxide alone: S3 is the in-process emulator above. Its log
		// goes beside the data directory.
		procs := &awsemu.Procs{}
		e.closers = append(e.closers, procs.StopAll)
		_, url, err := awsemu.StartEmulators(ctx, procs, awsemu.EmulatorOptions{
			Work: filepath.Dir(string(e.dir)), Dynoxide: o.dynoxide, S3Endpoint: e.s3URL})
		if err != nil {
			return err
		}
		o.ddbEndpoint = url
	}
	e.ddbURL = o.ddbEndpoint
	if e.ddbURL == "" {
		e.ddbURL = serve(e, minidyn.NewServer())
	}
	s3u, _ := url.Parse(e.s3URL)
	ddbu, _ := url.Parse(e.ddbURL)
	e.s3p = faultproxy.New(faultproxy.S3, s3u, o.seed, 0)
	e.ddbp = faultproxy.New(faultproxy.DynamoDB, ddbu, o.seed+1, 0)
	e.s3pURL, e.ddbpURL = serve(e, e.s3p), serve(e, e.ddbp)

	var err error
	e.direct, err = s3blob.NewClient(ctx, s3blob.ClientOptions{Region: "us-east-1", Endpoint: e.s3URL, PathStyle: true, AccessKeyID: key, SecretAccessKey: key})
	if err != nil {
		return err
	}
	if _, err := e.direct.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}
	dc, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: e.ddbURL, AccessKeyID: key, SecretAccessKey: key, DisableResponseChecksum: true})
	if err != nil {
		return err
	}
	if err := dynamokv.CreateTable(ctx, dc, table); err != nil {
		return err
	}
	if o.ddbEndpoint != "" {
		defer func() {
			e.closers = append(e.closers, func() {
				dc.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
			})
		}()
	}
	e.ddbDirect = dynamokv.New(dc, table, dynamokv.Options{Timeout: time.Minute})
	// The first publish, without faults: what the functions serve.
	return publish.Run(ctx, e.publishOptions(e.s3URL, e.ddbURL, false))
}

func (e *env) publishOptions(s3URL, ddbURL string, merge bool) publish.Options {
	return publish.Options{Domains: []string{energy.Dataset, ag.Dataset}, Data: e.dir, Bucket: bucket, Table: table,
		S3Endpoint: s3URL, DynamoEndpoint: ddbURL, Region: "us-east-1", AccessKey: key, SecretKey: key, Merge: merge}
}

// functions are the handlers of a set of Lambdas, by function name.
type functions map[string]http.Handler

// handlers builds each function's handler as its main.go does, over SDK
// clients for s3URL and ddbURL with the functions' own retry and timeout
// settings (s3blob.NewClient, dynamokv.Open's client, gridstore.Open).
func (e *env) handlers(ctx context.Context, s3URL, ddbURL string) (functions, error) {
	gc := gridstore.Config{Bucket: bucket, Prefix: "grid/", Region: "us-east-1", Endpoint: s3URL, Indexes: e.gridNames,
		CacheMiB: 1, Recheck: 2 * time.Second}
	c := lambdafn.Config{Grid: gc, Table: table}
	fns := functions{}
	open := func(f lambdafn.Function) (http.Handler, error) {
		var store kv.Store
		if f.OpenStore != nil {
			// dynamokv.Open with the endpoint AWS_ENDPOINT_URL_DYNAMODB
			// gives on an emulator.
			client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Endpoint: ddbURL, DisableResponseChecksum: true,
				FirstByteTimeout: awsconf.FirstByteTimeout})
			if err != nil {
				return nil, err
			}
			store = dynamokv.New(client, table, dynamokv.Options{})
		}
		if f.Open != nil {
			if err := f.Open(ctx, c); err != nil {
				return nil, err
			}
		}
		grids, err := gridstore.Open(ctx, gc, e.logger)
		if err != nil {
			return nil, err
		}
		return f.Handler(e.logger, c, store, grids), nil
	}
	reports := func(routes func(kv.Store, *grid.Service) []api.Route) lambdafn.Function {
		return lambdafn.Reports(func(context.Context, string) (kv.Store, error) { return nil, nil }, routes)
	}
	for name, f := range map[string]lambdafn.Function{
		"search":       lambdafn.Convert((*convert.Handler).SearchRoutes),
		"autocomplete": lambdafn.Convert((*convert.Handler).AutocompleteRoutes),
		"batch":        lambdafn.Convert((*convert.Handler).BatchRoutes),
		"energy": reports(func(s kv.Store, svc *grid.Service) []api.Route {
			return energyapi.NewHandler(s, svc, time.Now).Routes()
		}),
		"ag": reports(func(s kv.Store, svc *grid.Service) []api.Route {
			return agapi.NewHandler(s, svc).Routes()
		}),
		"tiles": tilesFunction(s3URL),
	} {
		h, err := open(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fns[name] = h
	}
	return fns, nil
}

// tilesFunction is functions/tiles' Function (its main package cannot be
// imported): archives from the data bucket, as `meridian-publish` writes
// them, behind the block cache, and survey grids generated on demand.
func tilesFunction(s3URL string) lambdafn.Function {
	var archives *archive.Set
	const cacheMiB = 8 // TILE_CACHE_MIB's least: most reads reach S3
	return lambdafn.Function{
		Open: func(ctx context.Context, c lambdafn.Config) error {
			client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: c.Grid.Region, Endpoint: s3URL, PathStyle: true,
				FirstByteTimeout: awsconf.FirstByteTimeout})
			if err != nil {
				return err
			}
			store := blob.NewCached(s3blob.New(client, bucket, "tiles/", s3blob.Options{}), blob.CacheOptions{MaxBytes: cacheMiB << 20 / 2})
			archives = archive.NewReleaseSet(store, 2*time.Second)
			archives.OpenAll(ctx, ".pmtiles")
			return nil
		},
		Routes: func(d lambdafn.Deps) []api.Route {
			th := tile.NewHandler(tile.Options{
				Generator:   tile.NewGenerator(d.Grid),
				CacheBytes:  cacheMiB << 20 / 2,
				Archives:    archives,
				Attribution: tile.Attribution(d.Grid.Sources),
			})
			return th.Routes()
		},
	}
}
