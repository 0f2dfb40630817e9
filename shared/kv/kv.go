// Package kv is the report store: the records behind the agriculture and
// energy reports, kept in one single-table design that is the same on a
// local bbolt file ([Bolt], the default), on DynamoDB (package
// meridian/shared/kv/dynamokv, on AWS) and in memory ([Mem], for tests).
//
// # The single-table design
//
// Every record is an [Item]: a partition key (PK), a sort key (SK) and the
// record itself as opaque bytes (JSON written by the callers). Every read is
// an exact PK plus either nothing, an SK prefix or an inclusive SK range,
// answered in SK order (bytewise, ascending or descending) one page at a
// time. Nothing scans the table to answer a request: that is DynamoDB's
// cheap access path (Query on the table's own key, no secondary index), and
// on bbolt it is a cursor seek followed by a sequential read.
//
// An access pattern that needs another key gets its own copy of the record:
// items are duplicated per access pattern (the adjacency-list habit of
// single-table designs), so a well is stored once under its legal
// subdivision, once under its operator's business-associate code and once
// under its licence, each with the sort key of the list order that pattern
// serves (a date, a number, a name). A list order is therefore a sort key,
// never a sort in memory, and paging is a cursor (the last SK of the
// previous page), never an offset. Duplication costs space at ingest; it
// buys reads that are one seek whatever the data size, on a laptop and on
// DynamoDB alike, and a store interface small enough to implement three
// times and test with one suite (package meridian/shared/kv/kvtest).
//
// The domain keys (by LSD, quarter section, operator BA code, disposition
// number, pipeline licence, expiry date, ...) are defined by the callers and
// documented with their domains, the agriculture and energy report
// packages; this package knows nothing of them.
//
// # Datasets and versions
//
// Report data is ingested a dataset at a time (one public source, such as a
// provincial well list), and a dataset must change all at once: a reader
// sees the previous ingest or the new one, never half of each, and a failed
// ingest changes nothing. [Publish] gives that on every store without
// transactions across items:
//
//   - Each ingest gets a version, an integer one above the dataset's last
//     (1, 2, 3, ...), reserved with a compare-and-swap ([Store.Swap]) of
//     the dataset's version counter (PK "DATASET#LAST", SK "<name>"): two
//     publishes of one dataset never get the same version. The items it
//     writes are stored under partition keys namespaced by dataset and
//     version, "<name>@<version>#<pk>" (callers write and read
//     un-namespaced keys through [Writer] and [Dataset]).
//   - Once every item is written, one item flips: the dataset pointer, PK
//     "DATASET" and SK "<name>", whose data names the version to read (and
//     the source, the file date, whether it is demo data and the counts,
//     for meta.sources). Readers go through the pointer ([Open]), so the new
//     version becomes visible with that single write. The flip is a
//     compare-and-swap too: it happens only if the pointer still holds
//     what this Publish read before reserving its version.
//   - Then the items of versions older than the one just replaced are
//     deleted: the replaced version stays until the next Publish, so a
//     reader that opened it just before the flip (a request in flight, a
//     Lambda holding the pointer) still reads all of it. Versions above the
//     new one are left alone: they belong to publishes still running. On
//     bbolt and in memory that is a prefix scan of "<name>@"; on DynamoDB,
//     where a prefix of a partition key cannot be queried, it is a
//     paginated Scan of the whole table with the filter begins_with(pk,
//     :prefix) and only the keys projected: a full-table read, acceptable
//     at ingest time only and never done on a request path.
//   - If the write fails (the callback's error or a store error), Publish
//     deletes what the new version wrote, best effort, and the previous
//     version stays served. Leftovers of a failed cleanup are invisible (no
//     pointer names them), are never reused (versions are reserved before
//     writing), and are deleted by the dataset's next successful Publish.
//
// Re-running an ingest of the same files writes the same items under a new
// version, so what readers see is unchanged: ingest is idempotent.
//
// # Concurrent publishes of one dataset
//
// Two Publish calls of the same dataset may run at once (a scheduled
// refresh and a manual one, two machines): they never merge. Each reads
// the pointer, then reserves its own version; whichever flips first wins,
// and the other's flip finds the pointer changed, fails with an error
// wrapping [ErrConflict] and deletes its own items. The proof is short: a
// publish's pointer read precedes its reservation, so any flip that
// happens after it changes the pointer it expects (pointer data carry
// the version and the time of publishing, and never repeat); and a
// publish deletes only versions below its own, which were reserved
// before it and so read the pointer before its flip, and can no longer
// flip. Publishes that do not overlap both succeed, one after the other.
// Different datasets never interfere. Keeping the replaced version costs
// one dataset's worth of storage; a reader could still find its items
// gone only if two Publish calls of the same dataset completed while it
// held the older pointer.
//
// # Consistency of reads
//
// Bolt and Mem read what was last written. DynamoDB's default reads are
// eventually consistent: for about a second after a write, a read may not
// reflect it. So the DynamoDB store always reads the pointers and counters
// (Get of PK "DATASET" or "DATASET#LAST") strongly consistently, one item per
// request at 1 read unit instead of 0.5; and a [Dataset] asks for strongly
// consistent reads of its items (Query.Consistent, and a mark on the
// context of Get) while its version is less than [SettleWindow] old, twice the read cost for a minute after
// each flip and the normal cost afterwards. Items of a version are never
// rewritten, so once settled, an eventually consistent read is exact.
//
// # Limits and validation
//
// Keys follow DynamoDB's rules everywhere, so the local store accepts
// nothing that AWS would refuse: PK and SK are non-empty UTF-8 of at most
// [MaxPKBytes] and [MaxSKBytes] bytes, a PK contains no NUL byte (bbolt
// keys are PK, 0x00, SK), and an item is at most [MaxItemBytes]. Invalid
// keys and queries are errors wrapping [io/fs.ErrInvalid]: bugs of the
// caller, reported as 500 at the edge.
//
// # Errors
//
// Every failure of the store itself (throttling, network, timeouts, server
// errors, a bbolt file locked by another process or unreadable) is an
// *apierr.Error of kind Unavailable (503 upstream_unavailable), whose cause
// wraps [ErrUnavailable]; callers return it as is. A context canceled by
// the caller gives an error wrapping [context.Canceled] instead.
//
// # Running against an external DynamoDB emulator
//
// Plain `go test ./...` is hermetic: the DynamoDB adapter runs the contract
// suite against the in-process minidyn emulator through the real SDK
// client. To run it against another implementation, for example dynoxide
// from npm:
//
//	cd "$(mktemp -d)" && npm i @dynoxide/linux-x64@1.2.1
//	node_modules/@dynoxide/linux-x64/dynoxide serve --host 127.0.0.1 --port 8100 &
//	MERIDIAN_DYNAMODB_ENDPOINT=http://127.0.0.1:8100 go test -count=1 -run 'External' ./shared/kv/dynamokv
//
// The test creates a table of its own per case (credentials "test"/"test"
// unless MERIDIAN_DYNAMODB_ACCESS_KEY and MERIDIAN_DYNAMODB_SECRET_KEY are
// set) and deletes it afterwards. -count=1 matters: go test caches results
// keyed on the environment.
package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// Item is one record of the store.
type Item struct {
	PK   string
	SK   string
	Data []byte // the record, usually JSON; nil when empty
}

// Key names one item.
type Key struct {
	PK string
	SK string
}

// Query selects items of one partition by sort key.
type Query struct {
	// PK is the exact partition key; required.
	PK string
	// SKPrefix selects sort keys that begin with it; "" selects all. It is
	// ignored when SKFrom or SKTo is set.
	SKPrefix string
	// SKFrom and SKTo select sort keys in [SKFrom, SKTo] (both inclusive);
	// either may be empty for an open end.
	SKFrom, SKTo string
	// Reverse returns items in descending SK order.
	Reverse bool
	// Limit is the page size: DefaultLimit when 0 or less, at most MaxLimit.
	Limit int
	// After is the cursor of the previous page (its Next): the page starts
	// with the first item after it in the query's order.
	After string
	// Consistent asks for a strongly consistent read: one that reflects
	// every write acknowledged before it. Bolt and Mem always read so;
	// the DynamoDB store sends ConsistentRead (twice the read cost).
	// Dataset sets it for a version published less than SettleWindow ago.
	Consistent bool
}

// Page is one page of a Query's answer.
type Page struct {
	Items []Item
	// Next is the cursor of the next page (the SK of the last item), or ""
	// when no items follow.
	Next string
}

// Page sizes of Query.
const (
	DefaultLimit = 1000
	MaxLimit     = 1000
)

// Limits of keys and items: DynamoDB's, enforced by every store.
const (
	MaxPKBytes   = 2048
	MaxSKBytes   = 1024
	MaxItemBytes = 400 << 10 // attribute names and values: "pk", "sk", "data"
)

// Store is the report store. Every implementation passes the suite in
// package kvtest; it is safe for concurrent use.
//
// Request paths use Get and Query only (consumers declare that smaller
// interface); Put, Swap, Delete and ScanKeys are for ingest.
type Store interface {
	// Get returns the item with the key, or ok == false if there is none.
	Get(ctx context.Context, pk, sk string) (item Item, ok bool, err error)
	// Query returns one page of the items of q.PK that q selects.
	Query(ctx context.Context, q Query) (Page, error)
	// Put writes items, replacing items with the same key; within one call
	// the last item with a key wins. It is atomic on bbolt and in memory
	// (one transaction) but not on DynamoDB (batches of 25): Publish is the
	// way to make many items visible at once.
	Put(ctx context.Context, items []Item) error
	// Swap writes item if the stored item with its key holds exactly the
	// data expect, or, when expect is empty, if no item has its key; it
	// reports whether it wrote. swapped == false with a nil error means the
	// condition did not hold. The check and the write are one atomic step
	// on every store (a transaction on bbolt, a lock in memory, a
	// conditional PutItem on DynamoDB): this is what lets two Publish
	// calls of one dataset race without merging. An item with empty data
	// cannot be expected; Swap is meant for small control items (the
	// dataset pointers and version counters).
	Swap(ctx context.Context, item Item, expect []byte) (swapped bool, err error)
	// Delete removes the items with the keys; missing keys are not an error.
	Delete(ctx context.Context, keys []Key) error
	// ScanKeys calls fn with the keys of every item whose PK begins with
	// pkPrefix, a batch at a time, in no particular order. fn may Put and
	// Delete. On DynamoDB this reads the whole table: ingest-time only.
	ScanKeys(ctx context.Context, pkPrefix string, fn func(keys []Key) error) error
	// Close releases the store.
	Close() error
}

// ItemScanner is a Store whose scan also reads the items' data, in key
// order (PK, then SK), a batch at a time: Bolt and Mem. Tile builds read a
// whole dataset with it instead of a Get or Query per key. fn may keep the
// items; it must not write to the store.
type ItemScanner interface {
	ScanItems(ctx context.Context, pkPrefix string, fn func(items []Item) error) error
}

// Viewer is a Store that hands the items a query selects to a function
// inside one read transaction, where the store keeps them, instead of
// copying a page out: Bolt. Dataset.View uses it, and pages through
// Query on the other stores.
type Viewer interface {
	// View calls fn with the sort key and data of every item q selects, in
	// q's order from q.After (q.Limit is ignored), until fn returns an
	// error; ErrStopView ends the walk without one. sk and data are valid
	// only during the call: fn copies what it keeps, and never writes to
	// data.
	View(ctx context.Context, q Query, fn func(sk string, data []byte) error) error
}

// ErrStopView, returned by a View function, ends the walk: View returns nil.
var ErrStopView = errors.New("kv: view stopped")

// ErrUnavailable is wrapped by the cause of every store failure that is not
// the caller's: throttling, timeouts, network and server errors, a locked or
// unreadable file. The error itself is an *apierr.Error of kind Unavailable.
var ErrUnavailable = errors.New("kv: store unavailable")

// Messages of the 503 errors, safe to show a client; a Store's
// implementation gives them with its [apierr.Unavailablef] errors.
const (
	ReadMessage  = "the report data cannot be read at the moment; try again later"
	WriteMessage = "the report data cannot be written at the moment; try again later"
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("kv: "+format+": %w", append(args, fs.ErrInvalid)...)
}

func checkPK(pk string) error {
	switch {
	case pk == "":
		return invalidf("empty partition key")
	case len(pk) > MaxPKBytes:
		return invalidf("partition key of %d bytes (at most %d)", len(pk), MaxPKBytes)
	case !utf8.ValidString(pk):
		return invalidf("partition key %q is not UTF-8", pk)
	case strings.IndexByte(pk, 0) >= 0:
		return invalidf("partition key %q contains a NUL byte", pk)
	}
	return nil
}

func checkSK(sk string) error {
	switch {
	case sk == "":
		return invalidf("empty sort key")
	case len(sk) > MaxSKBytes:
		return invalidf("sort key of %d bytes (at most %d)", len(sk), MaxSKBytes)
	case !utf8.ValidString(sk):
		return invalidf("sort key %q is not UTF-8", sk)
	}
	return nil
}

// The checks every Store runs on its arguments, so that all of them accept
// and refuse the same keys. Each returns an error wrapping [fs.ErrInvalid].

// CheckKey validates a key.
func CheckKey(pk, sk string) error {
	if err := checkPK(pk); err != nil {
		return err
	}
	return checkSK(sk)
}

// itemSize is the size DynamoDB counts for an item of this package.
func itemSize(it Item) int {
	return len("pk") + len(it.PK) + len("sk") + len(it.SK) + len("data") + len(it.Data)
}

// CheckItem validates an item's key and size.
func CheckItem(it Item) error {
	if err := CheckKey(it.PK, it.SK); err != nil {
		return err
	}
	if n := itemSize(it); n > MaxItemBytes {
		return invalidf("item %q/%q of %d bytes (at most %d)", it.PK, it.SK, n, MaxItemBytes)
	}
	return nil
}

// CheckItems validates the items of a Put.
func CheckItems(items []Item) error {
	for _, it := range items {
		if err := CheckItem(it); err != nil {
			return err
		}
	}
	return nil
}

// CheckKeys validates the keys of a Delete.
func CheckKeys(keys []Key) error {
	for _, k := range keys {
		if err := CheckKey(k.PK, k.SK); err != nil {
			return err
		}
	}
	return nil
}

// CheckQuery validates q and returns its page size.
func CheckQuery(q Query) (limit int, err error) {
	if err := checkPK(q.PK); err != nil {
		return 0, err
	}
	for _, s := range []string{q.SKPrefix, q.SKFrom, q.SKTo, q.After} {
		if len(s) > MaxSKBytes || !utf8.ValidString(s) {
			return 0, invalidf("query of %q: sort key bound %q is not UTF-8 of at most %d bytes", q.PK, s, MaxSKBytes)
		}
	}
	limit = q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	return min(limit, MaxLimit), nil
}

// CheckPrefix validates the partition key prefix of a ScanKeys.
func CheckPrefix(pkPrefix string) error {
	if len(pkPrefix) > MaxPKBytes || !utf8.ValidString(pkPrefix) || strings.IndexByte(pkPrefix, 0) >= 0 {
		return invalidf("invalid partition key prefix %q", pkPrefix)
	}
	return nil
}

// bounds is the set of sort keys a query selects: lo and hi, each inclusive
// or exclusive, either possibly absent.
type bounds struct {
	lo, hi         string
	hasLo, hasHi   bool
	loExcl, hiExcl bool
}

// queryBounds returns the sort keys q selects with its cursor applied.
// afterUsed reports whether q.After narrowed them (a cursor before the
// start of the query's order is ignored); empty reports that none can match.
func queryBounds(q Query) (b bounds, afterUsed, empty bool) {
	switch {
	case q.SKFrom != "" || q.SKTo != "":
		b = bounds{lo: q.SKFrom, hasLo: q.SKFrom != "", hi: q.SKTo, hasHi: q.SKTo != ""}
	case q.SKPrefix != "":
		b = bounds{lo: q.SKPrefix, hasLo: true}
		if end, ok := prefixEnd(q.SKPrefix); ok {
			b.hi, b.hasHi, b.hiExcl = end, true, true
		}
	}
	if q.After != "" {
		if !q.Reverse && (!b.hasLo || q.After >= b.lo) {
			b.lo, b.hasLo, b.loExcl, afterUsed = q.After, true, true, true
		}
		if q.Reverse && (!b.hasHi || q.After < b.hi || q.After == b.hi && !b.hiExcl) {
			b.hi, b.hasHi, b.hiExcl, afterUsed = q.After, true, true, true
		}
	}
	if b.hasLo && b.hasHi && (b.lo > b.hi || b.lo == b.hi && (b.loExcl || b.hiExcl)) {
		empty = true
	}
	return b, afterUsed, empty
}

// QueryCursor reports what q's cursor does, for a store that passes the
// bounds to a server (DynamoDB): afterUsed, that q.After narrows the
// selection (a cursor before the start of the query's order is ignored);
// empty, that no sort key can match.
func QueryCursor(q Query) (afterUsed, empty bool) {
	_, afterUsed, empty = queryBounds(q)
	return afterUsed, empty
}

// aboveLo reports whether sk is not below the lower bound.
func (b bounds) aboveLo(sk string) bool {
	return !b.hasLo || sk > b.lo || sk == b.lo && !b.loExcl
}

// belowHi reports whether sk is not above the upper bound.
func (b bounds) belowHi(sk string) bool {
	return !b.hasHi || sk < b.hi || sk == b.hi && !b.hiExcl
}

// prefixEnd returns the smallest string greater than every string that
// begins with p, or ok == false if there is none (p is all 0xff bytes).
func prefixEnd(p string) (end string, ok bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// DedupeItems returns items with only the last item of each key, in the
// order of those last occurrences.
func DedupeItems(items []Item) []Item {
	seen := make(map[Key]int, len(items))
	for i, it := range items {
		seen[Key{it.PK, it.SK}] = i
	}
	if len(seen) == len(items) {
		return items
	}
	out := make([]Item, 0, len(seen))
	for i, it := range items {
		if seen[Key{it.PK, it.SK}] == i {
			out = append(out, it)
		}
	}
	return out
}

// DedupeKeys returns keys without repeats.
func DedupeKeys(keys []Key) []Key {
	seen := make(map[Key]bool, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// cloneData returns a copy of b, nil when b is empty.
func cloneData(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// canceled reports whether the caller's context was canceled (as opposed to
// a deadline, which is the store being too slow: Unavailable).
func canceled(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled)
}

// swapHolds reports whether Swap's condition holds for a stored item that
// exists (with data()) or not: expect empty means absent, otherwise the
// item must exist with exactly that data.
func swapHolds(exists bool, data func() []byte, expect []byte) bool {
	if len(expect) == 0 {
		return !exists
	}
	return exists && bytes.Equal(data(), expect)
}
