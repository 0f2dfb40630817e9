package datadir_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/gateway"
)

// install replaces a file only with a complete one that checks: a write or
// a check that fails leaves the old bytes and no temporary file.
func TestInstall(t *testing.T) {
	ctx := t.Context()
	data := datadir.Dir(t.TempDir())
	path := data.GridFile("ab")
	write := func(s string) func(context.Context, *os.File) error {
		return func(_ context.Context, f *os.File) error { _, err := f.WriteString(s); return err }
	}
	ok := func(context.Context, string, string) error { return nil }
	if err := datadir.Install(ctx, path, write("one"), ok); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("does not parse")
	for name, tc := range map[string]struct {
		write func(context.Context, *os.File) error
		check func(context.Context, string, string) error
	}{
		"write fails": {func(context.Context, *os.File) error { return bad }, ok},
		"check fails": {write("two"), func(_ context.Context, dir, name string) error {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "two" {
				t.Errorf("check read %q, want the new bytes", b)
			}
			return bad
		}},
	} {
		if err := datadir.Install(ctx, path, tc.write, tc.check); !errors.Is(err, bad) {
			t.Errorf("%s: install = %v, want %v", name, err, bad)
		}
		if b, _ := os.ReadFile(path); string(b) != "one" {
			t.Errorf("%s: the file holds %q, want the old %q", name, b, "one")
		}
		if left, _ := filepath.Glob(filepath.Join(data.Grid(), ".new-*")); len(left) != 0 {
			t.Errorf("%s: temporary files left: %v", name, left)
		}
	}
	if err := datadir.Install(ctx, path, write("three"), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "three" {
		t.Errorf("after a good install the file holds %q, want %q", b, "three")
	}
}

// The layout is the one the README and the refresh job rely on.
func TestLayout(t *testing.T) {
	d := datadir.Dir("/srv/m")
	for got, want := range map[string]string{
		d.GridFile("altalis-ats-v4.1"):                   "/srv/m/grid/altalis-ats-v4.1.mgix",
		d.Reports("energy").Path():                       "/srv/m/reports/energy",
		d.Built("ag"):                                    "/srv/m/tiles/ag/.built",
		datadir.TileArchive(d.Tiles(), "ab/twp.pmtiles"): "/srv/m/tiles/ab/twp.pmtiles",
		d.Keys():          "/srv/m/keys.json",
		d.TLS():           "/srv/m/tls",
		d.Downloads():     "/srv/m/downloads",
		d.EnergyChanges(): "/srv/m/energy/changes",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// The gateway's files are where package gateway puts them when it is given
// the data directory itself: EnsureDemoKey writes the keys file a server
// started on the directory then reads.
func TestGatewayFilesAgree(t *testing.T) {
	dir := t.TempDir()
	data := datadir.Dir(dir)
	if _, err := gateway.EnsureDemoKey(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(data.Keys()); err != nil {
		t.Errorf("EnsureDemoKey wrote no keys file at %s: %v", data.Keys(), err)
	}
	for got, want := range map[string]string{
		data.Keys():  filepath.Join(dir, gateway.KeysFile),
		data.Plans(): filepath.Join(dir, gateway.PlansFile),
		data.Usage(): filepath.Join(dir, gateway.UsageFile),
	} {
		if got != want {
			t.Errorf("datadir names %s, package gateway %s", got, want)
		}
	}
}
