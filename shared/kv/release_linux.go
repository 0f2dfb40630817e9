package kv

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releaseMapped advises the kernel that db's mapped pages are not needed:
// they leave the process's resident set and stay in the page cache. bbolt
// maps its file read-only and shared (writes go through the file, never the
// mapping), so the next read maps the same bytes again: nothing is lost, a
// read after it costs a minor fault.
func releaseMapped(db *bolt.DB) { advise(db, unix.MADV_DONTNEED) }

// adviseScan restores the kernel's default read-ahead on db's mapping,
// which bbolt sets to random access when it maps the file (MADV_RANDOM):
// the faults of a scan then read the file ahead of it instead of one page
// each.
func adviseScan(db *bolt.DB) { advise(db, unix.MADV_NORMAL) }

// advise gives the kernel advice about db's mapped file. It runs inside a
// read transaction, which holds bbolt's mmap lock: a writer cannot remap
// the file meanwhile, so the address range is bbolt's mapping (outside the
// Go heap) for the whole call, and tx.Size is within it.
func advise(db *bolt.DB, advice int) {
	db.View(func(tx *bolt.Tx) error {
		n := tx.Size() &^ int64(unix.Getpagesize()-1)
		if n > 0 {
			// Advice: an error changes nothing that is read.
			unix.Syscall(unix.SYS_MADVISE, db.Info().Data, uintptr(n), uintptr(advice))
		}
		return nil
	})
}
