package energyapi_test

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

const synthLSD = "6-12-30-5-W4"

// synthetic publishes an LSD with many rows of every list, so that paging
// crosses pages.
func synthetic(t testing.TB) *kv.Mem {
	t.Helper()
	store := kv.NewMem()
	buckets := []energy.Bucket{energy.Active, energy.Suspended, energy.Abandoned, energy.Orphan}
	names := []string{"Alpha Energy", "beta oil", "Gamma Gas"}
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		pk := energy.LSDKey(synthLSD)
		for i := range 37 {
			b := buckets[i%4]
			uwi := fmt.Sprintf("100/06-12-030-05W4/%02d", i)
			row := energy.WellRow{ID: uwi, UWI: uwi, Status: b, Operator: energy.NewParty("", names[i%3]), TotalDepthM: float64((i * 37) % 11)}
			if err := w.Put(pk, energy.WellSK(b, uwi), row); err != nil {
				return err
			}
		}
		for i := range 23 {
			h2s, l := float64(i%5), float64(i%7)
			row := energy.PipelineRow{ID: fmt.Sprint(900000 + i), Substance: []string{"Natural Gas", "Crude Oil"}[i%2], Status: []string{"operating", "discontinued"}[i%2],
				Operator: energy.NewParty("", names[i%3]), H2SPct: &h2s, LengthMOnParcel: &l}
			if i%6 == 0 {
				row.H2SPct = nil
			}
			if err := w.Put(pk, energy.PipeSK(h2s, row.ID), row); err != nil {
				return err
			}
		}
		for i := range 11 {
			row := energy.FacilityRow{ID: fmt.Sprintf("ABBT%04d", i), FacilityName: names[i%3] + " battery", Category: []string{"battery", "gas plant"}[i%2],
				Status: []string{"active", "suspended"}[i%2], FacilityStatusRaw: []string{"ACTIVE", "SUSPENDED"}[i%2], Operator: energy.NewParty("", names[i%3])}
			if err := w.Put(pk, energy.FacilitySK(i%2, row.ID), row); err != nil {
				return err
			}
		}
		for i := range 29 {
			id := fmt.Sprintf("05%08d", i)
			area := float64(100 + i%9)
			row := energy.TenureRow{ID: id, TenureKind: []string{"png", "mineral"}[i%2], Status: "active", Holder: energy.NewParty("", names[i%3]), AreaHa: &area}
			exp := demodata.AsOf().AddDate(0, 0, i*90-300).Format("2006-01-02")
			if i%5 == 0 {
				row.ExpiryState = "perpetual"
			} else {
				row.ExpiryDate = &exp
			}
			if err := w.Put(pk, energy.TenureSK(exp, id), row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func num(v any) float64 {
	f, ok := v.(float64)
	if !ok {
		return -1 // null lowest
	}
	return f
}

var urgency = map[string]int{"expires_today": 0, "expiring_soon": 0, "active": 1, "expired": 2}

func urg(r map[string]any) int {
	if u, ok := urgency[str(r["expiry_state"])]; ok {
		return u
	}
	return 3
}

func expiry(r map[string]any) string {
	if r["expiry_date"] == nil {
		return "9999-12-31"
	}
	return str(r["expiry_date"])
}

// sortKeys compare two rows by a list's sort key (ties allowed).
var sortKeys = map[string]map[string]func(a, b map[string]any) int{
	"wells": {
		"id":     func(a, b map[string]any) int { return cmp.Compare(str(a["id"]), str(b["id"])) },
		"status": func(a, b map[string]any) int { return cmp.Compare(rank(a), rank(b)) },
		"operator": func(a, b map[string]any) int {
			return cmp.Compare(strings.ToLower(str(at(a, "operator", "name"))), strings.ToLower(str(at(b, "operator", "name"))))
		},
		"depth": func(a, b map[string]any) int { return cmp.Compare(num(a["total_depth_m"]), num(b["total_depth_m"])) },
	},
	"pipelines": {
		"id":  func(a, b map[string]any) int { return cmp.Compare(str(a["id"]), str(b["id"])) },
		"h2s": func(a, b map[string]any) int { return cmp.Compare(num(a["h2s_pct"]), num(b["h2s_pct"])) },
		"length": func(a, b map[string]any) int {
			return cmp.Compare(num(a["length_m_on_parcel"]), num(b["length_m_on_parcel"]))
		},
	},
	"facilities": {
		"id": func(a, b map[string]any) int { return cmp.Compare(str(a["id"]), str(b["id"])) },
		"name": func(a, b map[string]any) int {
			return cmp.Compare(strings.ToLower(str(a["facility_name"])), strings.ToLower(str(b["facility_name"])))
		},
		"status": func(a, b map[string]any) int {
			return boolCmp(str(a["status"]) != "active", str(b["status"]) != "active")
		},
	},
	"tenure": {
		"id":     func(a, b map[string]any) int { return cmp.Compare(str(a["id"]), str(b["id"])) },
		"expiry": func(a, b map[string]any) int { return cmp.Compare(expiry(a), expiry(b)) },
		"area":   func(a, b map[string]any) int { return cmp.Compare(num(a["area_ha"]), num(b["area_ha"])) },
		"urgency": func(a, b map[string]any) int {
			return cmp.Or(cmp.Compare(urg(a), urg(b)), cmp.Compare(expiry(a), expiry(b)))
		},
	},
}

func rank(r map[string]any) int {
	return energy.Bucket(str(r["status"])).Rank()
}

func boolCmp(a, b bool) int {
	if a == b {
		return 0
	}
	if !a {
		return -1
	}
	return 1
}

// filters are a query per list and the predicate every row must satisfy.
var filters = map[string][]struct {
	query string
	holds func(r map[string]any) bool
}{
	"wells": {{"", nil}, {"&status=orphan", func(r map[string]any) bool { return r["status"] == "orphan" }},
		{"&operator=BETA", func(r map[string]any) bool { return str(at(r, "operator", "name")) == "beta oil" }}},
	"pipelines": {{"", nil}, {"&substance=gas", func(r map[string]any) bool { return strings.Contains(str(r["substance"]), "Gas") }},
		{"&status=OPERATING", func(r map[string]any) bool { return r["status"] == "operating" }}},
	"facilities": {{"", nil}, {"&category=Gas%20Plant", func(r map[string]any) bool { return r["category"] == "gas plant" }},
		{"&status=suspended&operator=alpha", func(r map[string]any) bool {
			return r["status"] == "suspended" && at(r, "operator", "name") == "Alpha Energy"
		}}},
	"tenure": {{"", nil}, {"&tenure_kind=mineral", func(r map[string]any) bool { return r["tenure_kind"] == "mineral" }},
		{"&expires_within_days=400", func(r map[string]any) bool { d := num(r["days_to_expiry"]); return d >= 0 && d <= 400 }}},
}

func TestListProperties(t *testing.T) {
	t.Parallel()
	h := mux(synthetic(t), demodata.AsOf())
	for list, sorts := range sortKeys {
		for sort, by := range sorts {
			for _, dir := range []string{"", "asc", "desc"} {
				for _, f := range filters[list] {
					for _, per := range []int{1, 7, 200} {
						base := fmt.Sprintf("/energy/%s?legal_location=%s&sort=%s&per_page=%d%s", list, synthLSD, sort, per, f.query)
						if dir != "" {
							base += "&dir=" + dir
						}
						var all []map[string]any
						total := -1.0
						gotDir := ""
						for page := 1; ; page++ {
							b := mustOK(t, h, fmt.Sprintf("%s&page=%d", base, page))
							total, gotDir = at(b, "meta", "total").(float64), str(at(b, "meta", "dir"))
							rows := at(b, "rows").([]any)
							if len(rows) > per {
								t.Fatalf("%s page %d: %d rows", base, page, len(rows))
							}
							for _, r := range rows {
								all = append(all, r.(map[string]any))
							}
							if len(rows) < per || page*per >= int(total) {
								if len(all) < int(total) {
									t.Fatalf("%s: stopped at %d of %d", base, len(all), int(total))
								}
								break
							}
						}
						if float64(len(all)) != total || total == 0 {
							t.Errorf("%s: %d rows over pages, total %v", base, len(all), total)
						}
						for i, r := range all {
							if f.holds != nil && !f.holds(r) {
								t.Errorf("%s: row %v breaks the filter", base, r)
							}
							if i > 0 {
								c := by(all[i-1], r)
								if (gotDir == "asc" && c > 0) || (gotDir == "desc" && c < 0) {
									t.Errorf("%s: rows %d,%d out of %s order: %v then %v", base, i-1, i, gotDir, all[i-1], r)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestReportTruncation(t *testing.T) {
	t.Parallel()
	h := mux(synthetic(t), demodata.AsOf())
	r := mustOK(t, h, "/energy/report?legal_location="+synthLSD)
	for _, s := range []string{"wells", "pipelines", "facilities", "tenure"} {
		total, returned := at(r, s, "total").(float64), at(r, s, "returned").(float64)
		if returned != float64(len(at(r, s, "rows").([]any))) || at(r, s, "truncated") != (returned < total) {
			t.Errorf("%s section: %v", s, at(r, s))
		}
	}
	if at(r, "wells", "truncated") != true || at(r, "facilities", "truncated") != false {
		t.Errorf("truncation: wells %v facilities %v", at(r, "wells", "truncated"), at(r, "facilities", "truncated"))
	}
}

func BenchmarkReport(b *testing.B) {
	h := mux(demo(b), demodata.AsOf())
	for b.Loop() {
		mustOK(b, h, "/energy/report?legal_location="+lsd)
	}
}

func BenchmarkReportSynthetic(b *testing.B) {
	h := mux(synthetic(b), demodata.AsOf())
	for b.Loop() {
		mustOK(b, h, "/energy/report?legal_location="+synthLSD)
	}
}
