package kv

import (
	"encoding/json"
	"testing"
)

// TestMarshalItem: items are written as the API writes its answers, & < >
// unescaped, and read back as json.Marshal's encoding would be.
func TestMarshalItem(t *testing.T) {
	v := map[string]any{"name": "Smith & Sons <Oil>", "mode": "DRL&C", "n": 1.5, "sep": "\u2028"}
	got, err := MarshalItem(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mode":"DRL&C","n":1.5,"name":"Smith & Sons <Oil>","sep":"\u2028"}`; string(got) != want {
		t.Errorf("MarshalItem = %s, want %s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != v["name"] || back["sep"] != v["sep"] {
		t.Errorf("read back %v, %v", back, err)
	}
	if _, err := MarshalItem(func() {}); err == nil {
		t.Error("a func encoded")
	}
}

// TestOpenPointerMemo: opening a dataset again reuses its decoded pointer
// and still sees a newly published version; what a caller does to its
// Dataset's counts is its own.
func TestOpenPointerMemo(t *testing.T) {
	ctx := t.Context()
	s := NewMem()
	publish := func(n int) {
		_, err := Publish(ctx, s, DatasetInfo{Name: "memo", Counts: map[string]int{"rows": n}}, func(w *Writer) error { return w.Put("P", "S", n) })
		if err != nil {
			t.Fatal(err)
		}
	}
	publish(1)
	a, ok, err := Open(ctx, s, "memo")
	if err != nil || !ok || a.Info.Counts["rows"] != 1 {
		t.Fatalf("open: %+v %v %v", a.Info, ok, err)
	}
	a.Info.Counts["rows"] = 99
	b, _, _ := Open(ctx, s, "memo")
	if b.Info.Counts["rows"] != 1 || b.Version != a.Version {
		t.Errorf("second open: counts %v version %d, want 1 and %d", b.Info.Counts, b.Version, a.Version)
	}
	publish(2)
	c, _, _ := Open(ctx, s, "memo")
	if c.Info.Counts["rows"] != 2 || c.Version == a.Version {
		t.Errorf("after publishing: counts %v version %d (was %d)", c.Info.Counts, c.Version, a.Version)
	}
}
