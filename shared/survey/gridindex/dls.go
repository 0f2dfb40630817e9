package gridindex

import (
	"context"
	"sync/atomic"
	"unsafe"

	"meridian/shared/lld"
)

// dlsGroup is a DLS township as lookups by key find it: its key-leaf
// entry (nil: the index has none) and its blocks by label (blockLabel)
// while the cache holds them (cacheEntry.slot). Its heap is outside the
// cache's bound and counted (CacheStats.GroupBytes): a group of about
// 300 bytes per township of the index asked for, one shared for every
// township it lacks, and a row of dlsTownships (1 KiB) per meridian and
// range asked for, at most 9 x 64 rows (0.6 MiB). Ranges and townships
// past the rows (the survey has none: ranges run to 34, townships to
// 126) take the key's way.
type dlsGroup struct {
	e      *keyEntry
	blocks [37]atomic.Pointer[cacheEntry] // label 0, sections 1-36
}

const (
	dlsRanges    = 64
	dlsTownships = 128
)

type dlsRow [dlsTownships]atomic.Pointer[dlsGroup]

// noGroup is every DLS township the index lacks.
var noGroup dlsGroup

// dlsDense reports whether l is a DLS location whose township the rows
// of version.dls hold.
func dlsDense(l lld.Location) bool {
	return l.System == lld.DLS && int(l.Meridian) <= int(lld.E2) && int(l.Range) < dlsRanges && int(l.Township) < dlsTownships
}

// dlsGroupOf returns l's DLS township group (dlsDense(l)).
func (ix *version) dlsGroupOf(ctx context.Context, l lld.Location) (*dlsGroup, error) {
	col := &ix.dls[l.Meridian][l.Range]
	row := col.Load()
	if row == nil {
		if col.CompareAndSwap(nil, new(dlsRow)) {
			ix.dlsBytes.Add(int64(unsafe.Sizeof(dlsRow{})))
		}
		row = col.Load()
	}
	slot := &row[l.Township]
	if g := slot.Load(); g != nil {
		return g, nil
	}
	e, err := ix.groupOf(ctx, l)
	if err != nil {
		return nil, err // not kept: a read may succeed next time
	}
	g := &noGroup
	if e != nil {
		g = &dlsGroup{e: e}
	}
	if !slot.CompareAndSwap(nil, g) {
		return slot.Load(), nil
	}
	if g != &noGroup {
		ix.dlsBytes.Add(int64(unsafe.Sizeof(dlsGroup{})))
		ix.dlsCount.Add(1)
	}
	return g, nil
}
