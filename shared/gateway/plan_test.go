package gateway_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/gateway"
)

func TestDefaultPlans(t *testing.T) {
	t.Parallel()
	plans := gateway.DefaultPlans()
	if err := plans.Validate(); err != nil {
		t.Fatalf("DefaultPlans().Validate() = %v, want nil", err)
	}
	// The spec's Limits table; ag and energy are ours (configuration).
	tests := []struct {
		product gateway.Product
		want    gateway.Plan
	}{
		{gateway.Search, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 5, MonthlyQuota: 1000}},
		{gateway.Autocomplete, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 5, MonthlyQuota: 1000}},
		{gateway.Batch, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 2, MonthlyQuota: 1000}},
		{gateway.Maps, gateway.Plan{Name: "default", MonthlyQuota: 10000}},
		{gateway.Ag, gateway.Plan{Name: "default", RatePerSecond: 5, Burst: 10, MonthlyQuota: 1000}},
		{gateway.Energy, gateway.Plan{Name: "default", RatePerSecond: 5, Burst: 10, MonthlyQuota: 1000}},
	}
	for _, tc := range tests {
		t.Run(tc.product.String(), func(t *testing.T) {
			got, ok := plans.Lookup(tc.product, gateway.DefaultPlan)
			if !ok {
				t.Fatalf("Lookup(%v, default) found nothing", tc.product)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("default plan of %v (-want +got):\n%s", tc.product, diff)
			}
			got, ok = plans.Lookup(tc.product, gateway.UnlimitedPlan)
			if want := (gateway.Plan{Name: "unlimited"}); !ok || got != want {
				t.Errorf("Lookup(%v, unlimited) = %+v, %v, want %+v, true", tc.product, got, ok, want)
			}
		})
	}
	if got, want := len(plans), len(gateway.Products()); got != want {
		t.Errorf("DefaultPlans has %d products, want %d", got, want)
	}
	// Each call is a fresh copy.
	plans[gateway.Search][0].MonthlyQuota = 1
	if got := gateway.DefaultPlans()[gateway.Search][0].MonthlyQuota; got != 1000 {
		t.Errorf("after changing a copy, DefaultPlans search quota = %d, want 1000", got)
	}
}

func TestProductOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path   string
		want   gateway.Product
		wantOK bool
	}{
		{"/search/legal-location", gateway.Search, true},
		{"/search/coordinates", gateway.Search, true},
		{"/search", gateway.Search, true},
		{"/autocomplete/legal-location", gateway.Autocomplete, true},
		{"/batch/legal-location", gateway.Batch, true},
		{"/batch/coordinates", gateway.Batch, true},
		{"/tiles/ab/dls-sections/10/200/300.mvt", gateway.Maps, true},
		{"/tiles/ag/soil.json", gateway.Maps, true},
		{"/ag/report", gateway.Ag, true},
		{"/energy/wells", gateway.Energy, true},
		{"/energy/operators/ACME%20Energy", gateway.Energy, true},
		{"/energy/changes", gateway.Changes, true},
		{"/energy/changes/", gateway.Changes, true},
		{"/energy/changesets", gateway.Energy, true}, // not the route: the energy product's 404
		{"/energy//changes", gateway.Changes, true},  // cleaned first
		{"/watches", gateway.Changes, true},
		{"/watches/w_1/deliveries", gateway.Changes, true},
		{"/assets/../search//legal-location", gateway.Search, true}, // cleaned first
		{"/", 0, false},
		{"", 0, false},
		{"/openapi.json", 0, false},
		{"/healthz", 0, false},
		{"/assets/map.js", 0, false},
		{"/index.html", 0, false},
		{"/searchable", 0, false},
		{"/Search/legal-location", 0, false}, // routes are case-sensitive
		{"/maps/x", 0, false},                // maps are served under /tiles
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, ok := gateway.ProductOf(tc.path)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("ProductOf(%q) = %v, %v, want %v, %v", tc.path, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestProductNames(t *testing.T) {
	t.Parallel()
	want := []string{"search", "autocomplete", "batch", "maps", "ag", "energy", "changes"}
	var got []string
	for _, p := range gateway.Products() {
		got = append(got, p.String())
		back, err := gateway.ParseProduct(p.String())
		if err != nil || back != p {
			t.Errorf("ParseProduct(%q) = %v, %v, want %v, nil", p, back, err, p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("product names (-want +got):\n%s", diff)
	}
	if _, err := gateway.ParseProduct("tiles"); err == nil {
		t.Errorf(`ParseProduct("tiles") = nil error, want an error`)
	}
	// Products are JSON map keys by name.
	b, err := json.Marshal(map[gateway.Product]int{gateway.Maps: 1})
	if err != nil || string(b) != `{"maps":1}` {
		t.Errorf("json.Marshal(map{Maps: 1}) = %s, %v, want {\"maps\":1}", b, err)
	}
	var m map[gateway.Product]int
	if err := json.Unmarshal([]byte(`{"energy":2}`), &m); err != nil || m[gateway.Energy] != 2 {
		t.Errorf(`json.Unmarshal({"energy":2}) = %v, %v, want map[energy:2]`, m, err)
	}
}

func TestPlansValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plan    gateway.Plan
		wantErr string // "" means valid
	}{
		{"default plan", gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 1}, ""},
		{"fractional rate", gateway.Plan{Name: "slow", RatePerSecond: 0.1, Burst: 1}, ""},
		{"no name", gateway.Plan{RatePerSecond: 1, Burst: 1}, "has no name"},
		{"rate without burst", gateway.Plan{Name: "x", RatePerSecond: 1}, "burst 0 must be at least 1"},
		{"negative rate", gateway.Plan{Name: "x", RatePerSecond: -1}, "rate_per_second -1"},
		{"negative quota", gateway.Plan{Name: "x", MonthlyQuota: -5}, "monthly_quota -5"},
		{"negative burst", gateway.Plan{Name: "x", Burst: -1}, "burst -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := plansWith(gateway.Search, tc.plan).Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
	dup := gateway.DefaultPlans()
	dup[gateway.Maps] = append(dup[gateway.Maps], gateway.Plan{Name: "default"})
	if err := dup.Validate(); err == nil || !strings.Contains(err.Error(), "maps/default is defined twice") {
		t.Errorf("Validate() with two maps/default = %v, want a duplicate error", err)
	}
}

func TestLoadPlans(t *testing.T) {
	t.Parallel()
	pro := gateway.Plan{Name: "pro", RatePerSecond: 10, Burst: 20, MonthlyQuota: 100000}
	overridden := plansWith(gateway.Search, pro)
	overridden[gateway.Ag][0] = gateway.Plan{Name: "default", RatePerSecond: 2, Burst: 4, MonthlyQuota: 500}
	tests := []struct {
		name    string
		file    string // "" means no file
		want    gateway.Plans
		wantErr string
	}{
		{name: "no file", want: gateway.DefaultPlans()},
		{
			name: "override and add",
			file: `{"ag": [{"name": "default", "rate_per_second": 2, "burst": 4, "monthly_quota": 500}],
			        "search": [{"name": "pro", "rate_per_second": 10, "burst": 20, "monthly_quota": 100000}]}`,
			want: overridden,
		},
		{name: "bad json", file: `{"ag": [`, wantErr: "parse plans"},
		{name: "unknown product", file: `{"weather": []}`, wantErr: `unknown product "weather"`},
		{name: "invalid plan", file: `{"ag": [{"name": "default", "rate_per_second": 2}]}`, wantErr: "ag/default: burst 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), gateway.PlansFile)
			if tc.file != "" {
				if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := gateway.LoadPlans(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("LoadPlans() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadPlans() = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("LoadPlans() (-want +got):\n%s", diff)
			}
		})
	}
}
