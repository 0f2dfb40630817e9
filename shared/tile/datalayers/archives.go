package datalayers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/kv"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
)

// ArchiveStats is what building one archive did.
type ArchiveStats struct {
	tile.BuildStats
	Size int64 // bytes of the archive written
}

// BuildArchive writes layer l's PMTiles archive, its tiles from src, to
// datadir.TileArchive(dir, l.Key()): through a temporary file in the same
// directory that is renamed into place only when it is complete and opens
// as a reader opens it, so a failed build leaves the archive served before.
// The zero fields of o take the layer's own: its zoom range (to
// tile.MaxDataZoom) and its region's bounds. It serves the survey grid
// layers (src a tile.Generator's) as well as the data layers (src a
// Source's, o from ArchiveOptions).
func BuildArchive(ctx context.Context, l tile.Layer, src tile.Source, dir, attribution string, o tile.BuildOptions) (ArchiveStats, error) {
	minZ, maxZ := o.MinZoom, o.MaxZoom
	if minZ == 0 && maxZ == 0 {
		minZ, maxZ = l.MinZoom, min(l.MaxZoom, tile.MaxDataZoom)
	}
	b := o.Bounds
	if b.IsZero() {
		b = l.Bounds
	}
	fields := map[string]string{}
	for _, f := range l.Fields {
		fields[f.Name] = f.Description
	}
	meta := archive.Metadata{
		Name: l.Path(), Description: l.Title, Attribution: attribution,
		Bounds: b, CenterZoom: uint8(max(minZ, min(maxZ, 10))),
		MinZoom: uint8(minZ), MaxZoom: uint8(maxZ),
		VectorLayers: []archive.VectorLayer{{ID: l.SourceLayer, Description: l.Title, MinZoom: uint8(minZ), MaxZoom: uint8(maxZ), Fields: fields}},
	}
	path := datadir.TileArchive(dir, l.Key())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ArchiveStats{}, err
	}
	w, err := writer.New(filepath.Dir(path), meta)
	if err != nil {
		return ArchiveStats{}, err
	}
	defer w.Close()
	st, err := tile.Build(ctx, l, src, w, tile.BuildOptions{MinZoom: minZ, MaxZoom: maxZ, Bounds: b, Workers: o.Workers, Progress: o.Progress, Tiles: o.Tiles, TempDir: filepath.Dir(path)})
	if err != nil {
		return ArchiveStats{BuildStats: st}, err
	}
	var ws writer.Stats
	err = datadir.Install(ctx, path, func(ctx context.Context, f *os.File) (err error) {
		ws, err = w.Finish(f)
		return err
	}, func(ctx context.Context, dir, name string) error {
		_, err := archive.Open(ctx, blob.NewDir(dir), name)
		return err
	})
	return ArchiveStats{BuildStats: st, Size: ws.Bytes}, err
}

// ArchiveOptions returns how to build data layer l's archive from s: the
// tiles and bounds of its data (BuildOptions) and its data's sources as the
// attribution. ok is false when the store has no data for l. Errors name
// the layer.
func (s *Source) ArchiveOptions(ctx context.Context, l tile.Layer) (o tile.BuildOptions, attribution string, ok bool, err error) {
	if o, ok, err = s.BuildOptions(ctx, l); err != nil || !ok {
		return o, "", ok, wrapArchiveErr(l, err)
	}
	attribution, err = s.Attribution(ctx, l)
	return o, attribution, true, wrapArchiveErr(l, err)
}

func wrapArchiveErr(l tile.Layer, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("data archive %s: %w", l.Path(), err)
}

// DomainStats is what BuildDomain did.
type DomainStats struct {
	Archives int // archives written
	Tiles    int // tiles in them
	// Unlocated counts the stored parcels the grid cannot place, left
	// out of the archives.
	Unlocated int64
}

// Layers returns the data layers of region ("energy" or "ag"), all of
// them with region "".
func Layers(region string) []tile.Layer {
	var out []tile.Layer
	for _, l := range tile.Layers() {
		if Supported(l) && (region == "" || l.Region == region) {
			out = append(out, l)
		}
	}
	return out
}

// BuildDomain builds every data archive of region ("energy" or "ag") from
// store, its parcels placed by svc, into data's tile directory, then marks
// the region built (data.Built), which tells a server starting on data
// that it need not build them. A layer the store has no data for loses its
// archive, so a server answers 404 rather than tiles of data no longer
// published. The features are spooled to files under the tile directory
// (NewPartitioned), a zoom-9 tile's worth in memory at a time.
func BuildDomain(ctx context.Context, store kv.Store, svc Resolver, data datadir.Dir, region string) (st DomainStats, err error) {
	dir := data.Tiles()
	src := NewPartitioned(store, svc, dir)
	defer func() {
		if cerr := src.Close(); err == nil {
			err = cerr
		}
	}()
	for _, l := range Layers(region) {
		path := datadir.TileArchive(dir, l.Key())
		o, attribution, ok, err := src.ArchiveOptions(ctx, l)
		if err != nil {
			return st, err
		}
		if !ok {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return st, err
			}
			continue
		}
		a, err := BuildArchive(ctx, l, src.Tile, dir, attribution, o)
		if err != nil {
			return st, wrapArchiveErr(l, err)
		}
		st.Archives++
		st.Tiles += a.Tiles
	}
	st.Unlocated = src.Unlocated()
	marker := data.Built(region)
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return st, err
	}
	return st, os.WriteFile(marker, nil, 0o644)
}
