package agingest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/ingest/shp"
)

// bigCMP is a component table of n rows: polygons of five components.
func bigCMP(n int) []byte {
	var b bytes.Buffer
	b.WriteString(cmpHeader)
	for i := 0; i < n; i++ {
		poly, c := 100000+i/5, i%5+1
		fmt.Fprintf(&b, "%d,%d,%d,B,S,U,SK,BUF,~~~~~,A,SKBUF~~~~~A,%d\n", poly, c, []int{40, 20, 20, 10, 10}[c-1], poly*100+c)
	}
	return b.Bytes()
}

// bigCMPDBF is the same table as a DBF.
func bigCMPDBF(tb testing.TB, n int) []byte {
	var s, x, d shp.Buffer
	fields := []shp.Field{{Name: "POLY_ID", Type: shp.Numeric, Length: 10}, {Name: "CMP", Type: shp.Numeric, Length: 2}, {Name: "PERCENT", Type: shp.Numeric, Length: 3},
		{Name: "SLOPE", Type: shp.Character, Length: 1}, {Name: "STONE", Type: shp.Character, Length: 1}, {Name: "LOCSF", Type: shp.Character, Length: 3},
		{Name: "PROVINCE", Type: shp.Character, Length: 2}, {Name: "SOIL_CODE", Type: shp.Character, Length: 3}, {Name: "MODIFIER", Type: shp.Character, Length: 5},
		{Name: "PROFILE", Type: shp.Character, Length: 1}, {Name: "SOIL_ID", Type: shp.Character, Length: 11}, {Name: "CMP_ID", Type: shp.Numeric, Length: 12}}
	w, err := shp.NewWriter(&s, &x, &d, shp.Null, fields, shp.WriterOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		poly, c := 100000+i/5, i%5+1
		if err := w.Write(nil, []string{fmt.Sprint(poly), fmt.Sprint(c), fmt.Sprint([]int{40, 20, 20, 10, 10}[c-1]), "B", "S", "U", "SK", "BUF", "~~~~~", "A", "SKBUF~~~~~A", fmt.Sprint(poly*100 + c)}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return d.Bytes()
}

// bigCrops is a crop summary of n rows: quarters of W4 townships, five
// years, two classes a year.
func bigCrops(n int) []byte {
	var b bytes.Buffer
	b.WriteString(zonalHeader)
	qs := []string{"NE", "NW", "SW", "SE"}
	for i := 0; i < n; i += 2 {
		q := i / 10
		loc := fmt.Sprintf("%s-%d-%d-%d-W4", qs[q%4], q/4%36+1, q/144%100+1, q/14400%30+1)
		year := 2021 + i/2%5
		fmt.Fprintf(&b, "%s,%d,153,600,85.71\n%s,%d,146,100,14.29\n", loc, year, loc, year)
	}
	return b.Bytes()
}

func benchRead[T any](b *testing.B, data []byte, format agingest.Format, read func(agingest.Source, func(T) error) error, perRecord int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	for i := 0; i < b.N; i++ {
		err := read(agingest.Source{Name: "bench", Format: format, R: bytes.NewReader(data)}, func(T) error { rows += perRecord; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

const benchRows = 200_000

func BenchmarkReadComponentsCSV(b *testing.B) {
	benchRead(b, bigCMP(benchRows), agingest.CSV, agingest.ReadComponents, 1)
}

func BenchmarkReadComponentsDBF(b *testing.B) {
	benchRead(b, bigCMPDBF(b, benchRows), agingest.DBF, agingest.ReadComponents, 1)
}

func BenchmarkReadPolygonComponentsCSV(b *testing.B) {
	benchRead(b, bigCMP(benchRows), agingest.CSV, agingest.ReadPolygonComponents, 5)
}

func BenchmarkReadCropSummaries(b *testing.B) {
	benchRead(b, bigCrops(benchRows), agingest.CSV, agingest.ReadCropSummaries, 2)
}

// benchGeoJSON is a demo GeoJSON file repeated to about 20,000 features.
func benchGeoJSON(b *testing.B, name string) []byte {
	data, err := os.ReadFile(filepath.Join(demoPath, name))
	if err != nil {
		b.Fatal(err)
	}
	n := strings.Count(string(data), `"Feature"`)
	return repeatFeatures(data, 20000/n)
}

func BenchmarkReadMunicipalitiesGeoJSON(b *testing.B) {
	benchRead(b, benchGeoJSON(b, agdemo.Municipalities), agingest.GeoJSON, agingest.ReadMunicipalities, 1)
}

func BenchmarkReadWaterBodiesGeoJSON(b *testing.B) {
	benchRead(b, benchGeoJSON(b, agdemo.WaterBodies), agingest.GeoJSON, agingest.ReadWaterBodies, 1)
}

// repeatFeatures returns a FeatureCollection, "features" its last member,
// with its features repeated n times: a large file of real shape.
func repeatFeatures(file []byte, n int) []byte {
	s := strings.TrimSpace(string(file))
	i, j := strings.Index(s, "[")+1, strings.LastIndex(s, "]")
	body := strings.TrimSpace(s[i:j])
	return []byte(s[:i] + strings.Repeat(body+",\n", n-1) + body + s[j:])
}
