package energydemo

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"meridian/shared/energy/energyingest"
)

// demoOrphanRow is one row of the OWA inventory.
type demoOrphanRow struct {
	site, licensee, licence, component, department, project string
}

func siteLSD(lsd, sec int, t *demoTownship) string {
	return fmt.Sprintf("%02d-%02d-%03d-%02dW%d", lsd, sec, t.Twp, t.Rge, t.Mer)
}

// addOrphans lists the orphan wells of the Alberta townships (their
// suspended or abandoned lines too in every other township), the two
// orphan facility sites and one mixed site (a well and a battery).
func (w *demoWorld) addOrphans() {
	for _, t := range w.townships {
		if t.Prov != "AB" {
			continue
		}
		var well *demoWell
		for _, d := range w.wells {
			if d.t == t && d.orphan {
				well = d
			}
		}
		o := op(t.defunct)
		dept, project := "Decommissioning", "Decommissioning"
		if well.status == "Abandoned" {
			dept, project = "Environment", []string{"Environment", "Environment", "Rec Cert"}[t.index%3]
		}
		site := siteLSD(well.u.LSD, well.u.Section, t) + " (1" + well.u.LE + ")"
		switch t.index {
		case 1, 5:
			site += " - WIPA"
		case 3:
			site = siteLSD(well.u.LSD, well.u.Section, t) + " (Multi) - MIXED"
		}
		w.orphans = append(w.orphans, demoOrphanRow{site, owaLicensee(o), well.licence, "Well & Access Road", dept, project})
		for _, f := range w.facilities {
			if f.t != t || !f.orphan {
				continue
			}
			fsite := siteLSD(f.lsd, f.sec, t) + " (Facility)"
			if f.lsd == well.u.LSD && f.sec == well.u.Section {
				fsite = site
			}
			w.orphans = append(w.orphans, demoOrphanRow{fsite, owaLicensee(o), f.licence, "Facility", "Decommissioning", "Decommissioning"})
		}
		if t.index%2 == 0 {
			for _, p := range w.pipelines {
				if p.get("BA_CODE") == t.defunct && p.get("FROM_LOC") == siteLSD(well.u.LSD, well.u.Section, t) {
					w.orphans = append(w.orphans, demoOrphanRow{site, owaLicensee(o), p.get("LICENCE_NO"), "Pipeline", dept, project})
				}
			}
		}
	}
}

// owaLicensee writes a licensee as the real inventory does: upper case,
// without the period of "LTD." ("LEXIN RESOURCES LTD").
func owaLicensee(o demoOperator) string { return strings.ReplaceAll(o.Upper(), ".", "") }

// orphanInventory renders the OWA workbook: a summary sheet, then "Full
// Inventory" with three title rows and a blank row above the header.
func (w *demoWorld) orphanInventory() ([]byte, error) {
	summary := [][]string{
		{"Orphan Well Association (demo data)"},
		{"Inventory date", "2026-11-01"},
		{"Rows", strconv.Itoa(len(w.orphans))},
	}
	inv := [][]string{
		{"Orphan Well Association"},
		{"Site Specific Inventory - Full Inventory"},
		{"Report generated 2026-11-01 13:41:42 (synthetic demo data)"},
		{},
		{"Site Name", "Licensee", "License Number", "Component Type", "Responsible Department", "Current Project Type"},
	}
	for _, r := range w.orphans {
		inv = append(inv, []string{r.site, r.licensee, r.licence, r.component, r.department, r.project})
	}
	return WriteXLSX([]Sheet{{"Summary", summary}, {energyingest.OWASheet, inv}}, time.Date(2026, 11, 1, 13, 41, 42, 0, time.UTC))
}

// baCodes renders the demo operators in the layout of the team's ST104A
// sample: "BA Code,Company Name", CRLF.
func (w *demoWorld) baCodes() []byte {
	codes := make([]string, 0, len(demoOperators))
	for c := range demoOperators {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var b bytes.Buffer
	b.WriteString("BA Code,Company Name\r\n")
	for _, c := range codes {
		name := demoOperators[c].Name
		if strings.ContainsAny(name, ",\"") {
			name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
		b.WriteString(c + "," + name + "\r\n")
	}
	return b.Bytes()
}
