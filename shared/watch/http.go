package watch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// maxBody bounds a POST /watches body: 10,000 areas of about 20 bytes.
const maxBody = 1 << 20

// Handler serves the /watches routes over a store.
type Handler struct {
	Store *Store
	// AllowPrivate accepts webhook URLs of loopback and private addresses,
	// and http: the local server's -allow-private-webhooks. Never on AWS.
	AllowPrivate bool
	Now          func() time.Time
}

// NewHandler returns the /watches routes' handler.
func NewHandler(s *Store, allowPrivate bool) *Handler {
	return &Handler{Store: s, AllowPrivate: allowPrivate, Now: time.Now}
}

// created is the answer of POST /watches: the watch and, once, its secret.
type created struct {
	Watch
	Secret string `json:"secret"`
}

type newWatch struct {
	URL         string   `json:"url"`
	Areas       []string `json:"areas"`
	Kinds       []string `json:"kinds"`
	Description string   `json:"description"`
}

var watchSchema = map[string]any{"type": "object", "required": []string{"id", "url", "areas", "created_at"},
	"properties": map[string]any{
		"id":          map[string]any{"type": "string"},
		"url":         map[string]any{"type": "string"},
		"areas":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"kinds":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"description": map[string]any{"type": "string"},
		"created_at":  map[string]any{"type": "string", "format": "date-time"},
	}}

// Routes are the /watches routes.
func (h *Handler) Routes() []api.Route {
	idParam := api.Param{Name: "id", In: "path", Required: true, Description: "the watch's id", Example: "w_0123456789abcdef"}
	createdSchema := map[string]any{"allOf": []any{watchSchema, map[string]any{"type": "object", "required": []string{"secret"},
		"properties": map[string]any{"secret": map[string]any{"type": "string", "description": "the HMAC-SHA256 signing secret, shown this once"}}}}}
	return []api.Route{
		{Pattern: "POST /watches", Handler: api.Func(h.Create), Op: api.Operation{Tag: "watches",
			Summary: "Watch areas for changes: each energy refresh's changes in them are posted to your https URL, signed",
			Description: "Each delivery is a JSON batch of at most 100 changes (the rows of GET /energy/changes), POSTed with the headers " +
				"Meridian-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\" with the secret>), Idempotency-Key and Meridian-Delivery " +
				"(the delivery's id, the same on every attempt). A 2xx answer delivers it; anything else is retried with exponential backoff and jitter for 24 hours.",
			Body: &api.Body{Description: "the webhook URL (https, a public address), 1 to 10,000 areas (LSD, quarter, section or township in AB, SK, MB), optional kinds (change kinds or well, pipeline, facility, disposition) and description",
				Schema: map[string]any{"type": "object", "required": []string{"url", "areas"}, "properties": map[string]any{
					"url":         map[string]any{"type": "string"},
					"areas":       map[string]any{"type": "array", "minItems": 1, "maxItems": MaxAreas, "items": map[string]any{"type": "string"}},
					"kinds":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"description": map[string]any{"type": "string", "maxLength": 200}}},
				Example: map[string]any{"url": "https://203.0.113.10/meridian", // a documentation address (RFC 5737): public, resolves without DNS
					"areas": []string{"24-1-W5", "NW-25-24-1-W5"}, "kinds": []string{"well", "disposition_transferred"}}},
			Response: createdSchema, Created: true, Errors: []int{400, 413, 503}}},
		{Pattern: "GET /watches", Handler: api.Func(h.List), Op: api.Operation{Tag: "watches", Summary: "Your key's watches",
			Response: map[string]any{"type": "object", "properties": map[string]any{"rows": map[string]any{"type": "array", "items": watchSchema},
				"meta": map[string]any{"type": "object"}}}, Errors: []int{503}}},
		{Pattern: "GET /watches/{id}", Handler: api.Func(h.Get), Op: api.Operation{Tag: "watches", Summary: "One of your key's watches",
			Params: []api.Param{idParam}, Response: watchSchema, Errors: []int{404, 503}}},
		{Pattern: "DELETE /watches/{id}", Handler: api.Func(h.Delete), Op: api.Operation{Tag: "watches", Summary: "Delete a watch: its pending deliveries are dropped",
			Params: []api.Param{idParam}, NoContent: "deleted", Errors: []int{404, 503}}},
		{Pattern: "GET /watches/{id}/deliveries", Handler: api.Func(h.Deliveries), Op: api.Operation{Tag: "watches", Summary: "A watch's deliveries, newest first, with every attempt",
			Params: []api.Param{idParam,
				{Name: "per_page", Description: "1 to 100, default 20", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
				{Name: "cursor", Description: "meta.next_cursor of the previous page"}},
			Errors: []int{400, 404, 503}}},
	}
}

// owner is the caller's key id.
func owner(ctx context.Context) (string, error) {
	c, ok := gateway.CallerFrom(ctx)
	if !ok || c.KeyID == "" {
		return "", apierr.Unauthorizedf("missing_api_key", "Missing API key. Send your key in the X-API-Key header.")
	}
	return c.KeyID, nil
}

// Create answers POST /watches.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	key, err := owner(ctx)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return apierr.Invalidf("invalid_parameter", "request body could not be read")
	}
	if len(body) > maxBody {
		return apierr.TooLargef("batch_too_large", "request body is larger than %d bytes: a watch holds at most %d areas", maxBody, MaxAreas)
	}
	var in newWatch
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return apierr.Invalidf("invalid_parameter", "request body is not a watch: send {\"url\": \"https://...\", \"areas\": [\"24-1-W5\"], \"kinds\": [...]}")
	}
	u, err := CheckURL(ctx, in.URL, h.AllowPrivate, nil)
	if err != nil {
		return apierr.Invalidf("invalid_parameter", "%s", err.Error())
	}
	if len(in.Areas) == 0 || len(in.Areas) > MaxAreas {
		return apierr.Invalidf("invalid_parameter", "areas: give 1 to %d legal locations (got %d)", MaxAreas, len(in.Areas))
	}
	if len(in.Description) > 200 {
		return apierr.Invalidf("invalid_parameter", "description: at most 200 characters")
	}
	areas := make([]string, 0, len(in.Areas))
	seen := map[string]bool{}
	for _, a := range in.Areas {
		l, err := lld.Parse(a)
		if err == nil {
			err = energy.CheckChangesArea(l, a)
		}
		if err != nil {
			var ae *apierr.Error
			if errors.As(err, &ae) {
				return apierr.Invalidf(ae.Code, "areas: %s", ae.Message)
			}
			return err
		}
		if s := l.String(); !seen[s] {
			seen[s] = true
			areas = append(areas, s)
		}
	}
	kinds, err := energy.ParseChangeKinds(in.Kinds)
	if err != nil {
		return err
	}
	all, err := h.Store.all(ctx)
	if err != nil {
		return err
	}
	n := 0
	for _, x := range all {
		if x.Owner == key {
			n++
		}
	}
	if n >= MaxWatchesPerKey {
		return apierr.Invalidf("invalid_parameter", "this key has %d watches, the most one key may hold: delete one first", n)
	}
	secret := make([]byte, 32)
	if _, err := io.ReadFull(rand.Reader, secret); err != nil {
		return err
	}
	st := stored{Watch: Watch{ID: newID("w_", 8), URL: u.String(), Areas: areas, Kinds: kinds, Description: in.Description,
		CreatedAt: h.Now().UTC().Format(time.RFC3339)}, Owner: key, Secret: "whsec_" + base64.RawURLEncoding.EncodeToString(secret)}
	if err := h.Store.put(ctx, st); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusCreated, created{st.Watch, st.Secret})
	return nil
}

// mine returns the caller's watch of the request's {id}, or 404: another
// key's watch is as absent as one that never was.
func (h *Handler) mine(r *http.Request) (stored, error) {
	key, err := owner(r.Context())
	if err != nil {
		return stored{}, err
	}
	id := r.PathValue("id")
	if !validID(id) {
		return stored{}, apierr.NotFoundf("No watch %.40s", id)
	}
	w, ok, err := h.Store.get(r.Context(), id)
	if err != nil {
		return stored{}, err
	}
	if !ok || w.Owner != key {
		return stored{}, apierr.NotFoundf("No watch %.40s", id)
	}
	return w, nil
}

// List answers GET /watches.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) error {
	key, err := owner(r.Context())
	if err != nil {
		return err
	}
	all, err := h.Store.all(r.Context())
	if err != nil {
		return err
	}
	rows := []Watch{}
	for _, x := range all {
		if x.Owner == key {
			rows = append(rows, x.Watch)
		}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"rows": rows, "meta": map[string]any{"total": len(rows)}})
	return nil
}

// Get answers GET /watches/{id}.
func (h *Handler) Get(w http.ResponseWriter, r *http.Request) error {
	x, err := h.mine(r)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, x.Watch)
	return nil
}

// Delete answers DELETE /watches/{id}.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) error {
	x, err := h.mine(r)
	if err != nil {
		return err
	}
	if err := h.Store.kv.Delete(r.Context(), []kv.Key{{PK: pkWatches, SK: x.ID}}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Deliveries answers GET /watches/{id}/deliveries.
func (h *Handler) Deliveries(w http.ResponseWriter, r *http.Request) error {
	x, err := h.mine(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	per := 20
	if s := strings.TrimSpace(q.Get("per_page")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || strconv.Itoa(n) != s || n < 1 || n > 100 { // digits only, as before: no sign, no leading zero
			return apierr.Invalidf("invalid_parameter", "per_page '%.20s' is not valid: use 1 to 100", s)
		}
		per = n
	}
	after := ""
	if c := strings.TrimSpace(q.Get("cursor")); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || len(b) == 0 || len(b) > 64 {
			return apierr.Invalidf("invalid_parameter", "cursor '%.40s' is not valid: pass meta.next_cursor unchanged", c)
		}
		after = string(b)
	}
	ds, next, err := h.Store.deliveries(r.Context(), x.ID, per, after)
	if err != nil {
		return err
	}
	for i := range ds {
		ds[i].Body = nil
	}
	var cursor any
	if next != "" {
		cursor = base64.RawURLEncoding.EncodeToString([]byte(next))
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"watch_id": x.ID, "rows": ds, "meta": map[string]any{"per_page": per, "next_cursor": cursor}})
	return nil
}

// validID reports whether id is a watch id as Create makes them: "w_" and
// 16 hex digits. Anything else names no watch (and is never a store key).
func validID(id string) bool {
	if len(id) != 18 || !strings.HasPrefix(id, "w_") {
		return false
	}
	for _, c := range id[2:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
