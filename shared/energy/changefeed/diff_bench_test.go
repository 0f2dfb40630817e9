package changefeed

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"meridian/shared/energy"
)

// BenchmarkDiff diffs two snapshots of 100,000 entities (wells,
// pipelines and dispositions, a province's mix in miniature) of which one
// in 200 changed, as between two monthly versions.
func BenchmarkDiff(b *testing.B) {
	dir := b.TempDir()
	prev, next := filepath.Join(dir, "prev"), filepath.Join(dir, "next")
	write := func(path string, h Header, changed bool) {
		s := NewSnapshot(context.Background(), 0)
		for i := range 100_000 {
			lsd := fmt.Sprintf("%d-%d-%d-%d-W5", 1+i%16, 1+i/16%36, 1+i/576%100, 1+i/57600%25)
			status := "active"
			if changed && i%200 == 0 {
				status = "abandoned"
			}
			var r Record
			switch i % 4 {
			case 0, 1:
				r = well(lsd, fmt.Sprintf("100/%02d-%02d-%03d-%02dW5/00", 1+i%16, 1+i/16%36, 1+i/576%100, 1+i/57600%25), status, "Issued", "A1", false)
			case 2:
				r = PipelineRecord(lsd, "AB", "pipelines", energy.PipelineRow{ID: fmt.Sprint(i), LicenceNumber: fmt.Sprint(i / 7), Status: status,
					Operator: energy.NewParty("B2", "Op B2")})
			default:
				r = disp(lsd, fmt.Sprintf("PNG%07d", i), status, "Holder One", "2030-01-01")
			}
			if err := s.Add(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.WriteTo(path, h); err != nil {
			b.Fatal(err)
		}
	}
	write(prev, Header{Version: 1, AsOf: "2026-10-01"}, false)
	write(next, Header{Version: 2, AsOf: "2026-11-01"}, true)
	v := Version{Version: 2, AsOf: "2026-11-01"}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := Diff(prev, next, v, func(energy.Change) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 500 {
			b.Fatalf("%d changes, want 500", n)
		}
	}
}
