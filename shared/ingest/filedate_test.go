package ingest_test

import (
	"testing"

	"meridian/shared/ingest"
)

func TestFileDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"day", "ST104A_BusinessAssociate_Codes_2017-04-07.csv", "2017-04-07"},
		{"day with time", "Reporting - Full Inventory - 2026-11-01 13.41.42.xlsx", "2026-11-01"},
		{"month", "WellList_2026-11.txt", "2026-11"},
		{"year alone", "AAFC_crop_inventory_2024.csv", "2024"},
		{"path is ignored", "/data/2019-01-01/WellList.txt", ""},
		{"directory date ignored, name's kept", "/data/2019/NGL_2024-01.csv", "2024-01"},
		{"none", "ST37_BH_GCS_NAD83.shp", ""},
		{"month over year", "Drought_2025-09_AAFC_2024.geojson", "2025-09"},
		{"day over month", "x_2024-05_2023-01-02.csv", "2023-01-02"},
		{"last month", "drought_2024-08_2025-09.shp", "2025-09"},
		{"last year", "Drought_2023_2024.shp", "2024"},
		{"year range", "crops_2017-2018.csv", "2018"},
		{"invalid day is a month", "x_2024-02-30.csv", "2024-02"},
		{"invalid month is a year", "x_2024-13.csv", "2024"},
		{"year before 1901", "x_1900.csv", ""},
		{"five digits", "x_20241.csv", ""},
		{"digits around", "x_12024-05.csv", ""},
		{"month followed by digit", "x_2024-051.csv", "2024"},
		{"any four digits alone are a year", "ST37_NAD83_3400.csv", "3400"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ingest.FileDate(tc.file); got != tc.want {
				t.Errorf("FileDate(%q) = %q, want %q", tc.file, got, tc.want)
			}
		})
	}
}
