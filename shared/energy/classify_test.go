package energy_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"meridian/shared/energy"
)

// The publishers' file names sort into their kinds: both BA lists, the
// ST37 shapefiles (recognised, not read by the reports) with their
// companions, NGL volumes.
func TestClassifyPublishedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{
		"PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv",
		"ST37_SH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.dbf", "ST37_SH_GCS_NAD83.prj", "ST37_SH_GCS_NAD83.shx",
		"ST37_BH_GCS_NAD83.shp", "ST37_BH_GCS_NAD83.dbf", "WellList.txt", "NGL_2024-01.csv",
		"Pipelines_GCS_NAD83.shp", "Pipelines_GCS_NAD83.dbf", "Well Infrastructure-AB.csv",
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := energy.Classify(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		slices.Sort(out)
		return out
	}
	for kind, c := range map[string]struct{ got, want []string }{
		"BACodes":      {base(f.BACodes), []string{"PRABAIdentifiers.csv", "ST104A_BusinessAssociate_Codes_2017-04-07.csv"}},
		"Unused":       {base(f.Unused), []string{"NGL_2024-01.csv", "ST37_BH_GCS_NAD83.shp", "ST37_SH_GCS_NAD83.shp"}},
		"WellLists":    {base(f.WellLists), []string{"WellList.txt"}},
		"Wells":        {base(f.Wells), []string{"Well Infrastructure-AB.csv"}},
		"Pipelines":    {base(f.Pipelines), []string{"Pipelines_GCS_NAD83.shp"}},
		"Unrecognised": {base(f.Unrecognised), nil},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", kind, c.got, c.want)
		}
	}
}
