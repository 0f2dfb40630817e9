package kv

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ScanRanked calls fn with every item of the version whose PK begins with
// pkPrefix (un-namespaced), ordered by rank(PK), then by key (PK, then
// SK): a partition's items stay together and in SK order. A tile build
// reads a province's quarters township by township this way (rank is the
// grid order of the partition's land).
//
// It reads the store once in key order (ItemScanner: Bolt, Mem) and
// sorts the items through a temporary file, the external sort of a Bolt
// load (boltload.go): memory is the sort budget plus the merge's buffers,
// whatever the dataset's size; disk is the items once more, next to the
// store's file (in the system's temporary directory for a store in
// memory), removed when the scan ends. On a bbolt file that is
// sequential reads where a Query per partition in rank order touched the
// file's pages out of order: a store handle that releases its pages
// (BoltOptions.ReleaseEvery) faulted most of them in again, at about
// 40 µs each on our VMs (3 million quarters: 27 s through Queries, 9 s
// read in key order).
//
// fn may keep the item's PK and SK; its Data is valid until fn returns.
func (d Dataset) ScanRanked(ctx context.Context, pkPrefix string, rank func(pk string) uint64, fn func(Item) error) error {
	if err := d.check(); err != nil {
		return err
	}
	path := filepath.Join(os.TempDir(), "meridian-scan")
	lim := loadLimits{budget: DefaultSortBudget, fanIn: mergeFanIn}
	if b, ok := d.s.(*Bolt); ok {
		path, lim = b.path, b.load // the store's sort budget
	}
	emit := func(k, data []byte) error {
		key := splitBoltKey(k[rankBytes:])
		return fn(Item{PK: key.PK, SK: key.SK, Data: data})
	}
	sort := &boltLoad{path: path, emit: emit, ctx: ctx, lim: lim}
	var (
		lastPK []byte
		r      uint64
		key    []byte
	)
	err := d.ScanItems(ctx, pkPrefix, func(items []Item) error {
		for _, it := range items {
			if string(lastPK) != it.PK { // no allocation: the comparison converts in place
				lastPK = append(lastPK[:0], it.PK...)
				r = rank(it.PK)
			}
			key = binary.BigEndian.AppendUint64(key[:0], r)
			key = append(key, it.PK...)
			key = append(key, 0)
			key = append(key, it.SK...)
			if err := sort.putKey(key, it.Data); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = sort.Close(false)
	} else {
		sort.Close(true)
	}
	return err
}

// ScanItems calls fn with the version's items whose PK begins with
// pkPrefix (un-namespaced), data included, in key order (PK, then SK), a
// store batch at a time: the stores that scan items (ItemScanner: Bolt,
// Mem); any other is an error. fn may keep the items; it must not write
// to the store.
func (d Dataset) ScanItems(ctx context.Context, pkPrefix string, fn func(items []Item) error) error {
	if err := d.check(); err != nil {
		return err
	}
	scanner, ok := d.s.(ItemScanner)
	if !ok {
		return fmt.Errorf("kv: %T cannot scan items in key order: read from a bbolt (or memory) store", d.s)
	}
	return scanner.ScanItems(ctx, d.prefix+pkPrefix, func(items []Item) error {
		for i := range items {
			items[i].PK = strings.TrimPrefix(items[i].PK, d.prefix)
		}
		return fn(items)
	})
}

// rankBytes is the length of the rank before a ScanRanked's sort keys.
const rankBytes = 8

// putKey adds an item by its sort key: a load's bbolt key, or a
// ScanRanked's rank and bbolt key.
func (l *boltLoad) putKey(k, d []byte) error {
	if l.err != nil {
		return l.err
	}
	if l.puts++; l.puts%loadCtxEvery == 0 {
		if err := l.ctx.Err(); err != nil {
			return l.fail(l.ctxErr(err))
		}
	}
	size := len(k) + len(d)
	if len(l.arena) > 0 && len(l.arena)+size > l.lim.budget {
		if err := l.spill(); err != nil {
			return l.fail(err)
		}
	}
	l.grow(size)
	off := len(l.arena)
	l.arena = append(l.arena, k...)
	l.arena = append(l.arena, d...)
	l.ents = append(l.ents, loadEnt{off: uint32(off), klen: uint32(len(k)), dlen: uint32(len(d))})
	return nil
}
