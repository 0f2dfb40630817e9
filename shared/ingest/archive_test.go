package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ingest"
	"meridian/shared/ingest/ingesttest"
)

// member is one file of an archive the tests build.
func member(name, body string) ingesttest.Member { return ingesttest.Member{Name: name, Body: body} }

func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenFolderZips(t *testing.T) {
	t.Parallel()
	dir, tmp := t.TempDir(), t.TempDir()
	writeFile(t, dir, "README.md", []byte("plain"))
	inner := ingesttest.Zip(t, member("aci_2023_ab.tif", "raster"), member("legend/aci_class_legend.csv", "legend"))
	writeFile(t, dir, "st37.zip", ingesttest.Zip(t,
		member("WellList.txt", "wells"),
		member("shp/ST37_SH.shp", "shp"), member("shp/ST37_SH.dbf", "dbf"),
		member("__MACOSX/._WellList.txt", "fork"), member("._WellList.txt", "fork"),
		member("inner.zip", string(inner)),
	))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := ingest.OpenFolder(dir, ingest.Limits{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var names []string
	for _, x := range f.Files {
		b, err := os.ReadFile(x.Path)
		if err != nil {
			t.Fatal(err)
		}
		got[x.Name] = string(b)
		names = append(names, x.Name)
		if filepath.Base(x.Path) != x.Name {
			t.Errorf("%s extracted as %s: a reader names a file by its base name", x.Name, x.Path)
		}
	}
	want := map[string]string{
		"README.md":                               "plain",
		"st37.zip!WellList.txt":                   "wells",
		"st37.zip!ST37_SH.shp":                    "shp",
		"st37.zip!ST37_SH.dbf":                    "dbf",
		"st37.zip!inner.zip!aci_2023_ab.tif":      "raster",
		"st37.zip!inner.zip!aci_class_legend.csv": "legend",
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %d", names, len(want))
	}
	for n, b := range want {
		if got[n] != b {
			t.Errorf("%s = %q, want %q (files %v)", n, got[n], b, names)
		}
	}
	// A shapefile's parts stay beside each other.
	var shp, dbf string
	for _, x := range f.Files {
		switch ingest.MemberName(x.Path) {
		case "ST37_SH.shp":
			shp = filepath.Dir(x.Path)
		case "ST37_SH.dbf":
			dbf = filepath.Dir(x.Path)
		}
	}
	if shp == "" || shp != dbf {
		t.Errorf("shapefile parts in %q and %q", shp, dbf)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Close left %d entries in the temporary directory", len(left))
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Errorf("Close removed a file of the folder: %v", err)
	}
}

func TestUnpackRefuses(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0", 1<<20) // deflates to about a kilobyte
	nest := ingesttest.Zip(t, member("a.txt", "x"))
	for range 3 {
		nest = ingesttest.Zip(t, member("n.zip", string(nest)))
	}
	cases := []struct {
		name string
		zip  []byte
		lim  ingest.Limits
		want []string
	}{
		{"zip slip", ingesttest.Zip(t, member("../../evil.txt", "x")), ingest.Limits{}, []string{"d.zip!evil.txt", "leads out of the archive"}},
		{"absolute", ingesttest.Zip(t, member("/etc/evil.txt", "x")), ingest.Limits{}, []string{"leads out of the archive"}},
		{"bomb", ingesttest.Zip(t, member("a.csv", "small"), member("b.csv", big)), ingest.Limits{MaxBytes: 1 << 19}, []string{"d.zip!b.csv", "inflates past 524288 bytes"}},
		{"ratio", ingesttest.Zip(t, member("b.csv", big+big)), ingest.Limits{}, []string{"d.zip!b.csv", "more than 1000 times"}},
		{"drive", ingesttest.Zip(t, member("C:evil.txt", "x")), ingest.Limits{}, []string{"leads out of the archive"}},
		{"nested too deep", nest, ingest.Limits{MaxDepth: 2}, []string{"nested more than 2 deep"}},
		{"too many files", ingesttest.Zip(t, member("a", "1"), member("b", "2"), member("c", "3")), ingest.Limits{MaxFiles: 2}, []string{"more than 2 files"}},
		{"twice", ingesttest.Zip(t, member("a.csv", "1"), member("a.csv", "2")), ingest.Limits{}, []string{"twice"}},
		{"not a zip", []byte("PK but not really"), ingest.Limits{}, []string{"d.zip", "not a zip archive"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			writeFile(t, dir, "d.zip", tc.zip)
			tc.lim.TempDir = tmp
			f, err := ingest.OpenFolder(dir, tc.lim)
			var ie *ingest.Error
			if !errors.As(err, &ie) {
				t.Fatalf("OpenFolder = %v, %v; want an *ingest.Error", f, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("a refused folder left %d entries in the temporary directory", len(left))
			}
		})
	}
}

func TestUnpackExactLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "d.zip", ingesttest.Zip(t, member("a.csv", "12345"), member("b.csv", "678")))
	f, err := ingest.OpenFolder(dir, ingest.Limits{MaxBytes: 8, TempDir: t.TempDir()})
	if err != nil || len(f.Files) != 2 {
		t.Fatalf("8 bytes under a limit of 8: %v, %v", f, err)
	}
	f.Close()
}
