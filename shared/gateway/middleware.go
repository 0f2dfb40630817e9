package gateway

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
)

// Where a request carries its key.
const (
	HeaderAPIKey = "X-Api-Key" // canonical form of X-API-Key; REST clients
	QueryAPIKey  = "api_key"   // tiles and TileJSON only (map libraries cannot set headers)
)

// Response headers on admitted requests whose plan has a monthly quota.
const (
	HeaderLimit     = "X-Ratelimit-Limit"     // X-RateLimit-Limit: the monthly quota
	HeaderRemaining = "X-Ratelimit-Remaining" // X-RateLimit-Remaining: requests left this month
)

// Caller identifies who made a request; the middleware puts it in the
// request context for handlers and logs.
type Caller struct {
	KeyID   string
	KeyName string
	Product Product
	Plan    string
}

type callerKey struct{}

// NewContext returns ctx carrying c. The middleware uses it; the AWS entry
// points can use it with the key id API Gateway reports, so handlers see the
// same values in both modes.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, &c)
}

// CallerFrom returns the Caller the middleware stored in ctx.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := api.Attached(ctx, callerKey{}).(*Caller)
	if !ok {
		c, ok = ctx.Value(callerKey{}).(*Caller)
	}
	if !ok || c == nil {
		return Caller{}, false
	}
	return *c, true
}

// Middleware enforces keys, plans, rates and quotas on product routes (see
// ProductOf) and passes public routes and CORS preflights through untouched.
// Refusals are written with api.WriteError; the checks and their order are in
// the package documentation.
//
// What costs quota: an answer below 500 from a mounted route. A request is
// counted when it is admitted (so the quota cannot be overrun by requests
// in flight) and refunded once its status is known if no route matched it
// (an unknown path, a method the path does not allow) or the answer is a
// 5xx (a failure, a dependency unavailable, a panic).
func (g *Gateway) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := ProductOf(r.URL.Path)
		if !ok || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		gr, ch, keyID, err := g.admit(w.Header(), r, p)
		if keyID != "" {
			api.Annotate(ctx, "key_id", keyID)
		}
		if err != nil {
			api.WriteError(w, r, err)
			return
		}
		cw := &chargeWriter{ResponseWriter: w, ctx: ctx, charge: ch}
		defer cw.settle(http.StatusInternalServerError) // a panic: no answer yet
		// The caller goes in api.Middleware's request state; outside it, in
		// a new context.
		if !api.Attach(ctx, callerKey{}, gr.caller) {
			r = r.WithContext(context.WithValue(ctx, callerKey{}, gr.caller))
		}
		next.ServeHTTP(cw, r)
		cw.settle(http.StatusOK) // nothing written: net/http answers 200
	})
}

// charge is one admitted request's count, refundable until settled.
type charge struct {
	g         *Gateway
	c         *counter
	gr        *grant
	remaining int64 // after this request, when the plan has a quota
}

// chargeWriter settles a request's charge when its status is known, before
// the headers go out, so X-RateLimit-Remaining tells the truth.
type chargeWriter struct {
	http.ResponseWriter
	ctx     context.Context
	charge  charge
	settled bool
}

// settle keeps the charge for an answer below 500 from a mounted route and
// refunds it otherwise. Outside api.Middleware the route is unknown, and
// the charge is kept.
func (w *chargeWriter) settle(status int) {
	if w.settled {
		return
	}
	w.settled = true
	if route, known := api.RouteOf(w.ctx); status < 500 && (route != "" || !known) {
		return
	}
	ch := w.charge
	ch.c.n.Add(-1)
	ch.g.usage.markDirty()
	if ch.gr.plan.MonthlyQuota > 0 {
		setQuotaHeaders(w.Header(), ch.gr, ch.remaining+1)
	}
}

func (w *chargeWriter) WriteHeader(code int) {
	if code >= 200 { // 1xx are not the answer
		w.settle(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *chargeWriter) Write(b []byte) (int, error) {
	w.settle(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *chargeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// admit runs the checks for product p and counts the request when it
// passes. gr is the key's grant when the key is known and has p. keyID is
// the id of the key the request gave, also when refused (see logKeyID).
func (g *Gateway) admit(h http.Header, r *http.Request, p Product) (gr *grant, ch charge, keyID string, err error) {
	plain := apiKeyOf(r, p)
	if plain == "" {
		if p != Maps {
			if q := queryValue(r.URL.RawQuery, QueryAPIKey); q != "" {
				return nil, ch, g.logKeyID(q), apierr.Unauthorizedf("missing_api_key",
					"Missing API key: the api_key query parameter is accepted only for tiles and TileJSON, where map libraries cannot set headers. Send your key in the X-API-Key header (a key in a URL ends up in logs and histories).")
			}
		}
		return nil, ch, "", errMissingKey()
	}
	e := g.table.Load().lookup(plain)
	if e == nil {
		return nil, ch, logKeyIDOf(plain), errInvalidKey()
	}
	gr = e.grants[p]
	if gr == nil {
		return nil, ch, e.id, apierr.Forbiddenf("product_not_in_plan",
			"This API key does not include the %s product. Use a key whose plan includes %s, or ask for %s to be added to this key.", p, p, p)
	}
	now := g.now()
	c := gr.slot.counter(g.usage, e.id, p, monthOf(now))
	quota := gr.plan.MonthlyQuota
	if gr.limiter != nil && !gr.limiter.AllowN(now, 1) {
		if quota > 0 {
			setQuotaHeaders(h, gr, quota-c.n.Load())
		}
		return gr, ch, e.id, rateLimited(gr, p, now)
	}
	n, ok := c.take(quota)
	if !ok {
		setQuotaHeaders(h, gr, 0)
		return gr, ch, e.id, quotaExceeded(gr, p, now)
	}
	g.usage.markDirty()
	if quota > 0 {
		setQuotaHeaders(h, gr, quota-n)
	}
	return gr, charge{g: g, c: c, gr: gr, remaining: quota - n}, e.id, nil
}

// logKeyID is the id logged for a key the request gave in the wrong place
// (the query of a route that reads keys only from the header): the key's
// id when it is an active key, else what its id would be (logKeyIDOf).
func (g *Gateway) logKeyID(plain string) string {
	if e := g.table.Load().lookup(plain); e != nil {
		return e.id
	}
	return logKeyIDOf(plain)
}

// logKeyIDOf is the id logged for a key that is not active (unknown or
// revoked): keyIDOf, the id the keys file gives a key, which is public (it
// is logged for every admitted request, and `meridian keys list` shows it)
// and tells nothing of the rest of the key: for a Meridian key the 8
// characters after "mk_" (the other 24, 120 random bits, stay secret), for
// any other form the first 8 hex digits of its SHA-256. A revoked key is
// logged with the id it had. Keys longer than the longest accepted are
// not hashed: their id is "-".
func logKeyIDOf(plain string) string {
	if len(plain) > maxKeyLen {
		return "-"
	}
	return keyIDOf(plain)
}

func errMissingKey() error {
	return apierr.Unauthorizedf("missing_api_key",
		"Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON.")
}

func errInvalidKey() error {
	return apierr.Unauthorizedf("invalid_api_key",
		"Invalid API key: it is unknown or has been revoked. Check that the whole key was sent, or use another key.")
}

func rateLimited(gr *grant, p Product, now time.Time) error {
	rps := gr.plan.RatePerSecond
	wait := time.Duration((1 - gr.limiter.TokensAt(now)) / rps * float64(time.Second))
	if wait < time.Second {
		wait = time.Second
	}
	secs := int64((wait + time.Second - 1) / time.Second)
	return apierr.TooManyf("rate_limited", wait,
		"Rate limit exceeded: the %s plan of this key allows %s requests per second for %s (bursts of %d). Retry after %d s, and space out requests.",
		gr.plan.Name, strconv.FormatFloat(rps, 'f', -1, 64), p, gr.plan.Burst, secs)
}

func quotaExceeded(gr *grant, p Product, now time.Time) error {
	next := (monthOf(now) + 1).start()
	wait := next.Sub(now)
	if wait < time.Second {
		wait = time.Second
	}
	return apierr.TooManyf("quota_exceeded", wait,
		"Monthly quota exceeded: the %s plan of this key allows %d %s requests a month, and all have been used. The quota resets at %s; ask for a plan with a higher quota to continue sooner.",
		gr.plan.Name, gr.plan.MonthlyQuota, p, next.Format("2006-01-02 15:04 UTC"))
}

func setQuotaHeaders(h http.Header, gr *grant, remaining int64) {
	if remaining < 0 {
		remaining = 0
	}
	h[HeaderLimit] = []string{gr.limitHeader}
	h[HeaderRemaining] = []string{strconv.FormatInt(remaining, 10)}
}

// apiKeyOf returns the key from the X-API-Key header, else, for tiles and
// TileJSON (product maps), from the api_key query parameter.
func apiKeyOf(r *http.Request, p Product) string {
	if v := r.Header[HeaderAPIKey]; len(v) > 0 && v[0] != "" {
		return v[0]
	}
	if p != Maps {
		return ""
	}
	return queryValue(r.URL.RawQuery, QueryAPIKey)
}

// queryValue returns the first value of name in a raw query without parsing
// the whole query into a map.
func queryValue(raw, name string) string {
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(kv, "=")
		if k != name {
			continue
		}
		if strings.ContainsAny(v, "%+") {
			u, err := url.QueryUnescape(v)
			if err != nil {
				return v // malformed: looked up as sent, so it fails as invalid
			}
			v = u
		}
		return v
	}
	return ""
}
