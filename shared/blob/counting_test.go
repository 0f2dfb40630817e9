package blob_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func TestCountingContract(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blob.Store {
		return blob.NewCounting(newMem(t, objects))
	})
}

func TestCounting(t *testing.T) {
	m := blob.NewMem()
	blobtest.Fill(t, m, map[string][]byte{"k": object(100)})
	c := blob.NewCounting(m)
	c.ReadRange(t.Context(), "k", 0, 60)
	c.ReadRange(t.Context(), "k", 60, 60) // 40 bytes exist
	c.ReadRange(t.Context(), "missing", 0, 60)
	c.Stat(t.Context(), "k")
	if d := cmp.Diff(blob.CountingStats{Reads: 3, Bytes: 100, Stats: 1}, c.Stats()); d != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", d)
	}
	c.Reset()
	if d := cmp.Diff(blob.CountingStats{}, c.Stats()); d != "" {
		t.Errorf("Stats after Reset mismatch (-want +got):\n%s", d)
	}
}
