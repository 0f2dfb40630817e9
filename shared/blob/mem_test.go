package blob_test

import (
	"errors"
	"io/fs"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func newMem(t *testing.T, objects map[string][]byte) blob.Store {
	m := blob.NewMem()
	blobtest.Fill(t, m, objects)
	return m
}

func TestMemContract(t *testing.T) {
	blobtest.Run(t, newMem)
}

func TestMemPut(t *testing.T) {
	blobtest.RunPut(t, blob.NewMem())
}

func TestMemList(t *testing.T) {
	testList(t, blob.NewMem())
}

func TestMemDelete(t *testing.T) {
	m := blob.NewMem()
	blobtest.Fill(t, m, map[string][]byte{"a": {1}})
	m.Delete("a")
	m.Delete("never there")
	if _, err := m.Stat(t.Context(), "a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat after Delete: error = %v, want fs.ErrNotExist", err)
	}
}
