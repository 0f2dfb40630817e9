package ingest_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

func TestTableCSV(t *testing.T) {
	t.Parallel()
	in := "\ufeffPoly ID,dom-lsrs,\n 7 ,Rivi\xe8re,x\n"
	tab, err := ingest.Source{Name: "t.csv", Format: ingest.CSV, R: strings.NewReader(in), UnnamedColumns: true}.Open()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(tab.Cols, ","), "POLY_ID,DOM_LSRS,"; got != want {
		t.Errorf("Cols = %q, want %q", got, want)
	}
	if err := tab.Need("POLY_ID", "DOM_LSRS"); err != nil {
		t.Errorf("Need: %v", err)
	}
	r, err := tab.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Get("DOM_LSRS"); got != "Rivière" {
		t.Errorf("Get(DOM_LSRS) = %q, want Rivière", got)
	}
	if i := tab.Col("NOPE", "POLY_ID"); i != 0 || r.At(i) != "7" || r.Line != 2 {
		t.Errorf("Col = %d, At = %q, Line = %d; want 0, \"7\", 2", i, r.At(i), r.Line)
	}
	if i := tab.Col("NOPE"); i != -1 || r.At(i) != "" {
		t.Errorf("Col(NOPE) = %d, At = %q; want -1, \"\"", i, r.At(i))
	}
}

func TestTableCSVErrors(t *testing.T) {
	t.Parallel()
	lower := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	tests := []struct {
		name   string
		src    ingest.Source
		line   int
		reason string
	}{
		{"empty", ingest.Source{}, 1, "empty file"},
		{"unnamed column", ingest.Source{R: strings.NewReader("a,,b\n")}, 1, "column 2 has no name"},
		{"twice by Names", ingest.Source{R: strings.NewReader("A,a\n"), Names: lower}, 1, "column a appears twice"},
		{"field count", ingest.Source{R: strings.NewReader("a,b,c\n1,2,3\n3,4\n")}, 3, "wrong number of fields"},
		{"extra value", ingest.Source{R: strings.NewReader("a,b,c\n1,2,3,4\n")}, 2, "wrong number of fields"},
		{"strict: a note", ingest.Source{R: strings.NewReader("a,b,c\n1,2,3\n3\n"), Strict: true}, 3, "wrong number of fields"},
		{"strict: a trailing delimiter", ingest.Source{R: strings.NewReader("a,b,c\n1,2,3,\n"), Strict: true}, 2, "wrong number of fields"},
		{"missing column", ingest.Source{R: strings.NewReader("a,b\n")}, 1, "missing column C"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.src
			src.Name, src.Format = "e.csv", ingest.CSV
			if src.R == nil {
				src.R = strings.NewReader("")
			}
			tab, err := src.Open()
			if err == nil {
				err = tab.Need("C")
			}
			if err == nil {
				err = tab.Each(func(*ingest.Row) error { return nil })
			}
			var ie *ingest.Error
			if !errors.As(err, &ie) || ie.File != "e.csv" || ie.Line != tc.line || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("error %v, want e.csv:%d: ...%s...", err, tc.line, tc.reason)
			}
		})
	}
}

func TestTableGeoJSON(t *testing.T) {
	t.Parallel()
	in := `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"Lot No":" 12 ","obj":{"a":1}},"geometry":{"type":"Point","coordinates":[-110,50]}},
{"type":"Feature","properties":{"Lot No":"13"},"geometry":null}
]}`
	lower := func(s string) string { return strings.ToLower(s) }
	tests := []struct {
		name     string
		src      ingest.Source
		lines    []int
		lot      string
		errLine  int
		errMatch string
	}{
		{"lines", ingest.Source{}, []int{2, 3}, "12", 0, ""},
		{"feature numbers", ingest.Source{FeatureNumbers: true}, []int{1, 2}, "12", 0, ""},
		{"names", ingest.Source{Names: lower}, []int{2, 3}, "", 0, ""},
		{"scalar properties", ingest.Source{ScalarProperties: true}, nil, "", 2, `property "obj"`},
		{"geometry rule", ingest.Source{FeatureNumbers: true, Geometry: func(g orb.Geometry) (orb.Geometry, string) { return g, "no points here" }}, nil, "", 1, "no points here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.src
			src.Name, src.Format, src.R = "g.geojson", ingest.GeoJSON, strings.NewReader(in)
			tab, err := src.Open()
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			var lot string
			err = tab.Each(func(r *ingest.Row) error {
				lines = append(lines, r.Line)
				if r.Line == tc.lines[0] {
					lot = r.Get("LOT_NO")
				}
				return nil
			})
			if tc.errMatch != "" {
				var ie *ingest.Error
				if !errors.As(err, &ie) || ie.Line != tc.errLine || !strings.Contains(ie.Reason, tc.errMatch) {
					t.Errorf("error %v, want line %d: ...%s...", err, tc.errLine, tc.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(lines, tc.lines) || lot != tc.lot {
				t.Errorf("lines %v, LOT_NO %q; want %v, %q", lines, lot, tc.lines, tc.lot)
			}
		})
	}
}

func TestTableGeoJSONNotices(t *testing.T) {
	t.Parallel()
	in := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":"x"},"geometry":null}]}`
	var ns ingest.Notices
	var layouts []string
	tab, err := ingest.Source{Name: "n.geojson", Format: ingest.GeoJSON, R: strings.NewReader(in), Notices: &ns,
		Recognised: func(l ingest.Layout) { layouts = append(layouts, l.Dataset) }}.Open()
	if err != nil {
		t.Fatal(err)
	}
	err = tab.Each(func(r *ingest.Row) error {
		tab.Recognise(ingest.Layout{Dataset: "one"})
		tab.Recognise(ingest.Layout{Dataset: "two"})
		tab.Notice(r.Line, "A", r.Get("A"), "new")
		return nil
	})
	if err != nil || ns.Total() != 1 || !slices.Equal(layouts, []string{"one"}) {
		t.Errorf("err %v, %d notices, layouts %v; want nil, 1, [one]", err, ns.Total(), layouts)
	}
}

// Source.Rows counts the records a table returns, its file's own rows:
// a title, an empty row and a totals row are skipped, not counted.
func TestTableRows(t *testing.T) {
	t.Parallel()
	in := "Crop report 2024\nA,B\n1,x\n,\n2,y\n3,z\nTotal,6\n"
	var n int
	tab, err := ingest.Source{Name: "t.csv", Format: ingest.CSV, R: strings.NewReader(in), Rows: &n}.Open()
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := tab.Each(func(r *ingest.Row) error { seen = append(seen, r.Get("A")); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 || !slices.Equal(seen, []string{"1", "2", "3"}) {
		t.Errorf("Rows = %d over %q, want 3 over the records 1, 2, 3", n, seen)
	}
}
