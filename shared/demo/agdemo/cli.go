package agdemo

import (
	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest/shp"
)

// demoCLI are the CLI polygons: township, sections (all when nil) and
// Class_A, Percent_A, Subclas_A1, Subclas_A2, then the same for B and C.
var demoCLI = []struct {
	twp   string
	secs  []int
	attrs [12]string
}{
	{"24-1-W5", nil, [12]string{"3", "7", "T", "C", "4", "3", "T", "", "", "", "", ""}},
	{"25-1-W5", nil, [12]string{"4", "", "C", "T", "", "", "", "", "", "", "", ""}},
	{"50-26-W4", nil, [12]string{"2", "10", "C", "", "", "", "", "", "", "", "", ""}},
	{"48-7-W5", demoRange(1, 18), [12]string{"4", "6", "W", "", "5", "4", "W", "", "", "", "", ""}},
	{"48-7-W5", demoRange(19, 36), [12]string{"O", "10", "", "", "", "", "", "", "", "", "", ""}},
	{"10-15-W4", nil, [12]string{"3", "8", "M", "", "5", "2", "N", "", "", "", "", ""}},
	{"10-14-W2", nil, [12]string{"2", "10", "M", "", "", "", "", "", "", "", "", ""}},
	{"38-5-W3", nil, [12]string{"3", "6", "M", "", "4", "3", "T", "", "5", "1", "W", ""}},
	{"5-6-W1", nil, [12]string{"2", "10", "W", "D", "", "", "", "", "", "", "", ""}},
	{"10-9-W1", nil, [12]string{"1", "10", "", "", "", "", "", "", "", "", "", ""}},
}

// cliFields are the fields of AAFC's CLI layout (CLIServiceLayout):
// CLASS_A…CLASS_F, PERCENT_A…PERCENT_F, SUBCLAS_A1…SUBCLAS_D2.
func cliFields() []shp.Field {
	letters := agingest.CLIComponentLetters()
	var fields []shp.Field
	for _, x := range letters {
		fields = append(fields, cField("CLASS_"+x, 1))
	}
	for _, x := range letters {
		fields = append(fields, nField("PERCENT_"+x, 2, 0))
	}
	for _, x := range letters[:4] {
		fields = append(fields, cField("SUBCLAS_"+x+"1", 1), cField("SUBCLAS_"+x+"2", 1))
	}
	return fields
}

// cli writes the CLI in the layout of AAFC's cli_agr_cap_250k service
// (CLIServiceLayout): CLASS_A…CLASS_F, PERCENT_A…PERCENT_F,
// SUBCLAS_A1…SUBCLAS_D2, components D to F empty here.
func (d *demo) cli() error {
	return d.shapefile(CLI, shp.Polygon, cliFields(), func(add func(orb.Geometry, ...string) error) error {
		for _, c := range demoCLI {
			b := demoBound(c.twp)
			if c.secs != nil {
				b = demoSections(c.twp, c.secs...)
			}
			vals := make([]string, 20)
			for i := range 3 { // components A to C of the table
				vals[i], vals[6+i], vals[12+2*i], vals[13+2*i] = c.attrs[4*i], c.attrs[4*i+1], c.attrs[4*i+2], c.attrs[4*i+3]
			}
			if err := add(b.ToPolygon(), vals...); err != nil {
				return err
			}
		}
		return nil
	})
}
