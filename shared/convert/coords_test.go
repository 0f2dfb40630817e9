package convert

import (
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
)

func TestParsePoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want orb.Point
	}{
		{"lng,lat", "-114.01924,51.077932", orb.Point{-114.01924, 51.077932}},
		{"lat,lng by range", "51.077932,-114.01924", orb.Point{-114.01924, 51.077932}},
		{"spaces around comma", " -114.654 , 52.123 ", orb.Point{-114.654, 52.123}},
		{"space separated", "-110.5 54.2", orb.Point{-110.5, 54.2}},
		{"lat,lng both under 90 in Canada", "52.2856,-89.5", orb.Point{-89.5, 52.2856}},
		{"both orders valid, neither in Canada: lng,lat", "10,20", orb.Point{10, 20}},
		{"longitude beyond 90 decides", "120,45", orb.Point{120, 45}},
		{"DMS", `52°17'08"N 113°48'41"W`, orb.Point{-(113 + 48.0/60 + 41.0/3600), 52 + 17.0/60 + 8.0/3600}},
		{"DMS lng first", `113°48'41"W, 52°17'08"N`, orb.Point{-(113 + 48.0/60 + 41.0/3600), 52 + 17.0/60 + 8.0/3600}},
		{"decimal with hemispheres", "51.05N 114.07W", orb.Point{-114.07, 51.05}},
		{"primes", "49°08′53″N 123°06′53″W", orb.Point{-(123 + 6.0/60 + 53.0/3600), 49 + 8.0/60 + 53.0/3600}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePoint(tc.in)
			if err != nil {
				t.Fatalf("ParsePoint(%q) error: %v", tc.in, err)
			}
			if math.Abs(got[0]-tc.want[0]) > 1e-9 || math.Abs(got[1]-tc.want[1]) > 1e-9 {
				t.Errorf("ParsePoint(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParsePointErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "  ", "-114.6", "-114.6,", "a,b", "1,2,3", "200,100", "NaN,5", "Inf,5", "-114,95",
		`52°17'08"N`, `52°75'08"N 113°48'41"W`, `52N 53N`, "100N 50W", "-5N 4W",
	} {
		_, err := ParsePoint(in)
		e := apierr.As(err)
		if e == nil || e.Code != "invalid_coordinates" || e.Kind != apierr.Invalid {
			t.Errorf("ParsePoint(%q) error = %v, want invalid_coordinates", in, err)
		}
	}
}

func FuzzParsePoint(f *testing.F) {
	for _, s := range []string{"-114.01924,51.077932", "51.07,-114.01", `52°17'08"N 113°48'41"W`, "1e308,1e308", "-0,0", "  9  9 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pt, err := ParsePoint(s)
		if err != nil {
			if apierr.As(err) == nil {
				t.Fatalf("ParsePoint(%q) error %v is not an apierr.Error", s, err)
			}
			return
		}
		if math.IsNaN(pt[0]) || math.IsNaN(pt[1]) || math.Abs(pt[0]) > 180 || math.Abs(pt[1]) > 90 {
			t.Fatalf("ParsePoint(%q) = %v, out of range", s, pt)
		}
	})
}
