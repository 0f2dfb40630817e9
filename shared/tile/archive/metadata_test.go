package archive_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/tile/archive"
)

func TestMetadataJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		meta archive.Metadata
		want map[string]any
	}{
		{
			name: "empty",
			want: map[string]any{"generator": "meridian", "name": "", "description": "", "attribution": "", "vector_layers": []any{}},
		},
		{
			name: "layers and extra keys",
			meta: archive.Metadata{
				Name: "ab/twp", Description: "Townships", Attribution: "<a href=\"https://example.com\">©</a>",
				MinZoom: 3, MaxZoom: 9, // in the header, not the JSON
				VectorLayers: []archive.VectorLayer{
					{ID: "twp", Description: "townships", MinZoom: 3, MaxZoom: 9, Fields: map[string]string{"id": "String"}},
					{ID: "bare", MaxZoom: 9},
				},
				Extra: map[string]string{"generator": "tippecanoe", "version": "2"},
			},
			want: map[string]any{
				"generator": "tippecanoe", "version": "2",
				"name": "ab/twp", "description": "Townships", "attribution": "<a href=\"https://example.com\">©</a>",
				"vector_layers": []any{
					map[string]any{"id": "twp", "description": "townships", "minzoom": 3.0, "maxzoom": 9.0, "fields": map[string]any{"id": "String"}},
					map[string]any{"id": "bare", "minzoom": 0.0, "maxzoom": 9.0, "fields": map[string]any{}},
				},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := tc.meta.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("JSON() = %s: %v", raw, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("JSON() (-want +got):\n%s", diff)
			}
		})
	}

	for _, key := range []string{"name", "description", "attribution", "vector_layers"} {
		m := archive.Metadata{Extra: map[string]string{key: "x"}}
		if _, err := m.JSON(); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("JSON() with Extra[%q] = %v, want an error about a reserved key", key, err)
		}
	}
}
