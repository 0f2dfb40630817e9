// Package gateway is Meridian's model of products, plans, API keys, rate
// limits and monthly quotas, and the local server's middleware that enforces
// them. On AWS the same rules are enforced by API Gateway usage plans; the CDK
// stack reads DefaultPlans from this package so both modes share one
// definition.
//
// # Model
//
// A Product is a separately sold part of the API: search, autocomplete,
// batch, maps, ag and energy. The first path segment names it (ProductOf):
// /search/… is search, /tiles/… is maps, and so on. Every other path (/,
// /openapi.json, /healthz, the map page's assets) is public and needs no key.
//
// A Plan gives one product a token-bucket rate (RatePerSecond, Burst) and a
// MonthlyQuota; zero means "no limit". Plans are named per product: every
// product has a "default" plan carrying the spec's limits and an "unlimited"
// plan (demo key, load tests). DefaultPlans is the catalogue:
//
//	product       plan       rate/s  burst  quota/month
//	search        default    1       5      1,000
//	autocomplete  default    1       5      1,000
//	batch         default    1       2      1,000
//	maps          default    -       -      10,000
//	ag            default    5       10     1,000
//	energy        default    5       10     1,000
//	(every)       unlimited  -       -      -
//
// The spec fixes rate and quota for search, autocomplete, batch and maps and
// leaves ag and energy to configuration; LoadPlans overlays an operator's
// plans.json on these defaults (replace a plan or add new ones). Bursts are
// ours: 5 lets a page load or a user typing in an autocomplete box send a few
// calls at once while the long-run rate stays 1/s; batch gets 2 because each
// call carries up to 100 records.
//
// A key holds one or more products, each on one plan of that product. Keys are
// "mk_" followed by 32 lower-case base32 characters (160 random bits); any
// other form, such as Township Canada's "tc_…", is accepted on input as long
// as its SHA-256 is in the keys file. The keys file (keys.json, written by
// AddKey, RevokeKey and `meridian keys`, or by hand) stores only the SHA-256
// of each key, with a short id (the 8 characters after "mk_"; they reveal 40 of
// the 160 bits and appear in logs), a name, the product→plan map, created_at
// and revoked_at.
//
// # Requests
//
// Gateway.Middleware checks, in this order, and refuses through api.WriteError:
//
//  1. no key in the X-API-Key header nor, on tiles and TileJSON only, in the api_key query parameter → 401 missing_api_key
//  2. key unknown or revoked → 401 invalid_api_key
//  3. key without the route's product → 403 product_not_in_plan
//  4. the (key, product) token bucket is empty → 429 rate_limited, Retry-After = seconds until a token (≥ 1)
//  5. this month's count (UTC) reached the quota → 429 quota_exceeded, Retry-After = seconds until the next month (UTC)
//
// The header wins when both forms are sent; the query form works only on
// tiles and TileJSON (map libraries cannot always set headers; elsewhere a
// key in a URL would end up in logs). Only requests past the rate limiter
// count toward the quota, a request refused for quota is not counted, and
// an admitted request is refunded when no route matched it or its answer is
// a 5xx (Middleware). On a plan with a quota, admitted requests and both
// 429 answers carry X-RateLimit-Limit (the monthly quota) and
// X-RateLimit-Remaining (requests left this month, 0 once it is used up).
// The handler finds the caller's key id, name, product and plan with
// CallerFrom. CORS preflights (OPTIONS) pass without a key: browsers cannot
// attach one to them, and API Gateway's CORS methods do not require one.
//
// # Persistence
//
// Keys are re-read when the keys file's identity, size or modification time
// changes, checked once a second by a background goroutine, so keys added or
// revoked with `meridian keys` apply to a running server within a second. The
// hot path only loads an atomic pointer to the current key table. A keys file
// that fails to parse is logged and the previous table stays in force.
//
// Quota counts live in memory (one atomic counter per key, product and UTC
// month) and are written to the usage file (usage.json) at most once a second
// when they changed, and on Close; New loads them back. A crash therefore
// loses at most about one second of counts. Rate buckets are not persisted: a
// restart refills them. Every file is written atomically (temporary file,
// fsync, rename) with mode 0600. One server process per data directory is
// assumed; several `meridian keys` commands may run at once (they take a lock
// file next to keys.json).
//
// # Differences from API Gateway
//
// The stack's gateway responses (infra/responses.go) give API Gateway's
// refusals the codes and bodies of ARCHITECTURE §4, but API Gateway cannot
// compute a Retry-After per key: on AWS it is a fixed figure per API (the
// slowest plan's token interval), here the time to the caller's next token.
// API Gateway also cannot tell an unknown key from a key without the
// product, nor refund a 5xx: its usage plans count every request that
// reaches a method.
// API Gateway's counters are best effort; these are exact up to the crash
// window above. On AWS a usage plan throttles a key per stage; here each (key,
// product) pair has its own bucket, which is the same thing with one stage per
// product. API Gateway reads keys only from the x-api-key header (the query
// form needs the authorizer); tiles cached by CloudFront are neither counted
// nor throttled on AWS, while locally every tile request counts.
//
// # Wiring
//
// The local binary puts api.Middleware outside the gateway so refusals carry
// a request id and are logged with their code, the route they were refused
// on (Options.Route) and the id of the key they gave (key_id, never the
// key; for an unknown or revoked key the id it has or would have):
//
//	plans, err := gateway.LoadPlans(filepath.Join(dataDir, gateway.PlansFile))
//	demo, err := gateway.EnsureDemoKey(dataDir) // print it
//	gw, err := gateway.New(gateway.Options{
//		KeysPath:  filepath.Join(dataDir, gateway.KeysFile),
//		UsagePath: filepath.Join(dataDir, gateway.UsageFile),
//		Plans:     plans,
//		Logger:    logger,
//	})
//	defer gw.Close()
//	handler := api.Middleware(gw.Middleware(mux), api.Options{Logger: logger, Route: mux.Pattern})
//
// and `meridian keys …` (functions/local/keys.go) calls AddKey, ListKeys, RevokeKey, ReadUsage and LoadPlans.
package gateway
