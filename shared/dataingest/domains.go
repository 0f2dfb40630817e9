package dataingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"meridian/shared/ag/agingest"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

// energyFiles are the energy files of a directory, its zips opened
// (domainFiles).
type energyFiles struct {
	files  energyingest.Files
	folder *ingest.Folder
}

func (f energyFiles) options(o ingestOptions) energyingest.Options {
	return energyingest.Options{Now: o.asOf, Demo: o.demo, Progress: o.progress, Notices: o.notices, Changes: o.changes}
}

func (f energyFiles) banners() ([]string, error) { return energyingest.Banners(f.files) }
func (f energyFiles) unrecognised() []string {
	_, unknown := unlisted(f.files, f.folder.Paths())
	return append(slices.Clip(f.files.Unrecognised), unknown...)
}
func (f energyFiles) close() error { return f.folder.Close() }

func (f energyFiles) check(ctx context.Context, w io.Writer, g *grid.Service, o ingestOptions, opt checkOptions) error {
	ls, err := energyingest.Layouts(f.files)
	if err != nil {
		return err
	}
	layouts := map[string]ingest.Layout{}
	for _, l := range ls {
		layouts[l.Path] = l.Layout
	}
	folder := folderCheck{
		all:          f.folder.Paths(),
		unused:       "recognised, read by no energy report (NGL volumes, the ST37 well shapefiles, a README or a publisher's PDF, a shapefile or CSV beside the GeoJSON that is read)",
		companion:    "read with the file of the same name beside it (a shapefile's .dbf, .prj, .shx or .cpg)",
		checkOptions: opt,
	}
	return checkReports(ctx, w, "energy", f.files, folder, layouts, func(ctx context.Context, files energyingest.Files, store *countStore, n *ingest.Notices) (map[string]int, map[string]int, error) {
		o.progress, o.notices = nil, n
		sum, err := energyingest.Ingest(ctx, store, g, files, f.options(o))
		return sum.Read, sum.Skipped, err // Read: the files' rows; what the ingest derived is in sum.Derived
	})
}

func (f energyFiles) ingest(ctx context.Context, store kv.Store, g *grid.Service, o ingestOptions, w io.Writer) ([]any, error) {
	start := time.Now()
	sum, err := energyingest.Ingest(ctx, store, g, f.files, f.options(o))
	if err != nil {
		return nil, err
	}
	if w != nil {
		fmt.Fprintf(w, "energy dataset version %d: %d items in %s\n", sum.Version, sum.Items, time.Since(start).Round(time.Millisecond))
		if o.changes != nil {
			if _, ok := o.changes.Previous(); ok {
				fmt.Fprintf(w, "changes: %d found, %d kept from earlier versions, %d records compared in %s\n", sum.Changes.Found, sum.Changes.Retained,
					sum.Changes.Records, sum.Changes.Time.Round(time.Millisecond))
			} else {
				fmt.Fprintf(w, "changes: none (the first version the change feed sees: %d records kept to compare the next with, in %s)\n",
					sum.Changes.Records, sum.Changes.Time.Round(time.Millisecond))
			}
		}
		fmt.Fprintf(w, "read:    %s\n", counts(sum.Read))
		fmt.Fprintf(w, "derived: %s\n", counts(sum.Derived))
		if len(sum.Skipped) > 0 {
			fmt.Fprintf(w, "skipped: %s\n", counts(sum.Skipped))
		}
		if sum.NoticeCount > 0 {
			fmt.Fprintf(w, "notices: %d rows with values not seen before, kept\n", sum.NoticeCount)
			for _, n := range sum.Notices {
				fmt.Fprintf(w, "  %s\n", n)
			}
		}
	}
	return []any{"items", sum.Items, "wells", sum.Read["wells_st37"] + sum.Read["wells_petrinex"]}, nil
}

// agFiles are the agriculture files of a directory, its zips opened
// (domainFiles).
type agFiles struct {
	files  agingest.Files
	all    []string // every file of the directory, zip members and drought monitor folders included
	folder *ingest.Folder
}

func (f agFiles) options(o ingestOptions) agingest.Options {
	return agingest.Options{Demo: o.demo, AsOf: o.asOf, Progress: o.progress, Notices: o.notices}
}

func (f agFiles) banners() ([]string, error) {
	var out []string
	for _, l := range agingest.Layouts(f.files) {
		out = append(out, l.Banner())
	}
	return out, nil
}

func (f agFiles) unrecognised() []string {
	_, unknown := unlisted(f.files, f.all)
	return append(slices.Clip(f.files.Unrecognised), unknown...)
}

func (f agFiles) close() error { return f.folder.Close() }

func (f agFiles) check(ctx context.Context, w io.Writer, g *grid.Service, o ingestOptions, opt checkOptions) error {
	layouts := map[string]ingest.Layout{}
	for _, l := range agingest.Layouts(f.files) {
		layouts[l.Path] = l.Layout
	}
	for _, p := range f.files.Drought { // older months: read by no ingest, still checked
		if _, ok := layouts[p]; !ok {
			layouts[p] = agingest.DroughtGeoJSONLayout
			if strings.EqualFold(filepath.Ext(p), ".shp") {
				layouts[p] = agingest.DroughtShapefileLayout
			}
		}
	}
	folder := folderCheck{
		all: f.all,
		unused: "recognised, read by no ag report (the ACI class legend, the SLC soil layers, a README, a publisher's PDF or metadata, " +
			"a shapefile beside the GeoJSON of its name, which is read, or a file of a kind read once that a later name replaces)",
		companion:    "read with the file of the same name beside it (a shapefile's .dbf, .prj, .shx or .cpg)",
		checkOptions: opt,
	}
	return checkReports(ctx, w, "ag", f.files, folder, layouts, func(ctx context.Context, files agingest.Files, store *countStore, n *ingest.Notices) (map[string]int, map[string]int, error) {
		o.progress, o.notices = nil, n
		sum, err := agingest.Ingest(ctx, store, g, files, f.options(o))
		return sum.Rows, nil, err // the files' own rows; sum.Read counts what the readers made of them
	})
}

func (f agFiles) ingest(ctx context.Context, store kv.Store, g *grid.Service, o ingestOptions, w io.Writer) ([]any, error) {
	start := time.Now()
	if w != nil && o.notices == nil {
		o.notices = &ingest.Notices{}
	}
	sum, err := agingest.Ingest(ctx, store, g, f.files, f.options(o))
	if w != nil {
		for _, n := range o.notices.Lines() {
			fmt.Fprintf(w, "notice: %s\n", n)
		}
	}
	if err != nil {
		return nil, err
	}
	if w != nil {
		fmt.Fprintf(w, "ag dataset version %d: %d quarters, %d items in %s\n", sum.Version, sum.Quarters, sum.Items, time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(w, "read:     %s\n", counts(sum.Read))
		fmt.Fprintf(w, "sections: %s\n", counts(sum.Sections))
	}
	return []any{"items", sum.Items, "quarters", sum.Quarters}, nil
}
