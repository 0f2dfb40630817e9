package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/convert"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gateway"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
)

// deployedRoutes reads the routes table of ../../infra/routes.go (the CDK
// app is its own module, so it is parsed, not imported): product name →
// patterns.
func deployedRoutes(t *testing.T) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../infra/routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "routes" || len(vs.Values) != 1 {
			return true
		}
		for _, elt := range vs.Values[0].(*ast.CompositeLit).Elts {
			kv := elt.(*ast.KeyValueExpr)
			sel, ok := kv.Key.(*ast.SelectorExpr)
			if !ok {
				t.Fatalf("routes.go: key %T, want gateway.<Product>", kv.Key)
			}
			for _, v := range kv.Value.(*ast.CompositeLit).Elts {
				lit, ok := v.(*ast.BasicLit)
				s, err := strconv.Unquote(lit.Value)
				if !ok || err != nil {
					t.Fatalf("routes.go: %s: a route that is not a string literal", sel.Sel.Name)
				}
				out[sel.Sel.Name] = append(out[sel.Sel.Name], s)
			}
		}
		return false
	})
	if len(out) == 0 {
		t.Fatal("routes.go: no routes table found")
	}
	return out
}

// TestDeployedRoutes checks that each product's API on AWS declares
// exactly the routes its function mounts (infra/routes.go), so that a route
// added to a handler is not refused by API Gateway as an unknown path, and
// that each route sits under its product's API.
func TestDeployedRoutes(t *testing.T) {
	patterns := func(rs []api.Route) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Pattern)
		}
		return out
	}
	conv := convert.NewHandler(grid.New())
	mounted := map[string][]string{
		"Search":       patterns(conv.SearchRoutes()),
		"Autocomplete": patterns(conv.AutocompleteRoutes()),
		"Batch":        patterns(conv.BatchRoutes()),
		"Maps":         patterns(tile.NewHandler(tile.Options{CacheBytes: 1}).Routes()),
		"Ag":           patterns(agapi.NewHandler(nil, nil).Routes()),
		"Energy":       patterns(energyapi.NewHandler(nil, nil, time.Now).Routes()),
		"Changes":      patterns(energyapi.NewHandler(nil, nil, time.Now).ChangesRoutes()),
	}
	if len(mounted) != len(gateway.Products()) {
		t.Fatalf("%d route groups for %d products: add the new product's routes here", len(mounted), len(gateway.Products()))
	}
	deployed := deployedRoutes(t)
	for name := range mounted {
		slices.Sort(mounted[name])
		slices.Sort(deployed[name])
	}
	if diff := cmp.Diff(mounted, deployed); diff != "" {
		t.Errorf("infra/routes.go differs from the routes the functions mount (-mounted +deployed):\n%s", diff)
	}
	products := map[string]gateway.Product{"Search": gateway.Search, "Autocomplete": gateway.Autocomplete,
		"Batch": gateway.Batch, "Maps": gateway.Maps, "Ag": gateway.Ag, "Energy": gateway.Energy, "Changes": gateway.Changes}
	for name, rs := range deployed {
		for _, r := range rs {
			_, path, _ := strings.Cut(r, " ")
			if p, ok := gateway.ProductOf(path); !ok || p != products[name] {
				t.Errorf("route %q is under %s, but its path belongs to %v", r, name, p)
			}
		}
	}
}
