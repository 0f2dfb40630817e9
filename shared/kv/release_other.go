//go:build !linux

package kv

import bolt "go.etcd.io/bbolt"

// releaseMapped does nothing where madvise is not there.
func releaseMapped(*bolt.DB) {}

// adviseScan does nothing where madvise is not there.
func adviseScan(*bolt.DB) {}
