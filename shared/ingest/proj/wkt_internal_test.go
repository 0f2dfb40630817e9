package proj

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseWKT(t *testing.T) {
	t.Parallel()
	got, err := parseWKT(` unit ["a ""b""", -1.5e3, EAST, ID("EPSG", 4326)] `)
	if err != nil {
		t.Fatal(err)
	}
	want := &wktNode{keyword: "UNIT", args: []wktArg{
		{text: `a "b"`, quoted: true},
		{num: -1500, isNum: true, text: "-1.5e3"},
		{text: "EAST"},
		{node: &wktNode{keyword: "ID", args: []wktArg{
			{text: "EPSG", quoted: true},
			{num: 4326, isNum: true, text: "4326"},
		}}},
	}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(wktNode{}, wktArg{})); diff != "" {
		t.Errorf("parseWKT mismatch (-want +got):\n%s", diff)
	}
	if got.name() != `a "b"` {
		t.Errorf("name() = %q", got.name())
	}
	if v, ok := got.child("ID").number(1); !ok || v != 4326 {
		t.Errorf("child(ID).number(1) = %v, %v; want 4326, true", v, ok)
	}
	if _, ok := got.number(2); ok {
		t.Errorf("number(2) of a bare word succeeded")
	}
	var nilNode *wktNode
	if nilNode.child("X") != nil || nilNode.name() != "" || nilNode.children("X") != nil {
		t.Errorf("methods of a nil node should return zero values")
	}
}

func TestNormName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"NAD_1983_UTM_Zone_13N", "nad1983utmzone13n"},
		{"NAD83 / UTM zone 13N", "nad83utmzone13n"},
		{"NAD83(CSRS) / UTM zone 13N", "nad83csrsutmzone13n"},
		{"Popular Visualisation Pseudo Mercator", "popularvisualisationpseudomercator"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := normName(tc.in); got != tc.want {
			t.Errorf("normName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
