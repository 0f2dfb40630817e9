package agapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ag"
	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/golden"
	"meridian/shared/kv"
	"meridian/shared/report"
	"meridian/shared/survey/grid"
)

func serve(t testing.TB, store kv.Store, target string) *httptest.ResponseRecorder {
	t.Helper()
	mux := api.NewMux()
	mux.Mount(NewHandler(store, grid.New()).Routes()...)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}

// decoded is a report as a client reads it.
type decoded struct {
	LegalLocation string                     `json:"legal_location"`
	Resolved      string                     `json:"resolved_legal_location"`
	Grain         string                     `json:"grain"`
	Province      string                     `json:"province"`
	Parcel        map[string]json.RawMessage `json:"parcel"`
	Meta          struct {
		Unavailable []report.Unavailable       `json:"unavailable"`
		Sources     map[string]json.RawMessage `json:"sources"`
	} `json:"meta"`
	all map[string]json.RawMessage
}

func decode(t testing.TB, body []byte) decoded {
	t.Helper()
	var d decoded
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if err := json.Unmarshal(body, &d.all); err != nil {
		t.Fatal(err)
	}
	return d
}

var allSections = []string{ag.SectionProductivity, ag.SectionCropping, ag.SectionSoil, ag.SectionLandUse, ag.SectionDrought, ag.SectionWetlands, ag.SectionHydrology, ag.SectionParcelContext, ag.SectionProvincialDetail}

// The golden reports of the demo data, with what each must show checked
// in code as well (a golden can be regenerated wrong; these cannot).
func TestReportGolden(t *testing.T) {
	t.Parallel()
	store := demoStore(t)
	tests := []struct {
		name, target string
		check        func(t *testing.T, d decoded)
	}{
		{"sk-every-section", "/ag/report?legal_location=NE-25-10-14-W2", func(t *testing.T, d decoded) {
			if len(d.Meta.Unavailable) != 0 || d.Province != "SK" || d.Grain != "quarter_section" {
				t.Errorf("unavailable %v, province %s, grain %s", d.Meta.Unavailable, d.Province, d.Grain)
			}
			for _, s := range allSections {
				if v, ok := d.all[s]; !ok || string(v) == "null" {
					t.Errorf("section %s = %s", s, v)
				}
			}
			var p ag.Provincial
			json.Unmarshal(d.all[ag.SectionProvincialDetail], &p)
			if p.CrownLand == nil || len(p.Soils) == 0 || len(p.Pastures) == 0 {
				t.Errorf("provincial_detail %s", d.all[ag.SectionProvincialDetail])
			}
			if string(d.Parcel["geometry"]) != "null" {
				t.Error("geometry without include=geometry")
			}
			for _, k := range []string{"productivity.lsrs", "productivity.cli", ag.SectionCropping, ag.SectionSoil, ag.SectionLandUse, ag.SectionDrought, ag.SectionWetlands, ag.SectionHydrology, ag.SectionParcelContext, ag.SectionProvincialDetail} {
				if _, ok := d.Meta.Sources[k]; !ok {
					t.Errorf("no meta.sources[%s]: %v", k, d.Meta.Sources)
				}
			}
		}},
		{"ab-full", "/ag/report?legal_location=nw%2025%2024%201%20w5m", func(t *testing.T, d decoded) {
			want := []report.Unavailable{{Section: ag.SectionProvincialDetail, Reason: report.ReasonNotPublished}}
			if diff := cmp.Diff(want, d.Meta.Unavailable); diff != "" || d.LegalLocation != "NW-25-24-1-W5" {
				t.Errorf("unavailable (-want +got):\n%s legal_location %s", diff, d.LegalLocation)
			}
			if string(d.all[ag.SectionProvincialDetail]) != "null" {
				t.Errorf("AB provincial_detail %s", d.all[ag.SectionProvincialDetail])
			}
			var area float64
			json.Unmarshal(d.Parcel["area_ha"], &area)
			if area < 60 || area > 70 {
				t.Errorf("area_ha %v", area)
			}
		}},
		{"sk-sections-unavailable", "/ag/report?legal_location=NE-19-50-20-W3", func(t *testing.T, d decoded) {
			want := []report.Unavailable{{Section: ag.SectionProductivity, Reason: report.ReasonNoData}, {Section: ag.SectionCropping, Reason: report.ReasonNoData}, {Section: ag.SectionDrought, Reason: report.ReasonNoData}, {Section: ag.SectionParcelContext, Reason: report.ReasonNoData}}
			if diff := cmp.Diff(want, d.Meta.Unavailable); diff != "" {
				t.Errorf("unavailable (-want +got):\n%s", diff)
			}
			for _, s := range []string{ag.SectionProductivity, ag.SectionCropping, ag.SectionDrought, ag.SectionParcelContext} {
				if v, ok := d.all[s]; !ok || string(v) != "null" {
					t.Errorf("section %s = %s, want null", s, v)
				}
			}
		}},
		{"ab-one-rating", "/ag/report?legal_location=NE-19-48-7-W5", func(t *testing.T, d decoded) {
			if !slices.Contains(d.Meta.Unavailable, report.Unavailable{Section: "productivity.cli", Reason: report.ReasonNoData}) {
				t.Errorf("unavailable %v", d.Meta.Unavailable)
			}
			var p struct{ LSRS, CLI json.RawMessage }
			json.Unmarshal(d.all[ag.SectionProductivity], &p)
			if string(p.CLI) != "null" || len(p.LSRS) < 5 {
				t.Errorf("productivity %s", d.all[ag.SectionProductivity])
			}
		}},
		{"lsd", "/ag/report?legal_location=LSD%2010-25-024-01W5", func(t *testing.T, d decoded) {
			if d.LegalLocation != "10-25-24-1-W5" || d.Resolved != "NE-25-24-1-W5" || d.Grain != "lsd" {
				t.Errorf("legal_location %s resolved %s grain %s", d.LegalLocation, d.Resolved, d.Grain)
			}
		}},
		{"projection", "/ag/report?legal_location=NW-25-24-1-W5&include=soil,%20drought,geometry", func(t *testing.T, d decoded) {
			for _, s := range allSections {
				if _, ok := d.all[s]; ok != (s == ag.SectionSoil || s == ag.SectionDrought) {
					t.Errorf("section %s present = %v", s, ok)
				}
			}
			var g struct {
				Type        string
				Coordinates [][][2]float64
			}
			if err := json.Unmarshal(d.Parcel["geometry"], &g); err != nil || g.Type != "Polygon" || len(g.Coordinates[0]) < 5 {
				t.Errorf("geometry %s", d.Parcel["geometry"])
			}
			if len(d.Meta.Sources) != 2 || len(d.Meta.Unavailable) != 0 {
				t.Errorf("meta %+v", d.Meta)
			}
		}},
		{"projection-provincial-ab", "/ag/report?legal_location=NW-25-24-1-W5&include=provincial_detail", func(t *testing.T, d decoded) {
			if diff := cmp.Diff([]report.Unavailable{{Section: ag.SectionProvincialDetail, Reason: report.ReasonNotPublished}}, d.Meta.Unavailable); diff != "" {
				t.Errorf("unavailable (-want +got):\n%s", diff)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, store, tc.target)
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("GET %s = %d %s", tc.target, w.Code, w.Body)
			}
			tc.check(t, decode(t, w.Body.Bytes()))
			if err := golden.Compare("ag/"+tc.name, w.Body.Bytes()); err != nil {
				t.Errorf("GET %s: %v", tc.target, err)
			}
		})
	}
}

// counting records the reads that reach the store.
type counting struct {
	kv.Store
	mu    sync.Mutex
	gets  []kv.Key
	pages []string
	fail  func(pk string) error
}

func (c *counting) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	c.mu.Lock()
	c.gets = append(c.gets, kv.Key{PK: pk, SK: sk})
	c.mu.Unlock()
	if c.fail != nil {
		if err := c.fail(pk); err != nil {
			return kv.Item{}, false, err
		}
	}
	return c.Store.Get(ctx, pk, sk)
}

func (c *counting) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	c.mu.Lock()
	c.pages = append(c.pages, q.PK)
	c.mu.Unlock()
	if c.fail != nil {
		if err := c.fail(q.PK); err != nil {
			return kv.Page{}, err
		}
	}
	return c.Store.Query(ctx, q)
}

// The sections an include leaves out are never read.
func TestProjectionReadsOnlyIncluded(t *testing.T) {
	t.Parallel()
	store := &counting{Store: demoStore(t)}
	h := NewHandler(store, grid.New())
	mux := api.NewMux()
	mux.Mount(h.Routes()...)
	get := func(target string) {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		if w.Code != 200 {
			t.Fatalf("GET %s = %d %s", target, w.Code, w.Body)
		}
	}
	get("/ag/report?legal_location=SE-1-10-14-W2&include=soil,drought")
	quarter := func() (sks []string, queried bool) {
		for _, k := range store.gets {
			if strings.HasSuffix(k.PK, "#QS#SE-1-10-14-W2") {
				sks = append(sks, k.SK)
			}
		}
		for _, pk := range store.pages {
			queried = queried || strings.Contains(pk, "QS#")
		}
		slices.Sort(sks)
		return sks, queried
	}
	if sks, queried := quarter(); !slices.Equal(sks, []string{ag.SKDrought, ag.SKSoil}) || queried {
		t.Errorf("items read %v (partition queried %v), want [DROUGHT SOIL] only", sks, queried)
	}
	t.Logf("projection: %d gets %v, %d queries %v", len(store.gets), store.gets, len(store.pages), store.pages)

	// Sources are read once per dataset version.
	store.gets, store.pages = nil, nil
	get("/ag/report?legal_location=SE-1-10-14-W2&include=wetlands")
	if slices.ContainsFunc(store.pages, func(pk string) bool { return strings.HasSuffix(pk, ag.PKSources) }) {
		t.Errorf("sources read again: %v", store.pages)
	}
	if sks, queried := quarter(); !slices.Equal(sks, []string{ag.SKWetlands}) || queried {
		t.Errorf("items read %v (partition queried %v)", sks, queried)
	}
	// AB provincial detail is not published: not read.
	store.gets, store.pages = nil, nil
	get("/ag/report?legal_location=NW-25-24-1-W5&include=provincial_detail,soil")
	for _, k := range store.gets {
		if k.SK == ag.SKProvincial {
			t.Errorf("read %v", k)
		}
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	store := demoStore(t)
	tests := []struct {
		name, query string
		status      int
		code        string
	}{
		{"missing", "", 400, "invalid_parameter"},
		{"blank", "legal_location=%20", 400, "invalid_parameter"},
		{"garbage", "legal_location=not%20a%20location", 400, "invalid_legal_location"},
		{"section", "legal_location=25-24-1-W5", 400, "invalid_legal_location"},
		{"township", "legal_location=TWP%2024-1-W5", 400, "invalid_legal_location"},
		{"half section", "legal_location=N-36-42-3-W5", 400, "invalid_legal_location"},
		{"river lot", "legal_location=RL-22-St.%20Norbert", 400, "invalid_legal_location"},
		{"ontario", "legal_location=Lot%2010%20Con%201%20Adjala", 400, "invalid_legal_location"},
		{"bad section number", "legal_location=NW-37-24-1-W5", 400, "invalid_legal_location"},
		{"nts", "legal_location=A-2-F/93-P-8", 400, "bc_not_supported"},
		{"bc dls", "legal_location=NE-10-80-15-W6", 400, "bc_not_supported"},
		{"unknown include", "legal_location=NW-25-24-1-W5&include=soil,weather", 400, "invalid_parameter"},
		{"v1 geometry include", "legal_location=NW-25-24-1-W5&include=true", 400, "invalid_parameter"},
		{"empty include", "legal_location=NW-25-24-1-W5&include=%20,", 400, "invalid_parameter"},
		{"no data", "legal_location=NW-1-1-1-W4", 404, "not_found"},
		{"no data projection", "legal_location=NW-1-1-1-W4&include=geometry", 404, "not_found"},
		{"no data lsd", "legal_location=1-1-1-1-W4&include=soil", 404, "not_found"},
		{"outside grid", "legal_location=NW-36-126-30-W4", 404, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, store, "/ag/report?"+tc.query)
			var body struct {
				Error struct{ Code, Message string }
			}
			json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != tc.status || body.Error.Code != tc.code {
				t.Errorf("GET ?%s = %d %s, want %d %s", tc.query, w.Code, w.Body, tc.status, tc.code)
			}
		})
	}
	w := serve(t, store, "/ag/report?legal_location=NW-1-1-1-W4")
	if !strings.Contains(w.Body.String(), `"message":"No agriculture data"`) {
		t.Errorf("404 body %s", w.Body)
	}
	w = serve(t, store, "/ag/report?legal_location=NE-10-80-15-W6")
	if !strings.Contains(w.Body.String(), `"message":"BC locations are not yet supported"`) {
		t.Errorf("400 body %s", w.Body)
	}
}

// A quarter whose requested sections are all missing but which has other
// data is a report of nulls, not a 404.
func TestProjectionOfMissingSections(t *testing.T) {
	t.Parallel()
	w := serve(t, demoStore(t), "/ag/report?legal_location=NE-19-50-20-W3&include=drought,cropping")
	d := decode(t, w.Body.Bytes())
	if w.Code != 200 || len(d.Meta.Unavailable) != 2 || string(d.all[ag.SectionDrought]) != "null" {
		t.Errorf("= %d %s", w.Code, w.Body)
	}
}

func TestStoreFailure(t *testing.T) {
	t.Parallel()
	down := apierr.Unavailablef(fmt.Errorf("test: %w", kv.ErrUnavailable), "report store unavailable")
	for _, fail := range []string{kv.DatasetPK, "QS#", "SOURCES"} {
		t.Run(fail, func(t *testing.T) {
			t.Parallel()
			// A fresh handler each time, so that sources are not cached.
			store := &counting{Store: demoStore(t), fail: func(pk string) error {
				if strings.Contains(pk, fail) {
					return down
				}
				return nil
			}}
			for _, q := range []string{"", "&include=soil"} {
				w := serve(t, store, "/ag/report?legal_location=NW-25-24-1-W5"+q)
				if w.Code != 503 || !strings.Contains(w.Body.String(), `"code":"upstream_unavailable"`) {
					t.Errorf("store down at %s: %d %s", fail, w.Code, w.Body)
				}
			}
		})
	}
}

func TestNotPublished(t *testing.T) {
	t.Parallel()
	w := serve(t, kv.NewMem(), "/ag/report?legal_location=NW-25-24-1-W5")
	if w.Code != 404 {
		t.Errorf("empty store: %d %s", w.Code, w.Body)
	}
}

// quarterStore is a memory store whose agriculture dataset put wrote,
// with the key of NW-25-24-1-W5's partition.
func quarterStore(t *testing.T, put func(w *kv.Writer, pk string) error) kv.Store {
	t.Helper()
	store := kv.NewMem()
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: ag.Dataset}, func(w *kv.Writer) error {
		return put(w, ag.QuarterKey("NW-25-24-1-W5"))
	})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// A stored item that is not JSON is a null section with reason
// source_error, never a 500; a SOURCES item that is not JSON is left out
// of meta.sources.
func TestCorruptItem(t *testing.T) {
	t.Parallel()
	store := quarterStore(t, func(w *kv.Writer, pk string) error {
		return errors.Join(
			w.PutRaw(pk, ag.SKSoil, []byte(`{"classification":`)),
			w.Put(pk, ag.SKDrought, ag.Drought{Class: "D1", SeverityLabel: "Moderate Drought", AsOf: "2025-07"}),
			w.PutRaw(ag.PKSources, "soil", []byte(`{"name":"x","as_of":"2025"}`)),
			w.PutRaw(ag.PKSources, "drought", []byte(`{"name":"y",`)), // not JSON: left out
		)
	})
	w := serve(t, store, "/ag/report?legal_location=NW-25-24-1-W5&include=soil,drought")
	d := decode(t, w.Body.Bytes())
	if w.Code != 200 || string(d.all[ag.SectionSoil]) != "null" || !slices.Contains(d.Meta.Unavailable, report.Unavailable{Section: ag.SectionSoil, Reason: report.ReasonSourceError}) ||
		!strings.Contains(string(d.all[ag.SectionDrought]), `"D1"`) || !strings.Contains(w.Body.String(), `"soil":{"name":"x"`) || strings.Contains(w.Body.String(), `"y"`) {
		t.Errorf("= %d %s", w.Code, w.Body)
	}
}

// Stored items and sources with whitespace are served compacted, as
// encoding/json writes a json.RawMessage: the report reads them once and
// says its sections are compact, and the writer trusts it.
func TestSpacedItemsCompacted(t *testing.T) {
	t.Parallel()
	store := quarterStore(t, func(w *kv.Writer, pk string) error {
		return errors.Join(
			w.PutRaw(pk, ag.SKSoil, []byte("{ \"classification\" :\t\"Chernozem, \\\" x y\" ,\n \"n\": [1, 2] }")),
			w.PutRaw(pk, ag.SKDrought, []byte(`{"class":"D1"}`)),
			w.PutRaw(ag.PKSources, "soil", []byte(`{ "name" : "x y", "as_of": "2025" }`)),
		)
	})
	w := serve(t, store, "/ag/report?legal_location=NW-25-24-1-W5&include=soil,drought")
	body := w.Body.String()
	for _, want := range []string{`"soil":{"classification":"Chernozem, \" x y","n":[1,2]}`, `"soil":{"name":"x y","as_of":"2025"}`, `"drought":{"class":"D1"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("%d %s: no %s", w.Code, body, want)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	doc, err := api.OpenAPI(api.Info{Title: "t", Version: "1"}, NewHandler(kv.NewMem(), grid.New()).Routes())
	if err != nil || !bytes.Contains(doc, []byte("/ag/report")) {
		t.Errorf("OpenAPI: %v", err)
	}
}

func BenchmarkReport(b *testing.B) {
	store := demoStore(b)
	mux := api.NewMux()
	mux.Mount(NewHandler(store, grid.New()).Routes()...)
	for _, bc := range []struct{ name, target string }{
		{"full", "/ag/report?legal_location=NE-25-10-14-W2"},
		{"projection", "/ag/report?legal_location=NE-25-10-14-W2&include=geometry,soil,drought"},
		{"lsd", "/ag/report?legal_location=10-25-10-14-W2"},
	} {
		target := bc.target
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			for b.Loop() {
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// A full agriculture report reads the dataset pointer and the quarter's
// partition: two store round trips (on DynamoDB, a strongly consistent
// GetItem and one Query), plus the sources once per dataset version. A
// projection reads the pointer, then its items at once (concurrent Gets:
// one round trip of waiting).
func TestReportRoundTrips(t *testing.T) {
	t.Parallel()
	store := &counting{Store: demoStore(t)}
	mux := api.NewMux()
	mux.Mount(NewHandler(store, grid.New()).Routes()...) // one handler: it keeps the sources
	get := func(target string) []byte {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		if w.Code != 200 {
			t.Fatalf("GET %s = %d %s", target, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	reads := func() (gets, queries int) {
		store.mu.Lock()
		defer store.mu.Unlock()
		gets, queries = len(store.gets), len(store.pages)
		store.gets, store.pages = nil, nil
		return gets, queries
	}
	const target = "/ag/report?legal_location=SE-1-10-14-W2"
	first := get(target)
	g1, q1 := reads()
	second := get(target)
	g2, q2 := reads()
	if g1 != 1 || q1 != 2 {
		t.Errorf("first full report: %d gets and %d queries, want 1 (pointer) and 2 (partition, sources)", g1, q1)
	}
	if g2 != 1 || q2 != 1 {
		t.Errorf("full report: %d gets and %d queries, want 1 (pointer) and 1 (partition)", g2, q2)
	}
	if !bytes.Equal(first, second) {
		t.Error("the second report differs from the first")
	}
	get("/ag/report?legal_location=SE-1-10-14-W2&include=soil,drought")
	if g, q := reads(); g != 3 || q != 0 {
		t.Errorf("projection of two sections: %d gets and %d queries, want 3 gets (pointer, then two at once)", g, q)
	}
}
