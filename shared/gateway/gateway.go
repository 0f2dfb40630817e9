package gateway

import (
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Options configure a Gateway.
type Options struct {
	// KeysPath is the keys file (required), usually <data dir>/keys.json. A
	// missing file means no keys yet; it is picked up when it appears.
	KeysPath string
	// UsagePath is the usage file, usually <data dir>/usage.json. Empty
	// keeps counts in memory only.
	UsagePath string
	// Plans is the catalogue; nil means DefaultPlans(). The local server
	// passes LoadPlans(<data dir>/plans.json), as the keys CLI does.
	Plans Plans
	// Now is the clock for rate limits and quota months; nil means time.Now.
	Now func() time.Time
	// Logger receives reloads and write failures; nil means slog.Default().
	Logger *slog.Logger
	// SyncInterval is how often the keys file is checked for changes and
	// changed counts are written; 0 means one second. A negative value
	// starts no background goroutine: call Reload and Flush yourself.
	SyncInterval time.Duration
}

// Gateway enforces keys, plans, rate limits and quotas for the local server.
// Its methods are safe for concurrent use.
type Gateway struct {
	keysPath string
	plans    Plans
	now      func() time.Time
	log      *slog.Logger
	usage    *usageCounts

	table atomic.Pointer[keyTable]

	reloadMu sync.Mutex // serializes reloads; guards stamp
	stamp    fileStamp  // the keys file version in table

	flushErr string // last flush error logged; only the loop touches it

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New loads the keys and usage files and, unless SyncInterval < 0, starts
// the goroutine that follows the keys file and writes counts; Close stops it.
func New(o Options) (*Gateway, error) {
	if o.KeysPath == "" {
		return nil, errors.New("gateway: Options.KeysPath is required")
	}
	g := &Gateway{keysPath: o.KeysPath, plans: o.Plans, now: o.Now, log: o.Logger}
	if g.plans == nil {
		g.plans = DefaultPlans()
	}
	if err := g.plans.Validate(); err != nil {
		return nil, err
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	u, err := loadUsage(o.UsagePath)
	if err != nil {
		return nil, err
	}
	g.usage = u
	g.table.Store(&keyTable{})
	if err := g.Reload(); err != nil {
		return nil, err
	}
	if g.stamp.info == nil {
		g.log.Warn("gateway: no keys file yet; product routes answer 401 until keys are added with `meridian keys add`", "path", g.keysPath)
	}
	if o.SyncInterval >= 0 {
		d := o.SyncInterval
		if d == 0 {
			d = time.Second
		}
		g.stop = make(chan struct{})
		g.done = make(chan struct{})
		go g.loop(d)
	}
	return g, nil
}

// Close stops the background goroutine and writes the counts. The Gateway
// still answers requests afterwards, but nothing more is written unless Flush
// is called.
func (g *Gateway) Close() error {
	g.closeOnce.Do(func() {
		if g.stop != nil {
			close(g.stop)
			<-g.done
		}
	})
	return g.Flush()
}

// Flush writes the counts to the usage file if they changed.
func (g *Gateway) Flush() error { return g.usage.flush() }

// Usage returns key id's counts for the current UTC month.
func (g *Gateway) Usage(keyID string) map[Product]int64 {
	return g.usage.month(keyID, monthOf(g.now()))
}

func (g *Gateway) loop(d time.Duration) {
	defer close(g.done)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			if _, err := g.reloadIfChanged(); err != nil {
				g.log.Error("gateway: keys file not reloaded; the previous keys stay in force", "path", g.keysPath, "err", err)
			}
			g.flushLogged()
		}
	}
}

// flushLogged flushes and logs a failure once, and the recovery.
func (g *Gateway) flushLogged() {
	err := g.Flush()
	switch {
	case err != nil && err.Error() != g.flushErr:
		g.log.Error("gateway: usage counts not written; retrying every interval", "err", err)
		g.flushErr = err.Error()
	case err == nil && g.flushErr != "":
		g.log.Info("gateway: usage counts written again")
		g.flushErr = ""
	}
}

// Reload reads the keys file now, whether or not it changed. On error the
// previous keys stay in force.
func (g *Gateway) Reload() error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	st, err := statFile(g.keysPath)
	if err != nil {
		return fmt.Errorf("gateway: stat keys: %w", err)
	}
	return g.load(st)
}

// reloadIfChanged reloads when the keys file is another version than the
// one loaded. A version that fails to load is not tried again until it
// changes.
func (g *Gateway) reloadIfChanged() (bool, error) {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	st, err := statFile(g.keysPath)
	if err != nil {
		return false, fmt.Errorf("gateway: stat keys: %w", err)
	}
	if st.same(g.stamp) {
		return false, nil
	}
	return true, g.load(st)
}

// load reads the keys file and swaps the table in. reloadMu is held.
func (g *Gateway) load(st fileStamp) error {
	g.stamp = st
	doc, err := readKeysDoc(g.keysPath)
	if err != nil {
		return err
	}
	old := g.table.Load()
	t := g.buildTable(doc, old)
	g.table.Store(t)
	if old.byID != nil || len(t.byID) > 0 {
		g.log.Info("gateway: keys loaded", "path", g.keysPath, "active", len(t.byID))
	}
	return nil
}

// keyTable is an immutable snapshot of the active keys.
type keyTable struct {
	byHash map[[32]byte]*keyEntry
	byID   map[string]*keyEntry
}

type keyEntry struct {
	id     string
	grants [maxProduct + 1]*grant // indexed by Product; nil: not in the key
}

// grant is one product on one key: everything the hot path needs.
type grant struct {
	plan        Plan
	limiter     *rate.Limiter // nil without a rate limit
	slot        slot
	caller      *Caller // context value, shared by every request
	limitHeader string  // X-RateLimit-Limit value; "" without a quota
}

func (t *keyTable) lookup(plain string) *keyEntry {
	if len(plain) > maxKeyLen || t.byHash == nil {
		return nil
	}
	return t.byHash[hashKey(plain)]
}

// buildTable indexes the active keys of doc. Grants whose key, product and
// plan are unchanged from old are carried over, so reloads keep rate buckets.
func (g *Gateway) buildTable(doc keysDoc, old *keyTable) *keyTable {
	t := &keyTable{byHash: make(map[[32]byte]*keyEntry), byID: make(map[string]*keyEntry)}
	for _, r := range doc.Keys {
		if !r.active() {
			continue
		}
		var h [32]byte
		if n, err := hex.Decode(h[:], []byte(r.SHA256)); err != nil || n != len(h) {
			g.log.Warn("gateway: key skipped: sha256 is not 64 hex digits", "id", r.ID, "name", r.Name)
			continue
		}
		if r.ID == "" || t.byID[r.ID] != nil || t.byHash[h] != nil {
			g.log.Warn("gateway: key skipped: empty or duplicate id or hash", "id", r.ID, "name", r.Name)
			continue
		}
		e := &keyEntry{id: r.ID}
		for name, planName := range r.Products {
			p, err := ParseProduct(name)
			if err != nil {
				g.log.Warn("gateway: unknown product in key ignored", "id", r.ID, "product", name)
				continue
			}
			plan, ok := g.plans.Lookup(p, planName)
			if !ok {
				g.log.Warn("gateway: key refused for a product whose plan is unknown", "id", r.ID, "product", name, "plan", planName, "plans", g.plans.Names(p))
				continue
			}
			if oe := old.byID[r.ID]; oe != nil {
				if og := oe.grants[p]; og != nil && og.plan == plan && og.caller.KeyName == r.Name {
					e.grants[p] = og
					continue
				}
			}
			e.grants[p] = newGrant(r, p, plan)
		}
		t.byHash[h] = e
		t.byID[r.ID] = e
	}
	return t
}

func newGrant(r keyRecord, p Product, plan Plan) *grant {
	gr := &grant{plan: plan, caller: &Caller{KeyID: r.ID, KeyName: r.Name, Product: p, Plan: plan.Name}}
	if plan.RatePerSecond > 0 {
		gr.limiter = rate.NewLimiter(rate.Limit(plan.RatePerSecond), plan.Burst)
	}
	if plan.MonthlyQuota > 0 {
		gr.limitHeader = strconv.FormatInt(plan.MonthlyQuota, 10)
	}
	return gr
}
