package gridingest_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/blob"
	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
	"meridian/shared/teamdata"
)

// TestFixtureDatasetsBuild builds an index from every fixture dataset as
// the local server does on first start, and looks a few blocks up in it:
// the readers' records pass the index's validation, Ontario's concessions
// are derived, and Manitoba's centroids and corners merge.
func TestFixtureDatasetsBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := blob.NewMem()
	indexes := map[gridingest.GridFormat]*gridindex.Index{}
	for _, ds := range griddemo.Datasets() {
		meta, _ := gridingest.DefaultMeta(ds.Format)
		meta.Fixture = true
		var out bytes.Buffer
		st, ist, err := gridingest.BuildGrid(ctx, gridingest.GridSource{Format: ds.Format, FS: griddemo.Grid(), Files: ds.Files, Meta: meta, TempDir: t.TempDir()}, &out)
		if err != nil {
			t.Fatalf("%s: %v", ds.Format, err)
		}
		t.Logf("%s: %s -> %d records, %d groups, %d bytes", ds.Format, st, ist.Records, ist.Groups, ist.Bytes)
		key := string(ds.Format) + ".mgix"
		if err := store.Put(ctx, key, &out); err != nil {
			t.Fatal(err)
		}
		ix, err := gridindex.Open(ctx, store, key, gridindex.Options{})
		if err != nil {
			t.Fatalf("%s: open: %v", ds.Format, err)
		}
		indexes[ds.Format] = ix
	}
	lookup := func(f gridingest.GridFormat, s string) gridindex.Record {
		t.Helper()
		l, err := lld.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		r, ok, err := indexes[f].Lookup(ctx, l)
		if err != nil || !ok {
			t.Fatalf("%s: Lookup(%s) = %v, %v", f, s, ok, err)
		}
		return r
	}
	if r := lookup(gridingest.FormatATS, "10-15-24-1-W5"); r.Geometry == nil {
		t.Errorf("LSD 10-15-24-1-W5 has no geometry")
	}
	if r := lookup(gridingest.FormatSaskGrid, "NE-1-17-19-W2"); r.Geometry == nil {
		t.Errorf("NE-1-17-19-W2 has no geometry")
	}
	// Manitoba: the official centroid and the corners' polygon in one
	// record.
	for _, p := range teamdata.GroundTruth(t) {
		if p.LLD != "NE-1-12-12E1" {
			continue
		}
		r := lookup(gridingest.FormatManitoba, p.LLD)
		if !r.HasCentroid || r.Geometry == nil || metres(r.Centroid, p.Pt) > 0.5 {
			t.Errorf("NE-1-12-12E1: centroid %v (official %v), geometry %v", r.Centroid, p.Pt, r.Geometry != nil)
		}
	}
	// Ontario: concessions derived from their lots.
	con := lookup(gridingest.FormatOntario, "Con 1 Adjala")
	if !planar.MultiPolygonContains(ingest.MultiPolygon(con.Geometry), orb.Point{-79.93, 44.17}) {
		t.Errorf("Con 1 Adjala does not contain Lot 10's position")
	}
	lookup(gridingest.FormatOntario, "Con BF Demohurst")
	lookup(gridingest.FormatOntario, "Lot 10 Con 1 Adjala")
	lookup(gridingest.FormatOntario, "Con 2 Demoford") // from the EPSG:3161 shapefile
}
