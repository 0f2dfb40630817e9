package report_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"meridian/shared/report"
)

func TestMetaJSON(t *testing.T) {
	t.Parallel()
	m := report.NewMeta[json.RawMessage]()
	if b, _ := json.Marshal(m); string(b) != `{"unavailable":[],"sources":{}}` {
		t.Errorf("empty meta = %s", b)
	}
	m.AddUnavailable("pipelines", report.ReasonNotPublished)
	m.AddUnavailable("alternative_energy", report.ReasonNotIngested)
	m.Sources["wells"] = json.RawMessage(`{"name":"x","as_of":"2025-01"}`)
	want := `{"unavailable":[{"section":"pipelines","reason":"not_published_in_province"},{"section":"alternative_energy","reason":"not_ingested"}],"sources":{"wells":{"name":"x","as_of":"2025-01"}}}`
	if b, _ := json.Marshal(m); string(b) != want {
		t.Errorf("meta = %s, want %s", b, want)
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	var s report.Sources
	reads := 0
	read := func(items ...string) func(add func(string, []byte)) error {
		return func(add func(string, []byte)) error {
			reads++
			for _, it := range items {
				add(it, []byte(`{}`))
			}
			return nil
		}
	}
	got, err := s.Of(1, read("wells", "tenure"))
	if err != nil || len(got) != 2 || reads != 1 {
		t.Fatalf("Of(1) = %v, %v after %d reads", got, err, reads)
	}
	if got, _ := s.Of(1, read("other")); len(got) != 2 || reads != 1 {
		t.Errorf("Of(1) again = %v after %d reads, want the held items", got, reads)
	}
	if got, _ := s.Of(2, read("other")); len(got) != 1 || got["other"] == nil || reads != 2 {
		t.Errorf("Of(2) = %v after %d reads, want the new version's items", got, reads)
	}
	// A dataset without SOURCES items is held too: read once.
	if got, err := s.Of(3, read()); got == nil || len(got) != 0 || err != nil {
		t.Errorf("Of(3) = %v, %v, want an empty map", got, err)
	}
	if s.Of(3, read("x")); reads != 3 {
		t.Errorf("%d reads, want an empty version read once", reads)
	}
	// A failed read is not held.
	boom := errors.New("boom")
	if _, err := s.Of(4, func(func(string, []byte)) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Of(4) = %v, want %v", err, boom)
	}
	if got, _ := s.Of(4, read("y")); got["y"] == nil {
		t.Errorf("Of(4) after a failure = %v", got)
	}
	// Concurrent callers (go test -race).
	var wg sync.WaitGroup
	for v := range 8 {
		wg.Go(func() { s.Of(int64(v%2), read("z")) })
	}
	wg.Wait()
}

func TestDecodedSources(t *testing.T) {
	var s report.Sources
	reads := 0
	read := func(data string) func(add func(sk string, data []byte)) error {
		return func(add func(sk string, data []byte)) error {
			reads++
			add("wells", []byte(data))
			return nil
		}
	}
	type src struct {
		AsOf string `json:"as_of"`
	}
	for range 3 {
		m, err := report.DecodedSources[src](&s, 1, read(`{"as_of":"2026-01-01"}`))
		if err != nil || m["wells"].AsOf != "2026-01-01" {
			t.Fatalf("version 1: %v %v", m, err)
		}
	}
	m, err := report.DecodedSources[src](&s, 2, read(`{"as_of":"2026-02-01"}`))
	if err != nil || m["wells"].AsOf != "2026-02-01" {
		t.Fatalf("version 2: %v %v", m, err)
	}
	if reads != 2 {
		t.Errorf("%d reads for two versions", reads)
	}
	if _, err := report.DecodedSources[src](&s, 3, read(`{"as_of":3}`)); err == nil {
		t.Error("a SOURCES item of the wrong shape decoded")
	}
}
