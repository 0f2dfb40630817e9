package archive

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/paulmach/orb"
)

// Metadata describes a tileset. Name, Description, Attribution, VectorLayers
// and Extra go into the archive's metadata JSON (the TileJSON-style keys
// "name", "description", "attribution", "vector_layers"); Bounds, Center and
// the zooms go into the binary header, where PMTiles v3 keeps them.
type Metadata struct {
	Name        string
	Description string
	Attribution string // HTML, as TileJSON allows

	Bounds     orb.Bound // longitude/latitude extent of the tiles; must have an area
	Center     orb.Point // default view; the middle of Bounds when zero
	CenterZoom uint8     // default zoom; clamped into the tiles' zoom range

	// MinZoom and MaxZoom bound the zooms a writer accepts (package
	// archive/writer). A Reader reports the zooms the archive actually holds
	// tiles at.
	MinZoom, MaxZoom uint8

	VectorLayers []VectorLayer

	// Extra holds more string keys of the metadata JSON, e.g. "version".
	// "generator" is "meridian" unless set here. A Reader returns every
	// string-valued key it does not know in Extra.
	Extra map[string]string
}

// VectorLayer describes one layer of the tiles, as TileJSON's vector_layers.
type VectorLayer struct {
	ID          string
	Description string
	MinZoom     uint8
	MaxZoom     uint8
	Fields      map[string]string // attribute name -> type: "String", "Number" or "Boolean"
}

// vectorLayerJSON is the TileJSON form of a VectorLayer.
type vectorLayerJSON struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	MinZoom     uint8             `json:"minzoom"`
	MaxZoom     uint8             `json:"maxzoom"`
	Fields      map[string]string `json:"fields"`
}

// metadataJSON holds the keys of the metadata JSON that have a field in
// Metadata.
type metadataJSON struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Attribution  string            `json:"attribution"`
	VectorLayers []vectorLayerJSON `json:"vector_layers"`
}

var reservedKeys = map[string]bool{"name": true, "description": true, "attribution": true, "vector_layers": true}

// JSON returns the metadata JSON an archive stores for m: the keys of Extra,
// "generator" ("meridian" unless Extra sets it), "name", "description",
// "attribution" and "vector_layers", each layer with a "fields" object even
// when it has no fields. Bounds, Center and the zooms are not in it; they go
// into the archive's header. An Extra key that one of Metadata's fields
// owns is an error.
func (m Metadata) JSON() ([]byte, error) {
	out := map[string]any{"generator": "meridian"}
	for k, v := range m.Extra {
		if reservedKeys[k] {
			return nil, fmt.Errorf("archive: extra metadata key %q is reserved for a Metadata field", k)
		}
		out[k] = v
	}
	out["name"] = m.Name
	out["description"] = m.Description
	out["attribution"] = m.Attribution
	layers := make([]vectorLayerJSON, len(m.VectorLayers))
	for i, l := range m.VectorLayers {
		fields := l.Fields
		if fields == nil {
			fields = map[string]string{} // TileJSON requires the object
		}
		layers[i] = vectorLayerJSON{ID: l.ID, Description: l.Description, MinZoom: l.MinZoom, MaxZoom: l.MaxZoom, Fields: fields}
	}
	out["vector_layers"] = layers
	return json.Marshal(out)
}

// decodeMetadata parses metadata JSON into the fields of m it carries.
func decodeMetadata(raw []byte) (Metadata, error) {
	var known metadataJSON
	if err := json.Unmarshal(raw, &known); err != nil {
		return Metadata{}, err
	}
	var all map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return Metadata{}, err
	}
	m := Metadata{Name: known.Name, Description: known.Description, Attribution: known.Attribution}
	for _, l := range known.VectorLayers {
		m.VectorLayers = append(m.VectorLayers, VectorLayer(l))
	}
	for k, v := range all {
		if s, ok := v.(string); ok && !reservedKeys[k] {
			if m.Extra == nil {
				m.Extra = map[string]string{}
			}
			m.Extra[k] = s
		}
	}
	return m, nil
}

// clone returns a copy of m that shares no maps or slices with it.
func (m Metadata) clone() Metadata {
	m.VectorLayers = slices.Clone(m.VectorLayers)
	for i := range m.VectorLayers {
		m.VectorLayers[i].Fields = maps.Clone(m.VectorLayers[i].Fields)
	}
	m.Extra = maps.Clone(m.Extra)
	return m
}
