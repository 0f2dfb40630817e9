package main

import (
	"bytes"
	"os"
	"testing"

	"meridian/shared/datadir"
)

// build-tiles of every data layer of a domain marks it built, as ingest
// does, so a server started next does not build them all again (the
// province run's server spent two minutes doing so); one layer does not.
func TestBuildTilesMarksDomainBuilt(t *testing.T) {
	data, src := t.TempDir(), t.TempDir()
	var out, errOut bytes.Buffer
	if code := run([]string{"ingest", "energy", "-demo", "-tiles=false", "-data", data, src}, nil, &out, &errOut); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut.String())
	}
	marker := datadir.Dir(data).Built("energy")
	if code := run([]string{"build-tiles", "-q", "-data", data, "energy/facilities"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("build-tiles: exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("one layer built marked the domain built")
	}
	args := []string{"build-tiles", "-q", "-data", data}
	args = append(args, dataLayerPaths()...)
	if code := run(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("build-tiles: exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("every energy layer built, no marker: %v", err)
	}
}
