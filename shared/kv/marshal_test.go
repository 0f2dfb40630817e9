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
