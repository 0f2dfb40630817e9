package agdemo

import "strings"

var demoMunicipalities = []struct {
	twps      []string
	uid, name string
	typ       string
	pr        string
}{
	{[]string{"24-1-W5", "25-1-W5"}, "4806901", "Demo County A", "MD", "48"},
	{[]string{"50-26-W4"}, "4811902", "Demo County B", "MD", "48"},
	{[]string{"48-7-W5"}, "4811903", "Demo County C", "MD", "48"},
	{[]string{"10-15-W4"}, "4802904", "Demo Municipal District D", "MD", "48"},
	{[]string{"10-14-W2"}, "4702905", "RM of Demo East No. 901", "RM", "47"},
	{[]string{"38-5-W3"}, "4711906", "RM of Demo West No. 902", "RM", "47"},
}

// demoMBMunicipalities are Manitoba's, in Manitoba's layout: MUNI_NAME,
// MUNI_TYPE, MUNI_LIST_NAME_WITH_TYPE.
var demoMBMunicipalities = []struct {
	twp, name, typ string
}{
	{"5-6-W1", "Demo South", "Municipality"},
	{"10-9-W1", "Demo Plains", "Rural Municipality"},
	{"14-26-W1", "Demo North", "Municipality"},
}

// municipalities writes AB and SK as Statistics Canada census
// subdivisions (CSDLayout) and Manitoba in its own layout
// (MBMunicipalLayout), each municipality marked DEMO=Y.
func (d *demo) municipalities() error {
	var g geoJSONWriter
	for _, m := range demoMunicipalities {
		b := demoBound(m.twps[0])
		for _, t := range m.twps[1:] {
			b = b.Union(demoBound(t))
		}
		g.add(b.ToPolygon(), prop{"CSDUID", m.uid}, prop{"CSDNAME", m.name}, prop{"CSDTYPE", m.typ}, prop{"PRUID", m.pr}, prop{"DEMO", "Y"})
	}
	if err := d.writeGeoJSON(Municipalities, &g); err != nil {
		return err
	}
	var mb geoJSONWriter
	for _, m := range demoMBMunicipalities {
		mb.add(demoBound(m.twp).ToPolygon(), prop{"MUNI_NAME", m.name}, prop{"MUNI_TYPE", m.typ},
			prop{"MUNI_LIST_NAME_WITH_TYPE", strings.ToUpper(m.name + " (" + m.typ + ")")}, prop{"DEMO", "Y"})
	}
	return d.writeGeoJSON(MBMunicipalities, &mb)
}
