package release_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/release"
)

func TestContentKey(t *testing.T) {
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	ka, kb := release.ContentKey("ab/sec.pmtiles", a[:]), release.ContentKey("ab/sec.pmtiles", b[:])
	if ka == kb || !strings.HasPrefix(ka, "v/") || !strings.HasSuffix(ka, "/ab/sec.pmtiles") || len(ka) != len("v/")+32+len("/ab/sec.pmtiles") {
		t.Errorf("ContentKey = %q and %q; want distinct v/<32 hex>/ab/sec.pmtiles", ka, kb)
	}
}

func TestRead(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		data    string // "" : no manifest
		ok      bool
		corrupt bool
		resolve string
	}{
		{name: "absent"},
		{name: "valid", data: `{"published":"2026-11-25T00:00:00Z","files":{"a.mgix":{"key":"v/00ff/a.mgix","size":3,"sha256":"00ff"}}}`, ok: true, resolve: "v/00ff/a.mgix"},
		{name: "not JSON", data: `{"files":`, corrupt: true},
		{name: "key outside v/", data: `{"files":{"a.mgix":{"key":"a.mgix","size":3}}}`, corrupt: true},
		{name: "key climbing out", data: `{"files":{"a.mgix":{"key":"v/../../other","size":3}}}`, corrupt: true},
		{name: "negative size", data: `{"files":{"a.mgix":{"key":"v/00/a.mgix","size":-1}}}`, corrupt: true},
		{name: "too large", data: `{"files":{}, "pad":"` + strings.Repeat("x", release.MaxManifestBytes) + `"}`, corrupt: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := blob.NewMem()
			if tc.data != "" {
				if err := store.Put(ctx, release.ManifestKey, bytes.NewReader([]byte(tc.data))); err != nil {
					t.Fatal(err)
				}
			}
			m, ok, err := release.Read(ctx, store)
			if ok != tc.ok || errors.Is(err, release.ErrCorrupt) != tc.corrupt || (err != nil) != tc.corrupt {
				t.Fatalf("Read = %+v, %v, %v; want ok %v, corrupt %v", m, ok, err, tc.ok, tc.corrupt)
			}
			if key, found := m.Resolve("a.mgix"); found != (tc.resolve != "") || key != tc.resolve {
				t.Errorf("Resolve(a.mgix) = %q, %v; want %q", key, found, tc.resolve)
			}
		})
	}
}
