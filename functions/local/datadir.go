package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"meridian/shared/atomicfile"
	"meridian/shared/gateway"
	"meridian/shared/kv/boltdir"
)

// dataDir is the data directory of a local server and of the commands that
// fill it (-data, .meridian by default), and the one place that knows its
// layout:
//
//	grid/<name>.mgix          official grid indexes (meridian ingest grid)
//	reports/<domain>/         report stores, one bbolt file per version (ingest energy|ag)
//	tiles/<region>/<layer>.pmtiles, tiles/<domain>/.built
//	                          tile archives (build-tiles, ingest -tiles, first start)
//	keys.json, plans.json, usage.json, demo-key, map-key
//	                          API keys, plans and usage (meridian keys, package gateway)
//	tls/                      the local CA and the server's certificate (serve -tls)
//	downloads/                what meridian data fetch downloaded
//
// Everything is installed the same way: written beside its place under a
// temporary name, checked, then renamed over it (install), so a server
// reading the directory sees the old file or the new one, never a part.
type dataDir string

const (
	gridDir           = "grid"
	gridExt           = ".mgix"
	reportsDir        = "reports"
	legacyReportsFile = "reports.db" // the one store file of earlier releases (migrateReports)
	tilesDir          = "tiles"
	builtMarker       = ".built" // in a domain's tile directory once all its data archives are built
	tlsDir            = "tls"
	downloadsDir      = "downloads"
)

func (d dataDir) path(elem ...string) string {
	return filepath.Join(append([]string{string(d)}, elem...)...)
}

func (d dataDir) grid() string                      { return d.path(gridDir) }
func (d dataDir) gridFile(name string) string       { return d.path(gridDir, name+gridExt) }
func (d dataDir) reports(domain string) boltdir.Dir { return boltdir.New(d.path(reportsDir, domain)) }
func (d dataDir) legacyReports() string             { return d.path(legacyReportsFile) }
func (d dataDir) tiles() string                     { return d.path(tilesDir) }
func (d dataDir) built(domain string) string        { return d.path(tilesDir, domain, builtMarker) }
func (d dataDir) keys() string                      { return d.path(gateway.KeysFile) }
func (d dataDir) plans() string                     { return d.path(gateway.PlansFile) }
func (d dataDir) usage() string                     { return d.path(gateway.UsageFile) }
func (d dataDir) tls() string                       { return d.path(tlsDir) }
func (d dataDir) downloads() string                 { return d.path(downloadsDir) }

// tileArchive is where layer key ("ab/twp.pmtiles") is built under dir, the
// data directory's tiles() unless a command was given another.
func tileArchive(dir, key string) string { return filepath.Join(dir, filepath.FromSlash(key)) }

// install writes the file at path: write fills a temporary file in path's
// directory, check (when not nil) opens it as its reader will, and only a
// complete file that checks is renamed over path. Anything that fails
// leaves what path held before, and no temporary file.
func install(ctx context.Context, path string, write func(ctx context.Context, f *os.File) error, check func(ctx context.Context, dir, name string) error) error {
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

// dataFlag registers -data on fs: the data directory, .meridian (or
// MERIDIAN_DATA) by default.
func dataFlag(fs *flag.FlagSet, usage string) *dataDir {
	d := dataDir(defaultDataDir())
	fs.Var(&d, "data", usage)
	return &d
}

// String and Set make a dataDir a flag.Value.
func (d *dataDir) String() string     { return string(*d) }
func (d *dataDir) Set(s string) error { *d = dataDir(s); return nil }
