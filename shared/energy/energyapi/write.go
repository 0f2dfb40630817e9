package energyapi

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"

	"meridian/shared/api"
	"meridian/shared/energy"
)

// emptyRows is how the envelope of a page writes its empty rows field.
var emptyRows = []byte(`"rows":[]`)

// renderList returns a list's body: its envelope v as api.WriteJSON
// writes it; when the page passed stored rows through, v has empty rows,
// and the page's rows are written in their place. The first "rows" key is
// the envelope's: the fields before it (a parcel list's legal_location and
// province) are strings, where a quote is escaped. The body is the
// caller's to keep.
func renderList(raw energy.RawPage, v any) ([]byte, error) {
	return appendList(nil, raw, v)
}

// writeList writes a list's body (renderList), built in a pooled buffer.
func writeList(w http.ResponseWriter, raw energy.RawPage, v any) error {
	return writePooled(w, func(dst []byte) ([]byte, error) { return appendList(dst, raw, v) })
}

// writePooled writes the JSON body build appends to a pooled buffer.
func writePooled(w http.ResponseWriter, build func(dst []byte) ([]byte, error)) error {
	bp := bodyBufs.Get()
	defer bodyBufs.Put(bp)
	body, err := build((*bp)[:0])
	if err != nil {
		return err
	}
	*bp = body // what it grew serves the next request
	writeBody(w, body)
	return nil
}

// appendList appends a list's body (renderList) to dst.
func appendList(dst []byte, raw energy.RawPage, v any) ([]byte, error) {
	if !raw.Passed() {
		return appendBody(dst, v)
	}
	hb := bodyBufs.Get()
	defer bodyBufs.Put(hb)
	head, err := api.AppendJSON((*hb)[:0], v)
	if err != nil {
		return nil, fmt.Errorf("energyapi: encode list: %w", err)
	}
	*hb = head // keep what the encoder grew, for the next request
	i := bytes.Index(head, emptyRows)
	if i < 0 {
		return nil, fmt.Errorf("energyapi: list envelope %T has no empty rows", v)
	}
	i += len(emptyRows) - 1 // at the closing bracket
	body := slices.Grow(dst, len(head)+raw.Len()+1)
	body = append(body, head[:i]...)
	body = raw.AppendRows(body)
	body = append(body, head[i:]...)
	return append(body, '\n'), nil
}

// renderJSON returns v encoded as api.WriteJSON writes it.
func renderJSON(v any) ([]byte, error) { return appendBody(nil, v) }

// appendBody appends v as api.WriteJSON writes it, final newline included.
func appendBody(dst []byte, v any) ([]byte, error) {
	b, err := api.AppendJSON(dst, v)
	if err != nil {
		return nil, fmt.Errorf("energyapi: encode %T: %w", v, err)
	}
	return append(b, '\n'), nil
}

// writeBody writes a rendered JSON answer.
func writeBody(w http.ResponseWriter, body []byte) {
	api.WriteRaw(w, http.StatusOK, "application/json", body)
}

// bodyBufs holds the buffers the lists and the change feed build their
// bodies in. A body of per_page = 200 long rows (about 130 KB) is reused,
// anything larger is left to the collector.
var bodyBufs = api.Buffers{Max: 256 << 10}
