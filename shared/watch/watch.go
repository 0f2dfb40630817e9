// Package watch is the change feed's webhooks: a key's watches over legal
// locations, the deliveries of each energy version's changes in them
// (Dispatch), signed with HMAC-SHA256 and retried with exponential
// backoff and jitter for 24 hours (Send, Runner), and the /watches routes
// (Handler).
//
// Everything is kept in a kv.Store that is not a versioned dataset: a
// bbolt file in the data directory locally (datadir.Watches), a DynamoDB
// table on AWS. Its keys:
//
//	PK                SK                           item
//	WATCHES           <watch id>                   a watch (its secret included)
//	DELIV#<watch id>  <inverted version>#<batch>   a delivery: its body, state and attempts
//	OUTBOX            <next attempt, RFC 3339>#<watch id>#<delivery sk>   a pending delivery, by when it is due
//	STATE             dispatched                   the last energy version dispatched
//
// A key holds at most MaxWatchesPerKey watches, so every watch is listed
// by reading the WATCHES partition (dispatch, a key's list) in bounded
// memory: the watches' areas, at most MaxAreas each.
package watch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

// Limits of a watch.
const (
	MaxAreas         = 10_000
	MaxWatchesPerKey = 100
	MaxBatch         = 100              // changes per delivery
	RetryFor         = 24 * time.Hour   // a delivery is retried until this long after its first attempt
	firstBackoff     = 30 * time.Second // the wait after the first failure, doubled after each
	maxBackoff       = time.Hour
)

// Watch is a key's standing request for the changes in its areas.
type Watch struct {
	ID          string              `json:"id"`
	URL         string              `json:"url"`
	Areas       []string            `json:"areas"`           // canonical legal locations
	Kinds       []energy.ChangeKind `json:"kinds,omitempty"` // empty: every kind
	Description string              `json:"description,omitempty"`
	CreatedAt   string              `json:"created_at"`
}

// stored is a watch as the store keeps it: with its owner (the key id,
// never the key) and its signing secret.
type stored struct {
	Watch
	Owner  string `json:"owner"`
	Secret string `json:"secret"`
}

// Delivery is one batch of a version's changes for one watch.
type Delivery struct {
	ID          string    `json:"id"` // the idempotency key: the same for every attempt
	WatchID     string    `json:"watch_id"`
	Version     int64     `json:"version"` // the energy data version dispatched
	Changes     int       `json:"changes"`
	State       string    `json:"state"` // pending, delivered, failed
	Attempts    []Attempt `json:"attempts"`
	NextAttempt string    `json:"next_attempt_at,omitempty"`
	CreatedAt   string    `json:"created_at"`
	Body        []byte    `json:"body,omitempty"` // what is sent: kept so that every attempt sends the same bytes
}

// Attempt is one try of a delivery.
type Attempt struct {
	At         string `json:"at"`
	Status     int    `json:"status,omitempty"` // the receiver's HTTP status, 0 when none came
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Delivery states.
const (
	Pending   = "pending"
	Delivered = "delivered"
	Failed    = "failed"
)

// Payload is the JSON body of a delivery.
type Payload struct {
	DeliveryID string          `json:"delivery_id"`
	WatchID    string          `json:"watch_id"`
	Version    int64           `json:"version"`
	AsOf       string          `json:"as_of"`
	Changes    []energy.Change `json:"changes"`
}

const (
	pkWatches = "WATCHES"
	pkOutbox  = "OUTBOX"
	pkState   = "STATE"
	skState   = "dispatched"
)

func deliveriesKey(watchID string) string { return "DELIV#" + watchID }

// deliverySK orders a watch's deliveries newest first.
func deliverySK(version int64, batch int) string {
	return energy.Inverted(float64(version), 1) + fmt.Sprintf("#%04d", batch)
}

func outboxSK(at time.Time, watchID, sk string) string {
	return at.UTC().Format(time.RFC3339Nano) + "#" + watchID + "#" + sk
}

// Store keeps watches and deliveries in a kv.Store.
type Store struct {
	kv kv.Store
}

// NewStore returns the watches kept in s.
func NewStore(s kv.Store) *Store { return &Store{kv: s} }

// newID returns a random id with prefix.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// all returns every watch.
func (s *Store) all(ctx context.Context) ([]stored, error) {
	var out []stored
	q := kv.Query{PK: pkWatches, Limit: kv.MaxLimit}
	for {
		pg, err := s.kv.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, it := range pg.Items {
			var w stored
			if err := json.Unmarshal(it.Data, &w); err != nil {
				return nil, fmt.Errorf("watch: %s: %w", it.SK, err)
			}
			out = append(out, w)
		}
		if pg.Next == "" {
			return out, nil
		}
		q.After = pg.Next
	}
}

// get returns watch id, if it exists.
func (s *Store) get(ctx context.Context, id string) (stored, bool, error) {
	it, ok, err := s.kv.Get(ctx, pkWatches, id)
	if err != nil || !ok {
		return stored{}, false, err
	}
	var w stored
	err = json.Unmarshal(it.Data, &w)
	return w, err == nil, err
}

func (s *Store) put(ctx context.Context, w stored) error {
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return s.kv.Put(ctx, []kv.Item{{PK: pkWatches, SK: w.ID, Data: b}})
}

// Dispatched returns the last energy version dispatched, 0 for none.
func (s *Store) Dispatched(ctx context.Context) (int64, error) {
	it, ok, err := s.kv.Get(ctx, pkState, skState)
	if err != nil || !ok {
		return 0, err
	}
	var v int64
	_, err = fmt.Sscan(string(it.Data), &v)
	return v, err
}

// MarkDispatched records that version v's deliveries are made.
func (s *Store) MarkDispatched(ctx context.Context, v int64) error {
	return s.kv.Put(ctx, []kv.Item{{PK: pkState, SK: skState, Data: []byte(fmt.Sprint(v))}})
}

// deliveries returns a page of watch id's deliveries, newest first.
func (s *Store) deliveries(ctx context.Context, watchID string, limit int, after string) ([]Delivery, string, error) {
	pg, err := s.kv.Query(ctx, kv.Query{PK: deliveriesKey(watchID), Limit: limit, After: after})
	if err != nil {
		return nil, "", err
	}
	out := make([]Delivery, 0, len(pg.Items))
	for _, it := range pg.Items {
		var d Delivery
		if err := json.Unmarshal(it.Data, &d); err != nil {
			return nil, "", err
		}
		out = append(out, d)
	}
	return out, pg.Next, nil
}

func (s *Store) putDelivery(ctx context.Context, sk string, d Delivery) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return s.kv.Put(ctx, []kv.Item{{PK: deliveriesKey(d.WatchID), SK: sk, Data: b}})
}

func (s *Store) getDelivery(ctx context.Context, watchID, sk string) (Delivery, bool, error) {
	it, ok, err := s.kv.Get(ctx, deliveriesKey(watchID), sk)
	if err != nil || !ok {
		return Delivery{}, false, err
	}
	var d Delivery
	err = json.Unmarshal(it.Data, &d)
	return d, err == nil, err
}
