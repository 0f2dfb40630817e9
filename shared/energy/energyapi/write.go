package energyapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"meridian/shared/api"
	"meridian/shared/energy"
)

// emptyRows is how the envelope of a page writes its empty rows field.
var emptyRows = []byte(`"rows":[]`)

// writeList writes a list's envelope v as api.WriteJSON does; when the
// page passed stored rows through, v has empty rows, and the page's rows
// are written in their place. The envelopes' rows come before any other
// object field, so the first "rows" key is the envelope's.
func writeList(w http.ResponseWriter, raw energy.RawPage, v any) error {
	if !raw.Passed() {
		api.WriteJSON(w, http.StatusOK, v)
		return nil
	}
	hb := bodyBufs.Get()
	defer bodyBufs.Put(hb)
	b := bytes.NewBuffer((*hb)[:0])
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("energyapi: encode list: %w", err)
	}
	head := b.Bytes()
	*hb = head // keep what the encoder grew, for the next request
	i := bytes.Index(head, emptyRows)
	if i < 0 {
		return fmt.Errorf("energyapi: list envelope %T has no empty rows", v)
	}
	i += len(emptyRows) - 1 // at the closing bracket
	bb := bodyBufs.Get()
	defer bodyBufs.Put(bb)
	body := slices.Grow((*bb)[:0], len(head)+raw.Len())
	body = append(body, head[:i]...)
	body = raw.AppendRows(body)
	body = append(body, head[i:]...)
	*bb = body
	api.WriteRaw(w, http.StatusOK, "application/json", body)
	return nil
}

// bodyBufs holds the buffers the lists and the change feed build their
// bodies in. A body of per_page = 200 long rows (about 130 KB) is reused,
// anything larger is left to the collector.
var bodyBufs = api.Buffers{Max: 256 << 10}
