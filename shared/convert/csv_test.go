package convert_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"meridian/shared/convert"
	"meridian/shared/survey/grid"
)

func TestConvertCSV(t *testing.T) {
	t.Parallel()
	in := "id,lld,note\n1,NW-25-24-1-W5,home\n2,not a location,bad\n3,\"LSD 06-32-048-07W5\",\"a, quoted\"\n4,A-2-F/93-P-8,\n"
	var bad []int
	var out bytes.Buffer
	stats, err := convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(in), &out, convert.CSVOptions{
		Bad: func(line int, input string, err error) { bad = append(bad, line) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats != (convert.CSVStats{Rows: 4, Converted: 3, Failed: 1}) || fmt.Sprint(bad) != "[3]" {
		t.Errorf("stats %+v, bad lines %v", stats, bad)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := "id,lld,note,legal_location,unit,survey_system,province,lat,lng,datum,accuracy_m,source,error"
	if got := strings.Join(rows[0], ","); got != wantHeader {
		t.Errorf("header = %s, want %s", got, wantHeader)
	}
	want := []struct{ legal, unit, province, errPrefix string }{
		{"NW-25-24-1-W5", "Quarter Section", "AB", ""},
		{"", "", "", "invalid_legal_location: "},
		{"6-32-48-7-W5", "LSD", "AB", ""},
		{"A-2-F/93-P-8", "Quarter Unit", "BC", ""},
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for i, w := range want {
		r := rows[i+1]
		if r[3] != w.legal || r[4] != w.unit || r[6] != w.province || !strings.HasPrefix(r[12], w.errPrefix) || (w.errPrefix == "") != (r[12] == "") ||
			(w.errPrefix == "") != (r[9] == "NAD83") {
			t.Errorf("row %d = %q, want %+v", i+1, r, w)
		}
	}
	if rows[3][2] != "a, quoted" {
		t.Errorf("quoted input column = %q", rows[3][2])
	}
}

func TestConvertCSVCoordinatesToGeoJSON(t *testing.T) {
	t.Parallel()
	in := "name,longitude,latitude\nwell,-114.01924,51.077932\nsea,-140,50\nswapped,51.077932,-114.01924\n"
	var out bytes.Buffer
	stats, err := convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(in), &out, convert.CSVOptions{GeoJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Converted != 2 || stats.Failed != 1 {
		t.Errorf("stats %+v", stats)
	}
	var fc struct {
		Features []struct {
			Geometry struct {
				Type string `json:"type"`
			} `json:"geometry"`
			Properties struct {
				Legal string            `json:"legal_location"`
				Unit  string            `json:"unit"`
				Input map[string]string `json:"input"`
			} `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(out.Bytes(), &fc); err != nil {
		t.Fatalf("GeoJSON output: %v\n%s", err, out.String())
	}
	if len(fc.Features) != 2 {
		t.Fatalf("%d features, want 2", len(fc.Features))
	}
	for _, f := range fc.Features {
		if f.Geometry.Type != "Polygon" || f.Properties.Unit != "LSD" || !strings.HasSuffix(f.Properties.Legal, "-25-24-1-W5") {
			t.Errorf("feature %+v", f)
		}
	}
	if fc.Features[1].Properties.Input["name"] != "swapped" {
		t.Errorf("input columns not carried: %+v", fc.Features[1].Properties.Input)
	}
}

func TestConvertCSVColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		opts     convert.CSVOptions
		wantErr  string
	}{
		{"single column without header", "NW-25-24-1-W5\n", convert.CSVOptions{NoHeader: true}, ""},
		{"column by number", "a,b\nx,NW-25-24-1-W5\n", convert.CSVOptions{Column: "2"}, ""},
		{"column out of range", "a,b\nx,y\n", convert.CSVOptions{Column: "3"}, "column 3 does not exist"},
		{"unknown column name", "a,b\nx,y\n", convert.CSVOptions{Column: "legal"}, "no column named"},
		{"nothing to convert", "a,b\nx,y\n", convert.CSVOptions{}, "cannot tell which column"},
		{"lng without lat", "a,b\n1,2\n", convert.CSVOptions{Lng: "a"}, "both"},
		{"empty input", "", convert.CSVOptions{}, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(tc.in), io.Discard, tc.opts)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// rowSource generates a CSV of n rows without holding it in memory.
type rowSource struct {
	n, i int
	buf  []byte
}

func (r *rowSource) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.i <= r.n {
		if r.i == 0 {
			r.buf = append(r.buf, "id,lld\n"...)
		} else {
			r.buf = fmt.Appendf(r.buf, "%d,%s-%d-%d-%d-W%d\n", r.i, []string{"NE", "NW", "SE", "SW"}[r.i%4], 1+r.i%36, 1+r.i%100, 1+r.i%25, 4+r.i%3)
		}
		r.i++
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func BenchmarkConvertCSV(b *testing.B) {
	svc := grid.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.ConvertCSV(context.Background(), svc, &rowSource{n: 1000}, io.Discard, convert.CSVOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
