package energy

import (
	"fmt"
	"strings"
	"testing"

	"meridian/shared/api"
	"meridian/shared/report"
)

// The memo of meta's JSON answers what encoding meta gives, keeps one
// version's entries, and keeps at most maxMetaMemo of them.
func TestMetaMemo(t *testing.T) {
	var mm metaMemo
	meta := func(name string, unavailable ...string) report.Meta[Source] {
		m := report.NewMeta[Source]()
		m.Sources["wells"] = Source{Name: name, AsOf: "2026-11-01"}
		for _, u := range unavailable {
			m.AddUnavailable(u, report.ReasonNotIngested)
		}
		return m
	}
	check := func(version int64, asked uint32, m report.Meta[Source]) {
		t.Helper()
		got, err := mm.json(version, asked, m, func(map[string]Source) error { return nil })
		want, _ := api.AppendJSON(nil, m)
		if err != nil || string(got) != string(want) {
			t.Fatalf("version %d asked %b: %s, want %s (%v)", version, asked, got, want, err)
		}
	}
	check(1, 1, meta("a"))
	check(1, 1, meta("a", "pipelines"))
	check(1, 1, meta("a", "pipelines", "alternative_energy"))
	check(1, 3, meta("a"))
	check(2, 1, meta("b")) // the next version's sources
	if len(mm.m) != 1 {
		t.Fatalf("%d entries after a new version, want its 1", len(mm.m))
	}
	// What the key holds decides: the same key answers what was kept.
	if got, _ := mm.json(2, 1, meta("changed"), func(map[string]Source) error { t.Fatal("filled a kept meta"); return nil }); !strings.Contains(string(got), `"b"`) {
		t.Fatalf("the same key answered anew: %s", got)
	}
	for i := range maxMetaMemo + 50 {
		check(2, uint32(i)+2, meta(fmt.Sprint(i)))
	}
	if len(mm.m) != maxMetaMemo {
		t.Fatalf("%d entries, bound %d", len(mm.m), maxMetaMemo)
	}
}
