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
	"log/slog"
	"net/http"
	"time"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/awsfn"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/env"
	"meridian/shared/gridstore"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// config is the function's environment, checked at cold start.
type config struct {
	LogLevel  slog.Level
	Grid      gridstore.Config // GRID_BUCKET, GRID_PREFIX, GRID_INDEXES, GRID_CACHE_MIB, GRID_RECHECK_SECONDS
	Bucket    string           // TILES_BUCKET: archives; empty: survey grids on demand only
	Prefix    string           // TILES_PREFIX: key prefix of the archives, default "tiles/"
	PublicURL string           // PUBLIC_TILES_URL: {tiles_url} as clients reach it (CloudFront), for TileJSON
	CacheMiB  int              // TILE_CACHE_MIB: generated tiles and archive blocks kept in memory, default 64
	Recheck   time.Duration    // ARCHIVE_RECHECK_SECONDS: how often an archive is looked for again, default 300
}

func loadConfig(getenv func(string) string) (config, error) {
	r := env.New(getenv)
	c := config{
		LogLevel:  r.LogLevel("LOG_LEVEL"),
		Grid:      gridstore.ReadConfig(r),
		Bucket:    r.String("TILES_BUCKET", ""),
		Prefix:    r.String("TILES_PREFIX", "tiles/"),
		PublicURL: r.URL("PUBLIC_TILES_URL", ""),
		CacheMiB:  r.Int("TILE_CACHE_MIB", 64, 8, 512),
		Recheck:   time.Duration(r.Int("ARCHIVE_RECHECK_SECONDS", 300, 1, 86400)) * time.Second,
	}
	return c, r.Err()
}

// newHandler builds the function's handler over the grid indexes and the
// archive store (nil: no archives).
func newHandler(logger *slog.Logger, c config, grids []*gridindex.Index, archives blob.Store) http.Handler {
	var set *archive.Set
	if archives != nil {
		set = archive.NewReleaseSet(archives, c.Recheck) // as `meridian-publish` writes them
	}
	return newGridsHandler(logger, c, gridstore.Fixed(grids), set)
}

// newGridsHandler is newHandler over grids that follow the published
// release: survey tiles are generated from a new grid release within
// GRID_RECHECK_SECONDS, and the tiles generated from the old are dropped.
func newGridsHandler(logger *slog.Logger, c config, grids *gridstore.Grids, archives *archive.Set) http.Handler {
	var th *tile.Handler
	return gridstore.Mount(logger, grids, func(svc *grid.Service) []api.Route {
		o := tile.Options{
			Generator:   tile.NewGenerator(svc),
			CacheBytes:  c.CacheMiB << 20 / 2,
			PublicURL:   c.PublicURL,
			Attribution: tile.Attribution(svc.Sources),
		}
		if archives != nil {
			o.Archives = archives
		}
		th = tile.NewHandler(o)
		return th.Routes()
	}, func() { th.Invalidate() })
}

func main() {
	c, logger := awsfn.Setup(loadConfig, func(c config) slog.Level { return c.LogLevel })
	ctx := context.Background()
	// The archives' release manifest is read, and every archive it names
	// opened (header and directory), beside the grid indexes' opening: a
	// cold start waits on each round trip in a row, and its first tile
	// then reads only the tile.
	var archives *archive.Set
	prefetched := make(chan struct{})
	if c.Bucket != "" {
		client, err := s3blob.NewClient(ctx, s3blob.ClientOptions{Region: c.Grid.Region, Endpoint: c.Grid.Endpoint, PathStyle: c.Grid.Endpoint != ""})
		if err != nil {
			awsfn.Fail(logger, "cold start", err)
		}
		store := blob.NewCached(s3blob.New(client, c.Bucket, c.Prefix, s3blob.Options{}), blob.CacheOptions{MaxBytes: int64(c.CacheMiB) << 20 / 2})
		archives = archive.NewReleaseSet(store, c.Recheck) // as `meridian-publish` writes them
		go func() { archives.OpenAll(ctx, ".pmtiles"); close(prefetched) }()
	} else {
		close(prefetched)
	}
	grids, err := gridstore.Open(ctx, c.Grid, logger)
	if err != nil {
		awsfn.Fail(logger, "cold start", err)
	}
	<-prefetched
	apigw.Start(newGridsHandler(logger, c, grids, archives))
}
