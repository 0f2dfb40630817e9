package agingest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/ingest"
	"meridian/shared/teamdata"
)

// The fuzz targets feed each reader arbitrary bytes as CSV, DBF, GeoJSON
// or a shapefile (.shp and .dbf) and check that it never panics and either
// reads records or returns an *ingest.Error naming the file, with a line
// (1 or more for the text formats; 0 is a binary file's header) and a
// reason. Seeds come from the shared samples (when present), the demo
// dataset and the rejection tests.
//
//	go test ./shared/ag/agingest -run='^$' -fuzz=FuzzReadComponents -fuzztime=15s -fuzzminimizetime=200x
//
// (Without -fuzzminimizetime a short run spends most of its time minimising
// the first new input it finds: up to 60 s each by default.)

// sampleSeed returns up to n lines of a shared sample file, or nil when
// the shared directory is absent.
func sampleSeed(rel string, n int) []byte {
	dir, err := teamdata.Dir()
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "samples", filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// demoSeed returns a demo file (and, for a shapefile, its .dbf).
func demoSeed(name string) (a, b []byte) {
	a, _ = os.ReadFile(filepath.Join(demoPath, name))
	if strings.HasSuffix(name, ".shp") {
		b, _ = os.ReadFile(filepath.Join(demoPath, strings.TrimSuffix(name, ".shp")+".dbf"))
	}
	return a, b
}

// fuzzRead runs read over fuzzed sources.
func fuzzRead[T any](f *testing.F, name string, read func(agingest.Source, func(T) error) error, csvSeeds []string, files ...string) {
	for _, s := range csvSeeds {
		f.Add(uint8(0), []byte(s), []byte(nil))
	}
	for _, file := range files {
		a, b := demoSeed(file)
		switch {
		case strings.HasSuffix(file, ".shp"):
			f.Add(uint8(3), a, b)
			f.Add(uint8(1), b, []byte(nil))
		case strings.HasSuffix(file, ".dbf"):
			f.Add(uint8(1), a, []byte(nil))
		case strings.HasSuffix(file, ".geojson"):
			f.Add(uint8(2), a, []byte(nil))
		default:
			f.Add(uint8(0), a, []byte(nil))
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, a, b []byte) {
		src := fuzzSource(name, k, a, b)
		n := 0
		err := read(src, func(T) error { n++; return nil })
		checkFuzzError(t, err, name)
		if err != nil && (src.Format == agingest.CSV || src.Format == agingest.GeoJSON) {
			if ie := err.(*ingest.Error); ie.Line < 1 {
				t.Fatalf("%v: a text file's error needs a line", err)
			}
		}
	})
}

func textSeeds(rel string, extra ...string) []string {
	var s []string
	if b := sampleSeed(rel, 25); b != nil {
		s = append(s, string(b))
	}
	return append(s, extra...)
}

func FuzzReadComponents(f *testing.F) {
	var seeds []string
	for _, tc := range componentErrorTests {
		seeds = append(seeds, tc.in)
	}
	fuzzRead(f, "cmp", agingest.ReadComponents, textSeeds(slcCMP, seeds...), agdemo.SLCComponents)
}

func FuzzReadPolygonComponents(f *testing.F) {
	var seeds []string
	for _, tc := range componentErrorTests {
		seeds = append(seeds, tc.in)
	}
	fuzzRead(f, "cmp", agingest.ReadPolygonComponents, textSeeds(slcCMP, seeds...), agdemo.SLCComponents)
}

func FuzzReadSoilNames(f *testing.F) {
	fuzzRead(f, "snt", agingest.ReadSoilNames, textSeeds(slcSNT), agdemo.SoilNames)
}

func FuzzReadSoilLayers(f *testing.F) {
	fuzzRead(f, "slt", agingest.ReadSoilLayers, textSeeds(slcSLT), agdemo.SoilLayers)
}

func FuzzReadSLCPolygons(f *testing.F) {
	fuzzRead(f, "pat", agingest.ReadSLCPolygons, textSeeds(slcPAT), agdemo.SLCPolygons)
}

func FuzzReadCropLegend(f *testing.F) {
	fuzzRead(f, "legend", agingest.ReadCropLegend, textSeeds("aafc-aci/aci_class_legend.csv"), agdemo.CropLegend)
}

func FuzzReadCropSummaries(f *testing.F) {
	fuzzRead(f, "crops", agingest.ReadCropSummaries, []string{zonalHeader + "NW-25-24-1-W5,2023,153,612,84.30\nNW-25-24-1-W5,2023,146,114,15.70\n"})
}

func FuzzReadLandUse(f *testing.F) {
	fuzzRead(f, "landuse", agingest.ReadLandUse, []string{zonalHeader + "SE-1-10-9-W1,2020,52,600,80.00\nSE-1-10-9-W1,2020,61,150,20.00\n"})
}

func FuzzReadAGRASIDLSRS(f *testing.F) {
	fuzzRead(f, "agrasid", agingest.ReadAGRASIDLSRS, []string{agrasidHeader + "1001,5,1,24,25,NW,2H(3M)\n1002,W4,15,10,36,ne,\n"}, agdemo.AGRASIDLSRS)
}

func FuzzReadSLCLSRS(f *testing.F) {
	fuzzRead(f, "slc_lsrs", agingest.ReadSLCLSRS, nil, agdemo.SLCLSRS)
}

func FuzzParseRating(f *testing.F) {
	for _, tc := range ratingTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := agingest.ParseRating(s)
		if err != nil {
			return
		}
		// The canonical form reads back to the same rating.
		r2, err := agingest.ParseRating(r.String())
		if err != nil || r2.String() != r.String() {
			t.Fatalf("ParseRating(%q) = %q, which reads back as %q, %v", s, r, r2, err)
		}
		if score, ok := r.Score(); ok != r.Rated() || score < 0 || score > 100 {
			t.Fatalf("ParseRating(%q).Score() = %d, %v", s, score, ok)
		}
	})
}

func FuzzReadCLI(f *testing.F) {
	fuzzRead(f, "cli", agingest.ReadCLI, []string{cliHeader + "3,6,T,,4,4,W,,,,,\n2,,m,,,,,,,,,\n"}, agdemo.CLI)
}

func FuzzReadDrought(f *testing.F) {
	fuzzRead(f, "CDM_2507_D1_LR.geojson", agingest.ReadDrought, nil, agdemo.Drought()...)
}

// FuzzParseDroughtName checks that a name ParseDroughtName accepts gives a
// month of the form YYYY-MM in 2000-2099 and a class D0 to D4.
func FuzzParseDroughtName(f *testing.F) {
	for _, s := range append(agdemo.Drought(), "cdm_2025-07.geojson", "CDM_2413_D1_LR.geojson", "CDM_0211_D0.shp") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		month, class, ok := agingest.ParseDroughtName(name)
		if !ok {
			if month != "" || class != 0 {
				t.Fatalf("ParseDroughtName(%q) = %q, %v, false", name, month, class)
			}
			return
		}
		if len(month) != 7 || month[:2] != "20" || month[4] != '-' || month[5:] < "01" || month[5:] > "12" || class > agingest.D4 {
			t.Fatalf("ParseDroughtName(%q) = %q, %v", name, month, class)
		}
	})
}

func FuzzReadWaterBodies(f *testing.F) {
	fuzzRead(f, "water", agingest.ReadWaterBodies, nil, agdemo.WaterBodies, agdemo.Watercourses)
}

func FuzzReadWatercourses(f *testing.F) {
	fuzzRead(f, "water", agingest.ReadWatercourses, nil, agdemo.Watercourses, agdemo.WaterBodies)
}

func FuzzReadMunicipalities(f *testing.F) {
	fuzzRead(f, "munis", agingest.ReadMunicipalities, nil, agdemo.Municipalities)
}

func FuzzReadCrownLand(f *testing.F) {
	fuzzRead(f, "crown", agingest.ReadCrownLand, nil, agdemo.CrownLand)
}

func FuzzReadPastures(f *testing.F) {
	fuzzRead(f, "pastures", agingest.ReadPastures, nil, agdemo.Pastures, agdemo.CrownLand)
}

// bcSeeds adds the BC readers' seeds: the rejection tests (GeoJSON or
// CSV) and a good shapefile, also as its .dbf alone.
func bcSeeds(f *testing.F, tests []bcErrorTest, s, d []byte) {
	for _, tc := range tests {
		k := uint8(2)
		if strings.HasSuffix(tc.file, ".csv") {
			k = 0
		}
		f.Add(k, []byte(tc.in), []byte(nil))
	}
	f.Add(uint8(3), s, d)
	f.Add(uint8(1), d, []byte(nil))
}

func FuzzReadALR(f *testing.F) {
	s, _, d := alrShapefile(f)
	bcSeeds(f, alrErrorTests, s, d)
	good := fc(feature(`"ALR_POLY_ID":4021,"STATUS":"ALR","FEATURE_AREA_SQM":125000.5`, bcBox), feature(`"ALR_POLY_I":"4022.0","AREA_HA":3.5`, bcBox))
	f.Add(uint8(2), []byte(good), []byte(nil))
	fuzzRead(f, "alr", agingest.ReadALR, nil)
}

func FuzzReadFWAWetlands(f *testing.F) {
	s, _, d := wetlandShapefile(f)
	bcSeeds(f, wetlandErrorTests, s, d)
	good := fc(feature(`"WATERBODY_POLY_ID":700012345,"WATERBODY_TYPE":"W","AREA_HA":1.25,"GNIS_NAME_1":"Demo Marsh X","WATERSHED_GROUP_CODE":"PCEA"`, bcBox),
		feature(`"WATERBODY_":"700012346","WATERSHED_":"BULK","FEATURE_AR":5000`, bcBox))
	f.Add(uint8(2), []byte(good), []byte(nil))
	fuzzRead(f, "wetlands", agingest.ReadFWAWetlands, nil)
}
