package datafetch_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"meridian/shared/datafetch"
)

func TestManifestEntriesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, e := range datafetch.Manifest() {
		if e.Key == "" || seen[e.Key] {
			t.Errorf("key %q empty or repeated", e.Key)
		}
		seen[e.Key] = true
		kinds[e.Ingest.Kind]++
		if e.Publisher == "" || e.Product == "" || e.Licence == "" || e.Cadence == "" {
			t.Errorf("%s: publisher, product, licence and cadence are required: %+v", e.Key, e)
		}
		switch e.Ingest.Kind {
		case "grid":
			if !slices.Contains([]string{"ats", "mb", "sk", "on"}, e.Ingest.Format) {
				t.Errorf("%s: grid format %q", e.Key, e.Ingest.Format)
			}
		case "energy", "ag":
		default:
			t.Errorf("%s: ingest kind %q", e.Key, e.Ingest.Kind)
		}
		if !e.Access.Unattended() && e.Note == "" {
			t.Errorf("%s: access %s needs a note saying what the user does", e.Key, e.Access)
		}
		if len(e.Sources) == 0 {
			t.Errorf("%s: no sources", e.Key)
		}
		for _, x := range e.Expand(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) {
			if u, err := url.Parse(x.URL); err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("%s: URL %q is not an https URL", e.Key, x.URL)
			}
			if strings.Contains(x.URL+x.Name+strings.Join(x.Files, ""), "{") {
				t.Errorf("%s: placeholder left in %q %q %v", e.Key, x.URL, x.Name, x.Files)
			}
			if len(x.Files) == 0 || x.Name == "" {
				t.Errorf("%s: %s names no expected file or no file name", e.Key, x.URL)
			}
		}
	}
	for _, k := range []string{"grid", "energy", "ag"} {
		if kinds[k] == 0 {
			t.Errorf("no dataset read by ingest %s", k)
		}
	}
}

func TestExpandMonthly(t *testing.T) {
	e, ok := datafetch.Lookup("petrinex-volumetrics")
	if !ok {
		t.Fatal("no petrinex-volumetrics")
	}
	xs := e.Expand(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	if len(xs) != 14*3 {
		t.Fatalf("%d sources, want 14 months x 3 provinces", len(xs))
	}
	if xs[0].Period != "2026-10" || xs[len(xs)-1].Period != "2025-09" {
		t.Errorf("months %s..%s, want 2026-10..2025-09", xs[0].Period, xs[len(xs)-1].Period)
	}
	if xs[0].URL != "https://www.petrinex.gov.ab.ca/publicdata/API/Files/AB/Vol/2026-10/CSV" || xs[0].Files[0] != "Vol_2026-10-AB.csv" {
		t.Errorf("first source %s %v", xs[0].URL, xs[0].Files)
	}
}
