package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/report"
	"meridian/shared/survey"
)

func TestNewParcel(t *testing.T) {
	t.Parallel()
	// 0.01° by 0.01° at 51°N: 702 m × 1112 m on the ellipsoid.
	sq := orb.Polygon{{{-114, 51}, {-113.99, 51}, {-113.99, 51.01}, {-114, 51.01}, {-114, 51}}}
	b := survey.Block{Geometry: sq, Centroid: orb.Point{-113.99500049, 51.0050000051}}
	tests := []struct {
		name     string
		b        survey.Block
		geometry bool
		want     string
	}{
		{"without geometry", b, false, `{"area_ha":78.09,"centroid":{"lat":51.005,"lng":-113.995},"geometry":null}`},
		{"with geometry", b, true, `{"area_ha":78.09,"centroid":{"lat":51.005,"lng":-113.995},"geometry":{"type":"Polygon","coordinates":[[[-114,51],[-113.99,51],[-113.99,51.01],[-114,51.01],[-114,51]]]}}`},
		{"no polygon", survey.Block{Centroid: b.Centroid}, true, `{"area_ha":0,"centroid":{"lat":51.005,"lng":-113.995},"geometry":null}`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(report.NewParcel(tc.b, tc.geometry))
		if err != nil || string(got) != tc.want {
			t.Errorf("NewParcel(%s) = %s, %v, want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestRound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v      float64
		digits int
		want   float64
	}{
		{6300.204999, 2, 6300.2},
		{201.04, 1, 201},
		{-114.0190694, 6, -114.019069},
		{51.0774305, 6, 51.077431},
		{0.5, 0, 1},
	}
	for _, tc := range tests {
		if got := report.Round(tc.v, tc.digits); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.v, tc.digits, got, tc.want)
		}
	}
	if got, want := report.PointOf(orb.Point{-114.0190694, 51.0774305}), (report.Point{Lat: 51.077431, Lng: -114.019069}); got != want {
		t.Errorf("PointOf = %v, want %v", got, want)
	}
}

// AppendJSON writes what encoding/json writes: parcels with and without a
// polygon, numbers of every magnitude (exponent forms included), and it
// refuses what encoding/json refuses.
func TestParcelAppendJSON(t *testing.T) {
	t.Parallel()
	sq := orb.Polygon{{{-114, 51}, {-113.99, 51}, {-113.99, 51.01}, {-114, 51.01}, {-114, 51}}}
	var parcels []report.Parcel
	for _, b := range []survey.Block{{Geometry: sq, Centroid: orb.Point{-113.99500049, 51.0050000051}}, {Centroid: orb.Point{0, -0.0}}} {
		parcels = append(parcels, report.NewParcel(b, false), report.NewParcel(b, true))
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 9.99e-7, 0.5, 64.75, 1e20, 1e21, -1e21, 123456789.125, -49.000001, 3e-300} {
		parcels = append(parcels, report.Parcel{AreaHa: v, Centroid: report.Point{Lat: v, Lng: -v}})
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		parcels = append(parcels, report.Parcel{AreaHa: report.Round(r.Float64()*70, 2), Centroid: report.PointOf(orb.Point{-120 + r.Float64()*25, 49 + r.Float64()*11})})
	}
	for _, p := range parcels {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendJSON([]byte("x"))
		if err != nil || string(got) != "x"+strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("AppendJSON(%+v) = %s, %v; encoding/json writes %s", p, got, err, want.String())
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := (report.Parcel{AreaHa: bad}).AppendJSON(nil); err == nil {
			t.Errorf("AppendJSON of area %v: no error, as encoding/json gives one", bad)
		}
	}
}
