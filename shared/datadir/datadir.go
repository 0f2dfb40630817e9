// Package datadir is the layout of a data directory: what the local server
// serves (-data, .meridian by default), what its commands fill, and what
// meridian-publish copies into an AWS deployment. It is the one place that
// knows where each thing lives:
//
//	grid/<name>.mgix          official grid indexes (meridian ingest grid)
//	reports/<domain>/         report stores, one bbolt file per version (ingest energy|ag)
//	tiles/<region>/<layer>.pmtiles, tiles/<domain>/.built
//	                          tile archives (build-tiles, ingest -tiles, first start)
//	keys.json, plans.json, usage.json, demo-key, map-key
//	                          API keys, plans and usage (meridian keys, package gateway)
//	tls/                      the local CA and the server's certificate (serve -tls)
//	downloads/                what meridian data fetch downloaded
//	energy/changes/           the energy change feed's state: the last published
//	                          version's snapshot and the changes retained (package
//	                          energy/changefeed), replaced after each publish
//
// Everything is installed the same way: written beside its place under a
// temporary name, checked, then renamed over it ([Install]), so a server
// reading the directory sees the old file or the new one, never a part.
package datadir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"meridian/shared/atomicfile"
	"meridian/shared/kv/boltdir"
)

// Dir is a data directory. It is a flag.Value (-data).
type Dir string

// Default is the data directory of a command not given one: MERIDIAN_DATA,
// or .meridian in the working directory.
func Default() Dir {
	if d := os.Getenv("MERIDIAN_DATA"); d != "" {
		return Dir(d)
	}
	return ".meridian"
}

// GridExt ends the name of a grid index file.
const GridExt = ".mgix"

const (
	gridDir           = "grid"
	reportsDir        = "reports"
	legacyReportsFile = "reports.db" // the one store file of earlier releases
	tilesDir          = "tiles"
	watchesFile       = "watches.db"
	builtMarker       = ".built" // in a domain's tile directory once all its data archives are built
	tlsDir            = "tls"
	downloadsDir      = "downloads"
	energyChangesDir  = "energy/changes"
	// The API gateway's files; package gateway uses the same names when it
	// is given the data directory itself (EnsureDemoKey), and a test holds
	// the two to each other, so that datadir need not import gateway.
	keysFile  = "keys.json"
	plansFile = "plans.json"
	usageFile = "usage.json"
)

func (d Dir) path(elem ...string) string {
	return filepath.Join(append([]string{string(d)}, elem...)...)
}

// Grid is the directory of the grid indexes.
func (d Dir) Grid() string { return d.path(gridDir) }

// GridFile is the index file of the grid index named name.
func (d Dir) GridFile(name string) string { return d.path(gridDir, name+GridExt) }

// Reports is the report store of a domain (energy, ag).
func (d Dir) Reports(domain string) boltdir.Dir { return boltdir.New(d.path(reportsDir, domain)) }

// LegacyReports is the single report file of earlier releases, which a
// server adopts as the first version of each domain.
func (d Dir) LegacyReports() string { return d.path(legacyReportsFile) }

// Tiles is the directory of the tile archives.
func (d Dir) Tiles() string { return d.path(tilesDir) }

// Built is the marker of a data domain whose archives were all built.
func (d Dir) Built(domain string) string { return d.path(tilesDir, domain, builtMarker) }

// Keys, Plans and Usage are the API gateway's files.
func (d Dir) Keys() string  { return d.path(keysFile) }
func (d Dir) Plans() string { return d.path(plansFile) }
func (d Dir) Usage() string { return d.path(usageFile) }

// TLS is the directory of the local CA and the server's certificate.
func (d Dir) TLS() string { return d.path(tlsDir) }

// Downloads is where meridian data fetch keeps what it downloaded.
func (d Dir) Downloads() string { return d.path(downloadsDir) }

// EnergyChanges is the energy change feed's state (package
// energy/changefeed): what an energy ingest compares its data with.
// Watches is the webhooks' store: the watches, their deliveries and the
// outbox (package watch), a bbolt file.
func (d Dir) Watches() string { return d.path(watchesFile) }

func (d Dir) EnergyChanges() string { return d.path(filepath.FromSlash(energyChangesDir)) }

// String and Set make a Dir a flag.Value.
func (d *Dir) String() string     { return string(*d) }
func (d *Dir) Set(s string) error { *d = Dir(s); return nil }

// TileArchive is where layer key ("ab/twp.pmtiles") is built under dir, a
// data directory's Tiles() unless a command was given another.
func TileArchive(dir, key string) string { return filepath.Join(dir, filepath.FromSlash(key)) }

// Install writes the file at path: write fills a temporary file in path's
// directory, check (when not nil) opens it as its reader will, and only a
// complete file that checks is renamed over path. Anything that fails
// leaves what path held before, and no temporary file.
func Install(ctx context.Context, path string, write func(ctx context.Context, f *os.File) error, check func(ctx context.Context, dir, name string) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".new-*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(ctx, dir, filepath.Base(tmp.Name())); err != nil {
			return fmt.Errorf("the new %s does not open: %w", filepath.Base(path), err)
		}
	}
	return atomicfile.Rename(tmp.Name(), path)
}
