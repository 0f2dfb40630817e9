package kv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// cleanupTimeout bounds the best-effort deletes Publish makes after a
// failure, which run even when the caller's context is done.
const cleanupTimeout = 2 * time.Minute

// ErrConflict is wrapped by the error of a Publish that lost a race with
// another Publish of the same dataset: the other one changed the dataset's
// pointer after this one read it. The dataset then serves the other
// version, whole; the loser's items are deleted. Run the ingest again if
// its data is the newer.
var ErrConflict = errors.New("kv: dataset changed by a concurrent publish")

// SettleWindow is how long after a version's flip a Dataset reads its items
// with strongly consistent reads (Query.Consistent). DynamoDB's eventually
// consistent reads reflect a write typically within a second; a minute
// covers that with room for clock skew between the publisher (which
// stamps Published) and the reader. Afterwards reads are eventually
// consistent again: items of a published version are never rewritten.
const SettleWindow = time.Minute

// reserveAttempts bounds the retries of the version counter's
// compare-and-swap when other publishes of the dataset keep winning.
const reserveAttempts = 20

// Publish writes a new version of dataset ds.Name with write and makes it
// the version readers see, atomically: see the package doc. It returns the
// new version.
//
// If write returns an error, or the store fails, the previous version stays
// served, what the new version wrote is deleted (best effort), and the
// error is returned. If another Publish of the dataset flipped the pointer
// after this one read it, this one fails with an error wrapping
// ErrConflict and deletes its items: the two never merge. If the new
// version was published but deleting older versions failed, Publish
// returns the new version and an error: the data served is right, and the
// next Publish deletes the leftovers. The version replaced stays in the
// store until the next Publish (see the package doc).
func Publish(ctx context.Context, s Store, ds DatasetInfo, write func(w *Writer) error) (Version, error) {
	if err := checkName(ds.Name); err != nil {
		return 0, err
	}
	name := ds.Name
	r, err := reserveVersion(ctx, s, name)
	if err != nil {
		return 0, fmt.Errorf("kv: publish %s: %w", name, err)
	}
	v, prev := r.next, r.published
	prefix := versionPrefix(name, v)
	w := newWriter(ctx, s, prefix)
	w.v = v
	err = write(w)
	// Also reports a store error the callback ignored; after a failed
	// callback, waits for the writes in flight before deleting them.
	if ferr := w.finish(err != nil); err == nil {
		err = ferr
	}
	if err != nil {
		err = fmt.Errorf("kv: publish %s version %d: %w", name, v, err)
		return 0, errors.Join(err, deleteItems(ctx, s, prefix))
	}
	p := pointer{DatasetInfo: ds, Version: v, Published: time.Now().UTC(), Items: w.n}
	data, err := json.Marshal(p)
	if err != nil {
		return 0, fmt.Errorf("kv: publish %s: encode pointer: %w", name, err)
	}
	// The flip: only if the pointer still holds what this publish read
	// before reserving its version.
	swapped, err := s.Swap(ctx, Item{PK: DatasetPK, SK: name, Data: data}, r.pointer)
	if err != nil || !swapped {
		ambiguous := err != nil
		if ambiguous {
			err = fmt.Errorf("kv: publish %s version %d: write pointer: %w", name, v, err)
		} else {
			err = fmt.Errorf("kv: publish %s version %d: %w (the pointer no longer names version %d)", name, v, ErrConflict, prev)
		}
		// The write may have happened anyway (a timeout, or an SDK retry
		// of an attempt the server applied): only delete the new items if
		// the pointer is known not to name them.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		cur, ok, rerr := Open(cctx, s, name)
		switch {
		case rerr != nil:
			return 0, errors.Join(err, fmt.Errorf("kv: publish %s version %d: pointer unknown, new items kept for the next Publish to delete: %w", name, v, rerr))
		case ok && cur.Version == v:
			// Published after all.
		case ambiguous && ok && cur.Version > v:
			// A later version is served; whether this one was served
			// between the two is unknown, so its items are left for the
			// next Publish, as readers may hold it.
			return 0, errors.Join(err, fmt.Errorf("kv: publish %s version %d: version %d now served; new items kept for the next Publish to delete", name, v, cur.Version))
		default:
			return 0, errors.Join(err, deleteItems(ctx, s, prefix))
		}
	}
	// The version served until now stays, for readers that opened it just
	// before the flip (a request in flight, a Lambda's cached pointer); the
	// next Publish deletes it. Versions above this one belong to publishes
	// still running (they will fail their flip, and delete their own).
	if err := deleteOlder(ctx, s, name, v, prev); err != nil {
		return v, fmt.Errorf("kv: publish %s version %d: published, but older versions remain: %w", name, v, err)
	}
	return v, nil
}

// reservation is what reserveVersion found and took.
type reservation struct {
	next      Version // the version reserved
	published Version // the version the pointer named (0: none)
	pointer   []byte  // the pointer's data as read (nil: none), expected at the flip
}

// reserveVersion returns the next version of dataset name, one above both
// the published one and the last one handed out, and records it as handed
// out with a compare-and-swap of the counter, so that two publishes never
// get the same version and leftovers of a failed Publish are never read as
// part of a later version. The pointer is read before the counter is
// swapped: a publish that reserved a version before another's flip
// therefore always sees a pointer that flip changed, and cannot flip.
func reserveVersion(ctx context.Context, s Store, name string) (reservation, error) {
	for attempt := 1; ; attempt++ {
		var r reservation
		var last Version
		it, ok, err := s.Get(ctx, DatasetPK, name)
		if err != nil {
			return reservation{}, err
		}
		if ok {
			cur, err := decodePointer(s, it)
			if err != nil {
				return reservation{}, err
			}
			last, r.published, r.pointer = cur.Version, cur.Version, it.Data
		}
		lit, lok, err := s.Get(ctx, LastVersionPK, name)
		if err != nil {
			return reservation{}, err
		}
		var expect []byte
		if lok {
			var lv lastVersion
			if err := json.Unmarshal(lit.Data, &lv); err != nil {
				return reservation{}, fmt.Errorf("kv: last version of %s is corrupt: %w", name, err)
			}
			last, expect = max(last, lv.Version), lit.Data
		}
		r.next = last + 1
		data, _ := json.Marshal(lastVersion{Version: r.next})
		swapped, err := s.Swap(ctx, Item{PK: LastVersionPK, SK: name, Data: data}, expect)
		if err != nil {
			return reservation{}, err
		}
		if swapped {
			return r, nil
		}
		if attempt == reserveAttempts {
			return reservation{}, fmt.Errorf("kv: reserve a version of %s: %w (lost %d times)", name, ErrConflict, attempt)
		}
		t := time.NewTimer(Backoff(min(attempt, 4), 2*time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return reservation{}, ctx.Err()
		case <-t.C:
		}
	}
}

// deleteOlder deletes the items of the versions of dataset name below v,
// except those of keep. Unlike the deletes after a failure, it runs under
// the caller's context, without a cap of its own: at province size it is a
// Scan of the whole table and millions of deletes, far beyond
// cleanupTimeout, and the new version is already served, so a caller that
// gives up (Ctrl-C, a deadline) only leaves the leftovers to the next
// Publish.
func deleteOlder(ctx context.Context, s Store, name string, v, keep Version) error {
	cctx := ctx
	prefix := name + "@"
	scan := s.ScanKeys
	if sk, ok := s.(skipScanner); ok {
		// The version just published and the one kept are most of the
		// keys (a fresh boltdir file holds nothing else): seek past them.
		skip := []string{versionPrefix(name, v)}
		if keep > 0 {
			skip = append(skip, versionPrefix(name, keep))
		}
		scan = func(ctx context.Context, prefix string, fn func([]Key) error) error {
			return sk.scanKeysSkipping(ctx, prefix, skip, fn)
		}
	}
	err := scan(cctx, prefix, func(keys []Key) error {
		del := keys[:0:0]
		for _, k := range keys {
			if w, ok := keyVersion(k.PK, prefix); ok && w < v && w != keep {
				del = append(del, k)
			}
		}
		if len(del) == 0 {
			return nil
		}
		return s.Delete(cctx, del)
	})
	if err != nil {
		return fmt.Errorf("kv: delete items under %s: %w", prefix, err)
	}
	return nil
}

// skipScanner is implemented by stores whose key scan can seek past the
// keys of a prefix without reading them ([Bolt]): deleteOlder then reads
// the keys it deletes, not the millions of the version it just published
// (on a province-size bbolt file, a scan of 7.6 M keys through 4.6 GB).
type skipScanner interface {
	scanKeysSkipping(ctx context.Context, pkPrefix string, skip []string, fn func([]Key) error) error
}

// keyVersion returns the version of a dataset item's partition key,
// "<name>@<version>#<pk>", given "<name>@".
func keyVersion(pk, prefix string) (Version, bool) {
	rest, ok := strings.CutPrefix(pk, prefix)
	if !ok {
		return 0, false
	}
	n, _, ok := strings.Cut(rest, "#")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	return Version(v), err == nil && v > 0
}

// deleteItems deletes the items whose PK begins with prefix. It goes on after the caller's context is done, for
// cleanupTimeout at most.
func deleteItems(ctx context.Context, s Store, prefix string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := s.ScanKeys(cctx, prefix, func(keys []Key) error {
		return s.Delete(cctx, keys)
	})
	if err != nil {
		return fmt.Errorf("kv: delete items under %s: %w", prefix, err)
	}
	return nil
}

// CarryVersions records in to, for every dataset from has published or
// handed a version to, the last version handed out, so that a store that
// replaces from (a fresh file per ingest) continues from's version numbers
// rather than starting again at 1: a version number then names one
// content for the life of a deployment (ETags and caches rely on it). It
// copies no items.
func CarryVersions(ctx context.Context, from, to Store) error {
	last := map[string]Version{}
	ds, err := Datasets(ctx, from)
	if err != nil {
		return err
	}
	for _, d := range ds {
		last[d.Info.Name] = d.Version
	}
	q := Query{PK: LastVersionPK, Consistent: true}
	for {
		page, err := from.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			var lv lastVersion
			if err := json.Unmarshal(it.Data, &lv); err != nil {
				return fmt.Errorf("kv: last version of %s is corrupt: %w", it.SK, err)
			}
			last[it.SK] = max(last[it.SK], lv.Version)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	items := make([]Item, 0, len(last))
	for name, v := range last {
		data, _ := json.Marshal(lastVersion{Version: v})
		items = append(items, Item{PK: LastVersionPK, SK: name, Data: data})
	}
	if len(items) == 0 {
		return nil
	}
	return to.Put(ctx, items)
}

// Backoff returns the wait after an attempt (1 for the first): full jitter
// below min(50 ms * 2^(attempt-1), ceil), plus a millisecond. Publish waits
// it between two tries at reserving a version, and the DynamoDB store
// between two attempts at a batch.
func Backoff(attempt int, ceil time.Duration) time.Duration {
	const base = 50 * time.Millisecond
	limit := ceil
	if attempt < 20 {
		limit = min(base<<(attempt-1), ceil)
	}
	return rand.N(limit) + time.Millisecond
}
