package kv

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releaseMapped advises the kernel that db's mapped pages are not needed:
// they leave the process's resident set and stay in the page cache. The
// mapping is read-only and shared, so the next read maps the same bytes
// again: nothing is lost, a read after it costs a minor fault. The address
// is bbolt's mmap, outside the Go heap.
func releaseMapped(db *bolt.DB) {
	n := mappedSize(db) &^ (unix.Getpagesize() - 1)
	if n == 0 {
		return
	}
	// Advice: an error changes nothing that is read.
	unix.Syscall(unix.SYS_MADVISE, db.Info().Data, uintptr(n), unix.MADV_DONTNEED)
}
