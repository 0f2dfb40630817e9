// Command tiles is the maps Lambda: survey grid, agriculture and energy
// tiles and their TileJSON under /tiles, behind an API Gateway REST API
// whose usage plan holds the maps product and CloudFront.
//
// Archives are read from S3 by range requests (TILES_BUCKET); survey grid
// tiles that have no archive are generated on demand from the models and
// the official grid indexes (GRID_BUCKET), exactly as the local server does.
package main

import (
	"context"
	"time"

	"meridian/shared/api"
	"meridian/shared/awsconf"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/lambdafn"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// config is the function's own environment (beside lambdafn.Config),
// checked at cold start.
type config struct {
	Bucket    string        // TILES_BUCKET: archives; empty: survey grids on demand only
	Prefix    string        // TILES_PREFIX: key prefix of the archives, default "tiles/"
	PublicURL string        // PUBLIC_TILES_URL: {tiles_url} as clients reach it (CloudFront), for TileJSON
	CacheMiB  int           // TILE_CACHE_MIB: generated tiles and archive blocks kept in memory, default 64
	Recheck   time.Duration // ARCHIVE_RECHECK_SECONDS: how often an archive is looked for again, default 300
}

func readConfig(r *lambdafn.Env) config {
	return config{
		Bucket:    r.String("TILES_BUCKET", ""),
		Prefix:    r.String("TILES_PREFIX", "tiles/"),
		PublicURL: r.URL("PUBLIC_TILES_URL", ""),
		CacheMiB:  r.Int("TILE_CACHE_MIB", 64, 8, 512),
		Recheck:   time.Duration(r.Int("ARCHIVE_RECHECK_SECONDS", 300, 1, 86400)) * time.Second,
	}
}

// tiles is the function's state: its configuration, the archives (nil:
// none) and the tile handler, whose generated tiles are dropped when a new
// grid release is in place.
type tiles struct {
	config
	archives *archive.Set
	th       *tile.Handler
}

// function serves the tile routes: survey tiles generated from the grid
// service, which follows the grid release, and data tiles from the
// archives.
func (t *tiles) function() lambdafn.Function {
	return lambdafn.Function{
		Env:     func(r *lambdafn.Env) { t.config = readConfig(r) },
		Open:    t.open,
		Routes:  t.routes,
		Changed: func() { t.th.Invalidate() },
	}
}

// open reads the archives' release manifest, and opens every archive it
// names (header and directory), beside the grid indexes' opening: a cold
// start waits on each round trip in a row, and its first tile then reads
// only the tile.
func (t *tiles) open(ctx context.Context, c lambdafn.Config) error {
	if t.Bucket == "" {
		return nil
	}
	client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: c.Grid.Region, Endpoint: c.Grid.Endpoint, PathStyle: c.Grid.Endpoint != "",
		FirstByteTimeout: awsconf.FirstByteTimeout})
	if err != nil {
		return err
	}
	store := blob.NewCached(s3blob.New(client, t.Bucket, t.Prefix, s3blob.Options{}), blob.CacheOptions{MaxBytes: int64(t.CacheMiB) << 20 / 2})
	t.archives = archive.NewReleaseSet(store, t.Recheck) // as `meridian-publish` writes them
	t.archives.OpenAll(ctx, ".pmtiles")
	return nil
}

func (t *tiles) routes(d lambdafn.Deps) []api.Route {
	o := tile.Options{
		Generator:   tile.NewGenerator(d.Grid),
		CacheBytes:  t.CacheMiB << 20 / 2,
		PublicURL:   t.PublicURL,
		Attribution: tile.Attribution(d.Grid.Sources),
	}
	if t.archives != nil {
		o.Archives = t.archives
	}
	t.th = tile.NewHandler(o)
	return t.th.Routes()
}

func main() { lambdafn.Main((&tiles{}).function()) }
