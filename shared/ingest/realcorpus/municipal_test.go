package realcorpus

import (
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
)

// mbMunicipal is what a real Manitoba municipal boundary record holds,
// checked by hand against the .dbf and a map.
type mbMunicipal struct {
	code, name, typ string
	lon, lat        float64 // a point inside the municipality
}

// The two real Manitoba files: the geoportal's MG_MUNICIPALITY_POLY and
// MLI's 2020 MB_Municipal_Boundaries, five records each, in file order.
var mbMunicipalFiles = []struct {
	file string
	want []mbMunicipal
}{
	{"MG_MUNICIPALITY_POLY.shp", []mbMunicipal{
		{"189", "RM OF SPRINGFIELD", "RM", -96.75, 49.93},
		{"102", "RM OF ARGYLE", "RM", -99.1, 49.35},
		{"169", "RM OF ROLAND", "RM", -97.9, 49.35},
		{"151", "RM OF MONTCALM", "RM", -97.3, 49.1},
		{"540", "CITY OF FLIN FLON", "CITY", -101.88, 54.77},
	}},
	{"MB_Municipal_Boundaries.shp", []mbMunicipal{
		{"175", "RM OF STE. ANNE", "RM", -96.5, 49.6},
		{"144", "MUNICIPALITY OF LORNE", "MUNICIPALITY", -98.7, 49.45},
		{"121", "RM OF EAST ST. PAUL", "RM", -97.0, 49.97},
		{"153", "MUNICIPALITY OF BOISSEVAIN-MORTON", "MUNICIPALITY", -100.0, 49.15},
		{"101", "RM OF ELLICE-ARCHIE", "RM", -101.3, 50.4},
	}},
}

// readMBMunicipal reads one real Manitoba municipal boundary file and
// checks the reader took it for Manitoba's layout.
func readMBMunicipal(t *testing.T, file string) []agingest.Municipality {
	t.Helper()
	f := open(t, "mb-municipal", file)
	var layout ingest.Layout
	f.Source.Recognised = func(l ingest.Layout) { layout = l }
	var got []agingest.Municipality
	if err := agingest.ReadMunicipalities(f.Source, func(m agingest.Municipality) error {
		got = append(got, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if layout.Dataset != agingest.MBMunicipalLayout.Dataset {
		t.Errorf("layout recognised: %q, want %q", layout.Dataset, agingest.MBMunicipalLayout.Dataset)
	}
	return got
}

// TestRealMBMunicipal reads both real Manitoba files (Web Mercator; DBF
// names cut to 10 characters): names, types, province and where each
// polygon lies once the .prj is applied.
func TestRealMBMunicipal(t *testing.T) {
	for _, tc := range mbMunicipalFiles {
		t.Run(tc.file, func(t *testing.T) {
			got := readMBMunicipal(t, tc.file)
			if len(got) != len(tc.want) {
				t.Fatalf("read %d municipalities, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				m := got[i]
				if m.Name != w.name || m.Type != w.typ || m.Province != "MB" {
					t.Errorf("municipality %d = %q %q %q, want %q %q MB", i, m.Name, m.Type, m.Province, w.name, w.typ)
				}
				// A municipality spans well under a degree or two; metres
				// read as degrees, or a wrong projection, would not.
				b := m.Geometry.Bound()
				if !b.Contains(orb.Point{w.lon, w.lat}) || b.Max[0]-b.Min[0] > 2 || b.Max[1]-b.Min[1] > 2 {
					t.Errorf("%s: bound %v, want a small box holding (%v, %v)", w.name, b, w.lon, w.lat)
				}
			}
		})
	}
}

// TestRealMBMunicipalCode: both real files number each municipality in
// MUNI_NO (Springfield 189, Ste. Anne 175). Before the corpus the reader
// looked for the code only in CSDUID, MUNI_CODE, MUNCODE or RM_NO, and every
// Manitoba municipality came out with no code.
func TestRealMBMunicipalCode(t *testing.T) {
	for _, tc := range mbMunicipalFiles {
		t.Run(tc.file, func(t *testing.T) {
			for i, m := range readMBMunicipal(t, tc.file) {
				if i < len(tc.want) && m.Code != tc.want[i].code {
					t.Errorf("municipality %d (%s): code %q, want %q (MUNI_NO)", i, m.Name, m.Code, tc.want[i].code)
				}
			}
		})
	}
}
