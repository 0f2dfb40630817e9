package blob_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
)

func TestAsAPIError(t *testing.T) {
	notFound := apierr.NotFoundf("no archive %q", "x")
	tests := []struct {
		name      string
		err       error
		wantKind  apierr.Kind
		wantCode  string
		unchanged bool // AsAPIError returns err itself
	}{
		{name: "nil", err: nil, unchanged: true},
		{name: "unavailable", err: fmt.Errorf("blob: read k: %w", blob.ErrUnavailable), wantKind: apierr.Unavailable, wantCode: "upstream_unavailable"},
		{name: "deadline", err: fmt.Errorf("blob: read k: %w", context.DeadlineExceeded), wantKind: apierr.Unavailable, wantCode: "upstream_unavailable"},
		{name: "missing key", err: fmt.Errorf("blob: read k: %w", fs.ErrNotExist), wantKind: apierr.Unavailable, wantCode: "upstream_unavailable"},
		{name: "other read failure", err: errors.New("blob: read k: input/output error"), wantKind: apierr.Unavailable, wantCode: "upstream_unavailable"},
		{name: "invalid argument is a bug", err: fmt.Errorf("blob: read k: %w", fs.ErrInvalid), unchanged: true},
		{name: "already an API error", err: notFound, unchanged: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := blob.AsAPIError(tc.err, "the Alberta grid index")
			if tc.unchanged {
				if got != tc.err {
					t.Fatalf("AsAPIError(%v) = %v, want it unchanged", tc.err, got)
				}
				return
			}
			e := apierr.As(got)
			if e == nil {
				t.Fatalf("AsAPIError(%v) = %v, want an *apierr.Error", tc.err, got)
			}
			if e.Kind != tc.wantKind || e.Code != tc.wantCode || api.Status(e.Kind) != http.StatusServiceUnavailable {
				t.Errorf("AsAPIError(%v) = kind %v code %q status %d, want kind %v code %q status 503",
					tc.err, e.Kind, e.Code, api.Status(e.Kind), tc.wantKind, tc.wantCode)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("AsAPIError(%v) does not keep the cause", tc.err)
			}
			if !strings.Contains(e.Message, "the Alberta grid index") || strings.Contains(e.Message, "blob:") {
				t.Errorf("AsAPIError message = %q, want it to name the data and hide the cause", e.Message)
			}
		})
	}
}

// lister is what ingest code needs to enumerate objects.
type lister interface {
	blobtest.Putter
	List(ctx context.Context, prefix string) ([]string, error)
}

// testList checks List as Dir and Mem share it.
func testList(t *testing.T, s lister) {
	blobtest.Fill(t, s, map[string][]byte{
		"grid/ab/ats.idx": {1}, "grid/ab/ats.meta": {2}, "grid/mb.idx": {3},
		"grid.b": {4}, "tiles/x.pmtiles": {5}, "top": {6},
	})
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"grid.b", "grid/ab/ats.idx", "grid/ab/ats.meta", "grid/mb.idx", "tiles/x.pmtiles", "top"}},
		{"grid/", []string{"grid/ab/ats.idx", "grid/ab/ats.meta", "grid/mb.idx"}},
		{"grid", []string{"grid.b", "grid/ab/ats.idx", "grid/ab/ats.meta", "grid/mb.idx"}},
		{"grid/ab/ats.i", []string{"grid/ab/ats.idx"}},
		{"grid/a", []string{"grid/ab/ats.idx", "grid/ab/ats.meta"}},
		{"nothing/", nil},
		{"top/", nil},
	}
	for _, tc := range tests {
		got, err := s.List(t.Context(), tc.prefix)
		if err != nil {
			t.Errorf("List(%q): %v", tc.prefix, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("List(%q) mismatch (-want +got):\n%s", tc.prefix, d)
		}
	}
	for _, prefix := range []string{"/abs", "../", "a//"} {
		if _, err := s.List(t.Context(), prefix); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("List(%q) error = %v, want fs.ErrInvalid", prefix, err)
		}
	}
}
