// Package blobtest is the contract test suite of blob.Store: every
// implementation, and every wrapper such as blob.Cached, must pass Run.
//
//	func TestContract(t *testing.T) {
//		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blob.Store {
//			s := blob.NewMem()
//			for k, v := range objects {
//				s.Put(t.Context(), k, bytes.NewReader(v))
//			}
//			return s
//		})
//	}
//
// The contract itself is written down in the doc of package blob.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"meridian/shared/blob"
)

// Objects returns the objects Run stores: binary content with every byte
// value, sizes around 64 KiB block boundaries, an empty object and keys in
// subdirectories. Each call returns new slices.
func Objects() map[string][]byte {
	allBytes := make([]byte, 1024)
	for i := range 512 {
		allBytes[i] = byte(i) // 0..255 twice
	}
	fill(allBytes[512:], 1)
	leaf := bytes.Repeat([]byte("NW-36-42-3-W4\n"), 100)
	return map[string][]byte{
		"all-bytes.bin":    allBytes,
		"big.bin":          fill(make([]byte, 300_000), 2), // 4 blocks of 64 KiB and a part
		"exact.bin":        fill(make([]byte, 64<<10), 3),  // exactly one 64 KiB block
		"empty":            {},
		"dir/sub/leaf.idx": leaf,
		"dir/other.bin":    fill(make([]byte, 10), 4),
	}
}

// fill fills b with pseudo-random bytes from seed and returns it.
func fill(b []byte, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x6d65726964696e))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Run checks the contract of blob.Store against the store newStore returns
// holding objects (see Objects). newStore is called once.
func Run(t *testing.T, newStore func(t *testing.T, objects map[string][]byte) blob.Store) {
	t.Helper()
	objects := Objects()
	s := newStore(t, Objects())
	t.Run("ReadRange", func(t *testing.T) { testReadRange(t, s, objects) })
	t.Run("Missing", func(t *testing.T) { testMissing(t, s) })
	t.Run("Invalid", func(t *testing.T) { testInvalid(t, s) })
	t.Run("Stat", func(t *testing.T) { testStat(t, s, objects) })
	t.Run("ReadFirst", func(t *testing.T) { testReadFirst(t, s, objects) })
	t.Run("CallerOwnsSlice", func(t *testing.T) { testCallerOwnsSlice(t, s, objects) })
	t.Run("Canceled", func(t *testing.T) { testCanceled(t, s) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, s, objects) })
}

func testReadRange(t *testing.T, s blob.Store, objects map[string][]byte) {
	big := int64(len(objects["big.bin"]))
	const block = 64 << 10
	tests := []struct {
		name   string
		key    string
		off, n int64
		want   int // expected length, checked on top of the content
	}{
		{"start", "big.bin", 0, 100, 100},
		{"middle 16 KiB", "big.bin", 150_000, 16 << 10, 16 << 10},
		{"end", "big.bin", big - 100, 100, 100},
		{"across the end", "big.bin", big - 50, 100, 50},
		{"at the end", "big.bin", big, 10, 0},
		{"past the end", "big.bin", big + 1000, 10, 0},
		{"far past the end", "big.bin", 1 << 40, 10, 0},
		{"whole object", "big.bin", 0, big, int(big)},
		{"length beyond the end", "big.bin", 10, 1 << 40, int(big - 10)},
		{"length to max int64", "big.bin", 10, math.MaxInt64 - 10, int(big - 10)},
		{"offset and length overflow", "big.bin", 10, math.MaxInt64, int(big - 10)},
		{"zero length", "big.bin", 10, 0, 0},
		{"zero length at the end", "big.bin", big, 0, 0},
		{"across a block boundary", "big.bin", block - 10, 20, 20},
		{"three blocks", "big.bin", block - 10, block + 20, block + 20},
		{"one byte", "big.bin", 2*block + 7, 1, 1},
		{"all byte values", "all-bytes.bin", 0, 1024, 1024},
		{"subdirectory", "dir/sub/leaf.idx", 14, 13, 13},
		{"small object", "dir/other.bin", 0, 100, 10},
		{"empty object", "empty", 0, 10, 0},
		{"empty object zero length", "empty", 0, 0, 0},
		{"aligned size, across the end", "exact.bin", block - 5, 100, 5},
		{"aligned size, at the end", "exact.bin", block, 10, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ReadRange(t.Context(), tc.key, tc.off, tc.n)
			if err != nil {
				t.Fatalf("ReadRange(%q, %d, %d): %v", tc.key, tc.off, tc.n, err)
			}
			if len(got) != tc.want {
				t.Fatalf("ReadRange(%q, %d, %d) returned %d bytes, want %d", tc.key, tc.off, tc.n, len(got), tc.want)
			}
			if d := diff(got, want(objects[tc.key], tc.off, tc.n)); d != "" {
				t.Errorf("ReadRange(%q, %d, %d): %s", tc.key, tc.off, tc.n, d)
			}
		})
	}
}

func testMissing(t *testing.T, s blob.Store) {
	for _, key := range []string{"nope", "dir/nope", "nope/leaf.idx", "dir", "dir/sub/leaf.idx/x", "big.bin/x"} {
		t.Run(key, func(t *testing.T) {
			if _, err := s.ReadRange(t.Context(), key, 0, 10); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadRange(%q, 0, 10) error = %v, want fs.ErrNotExist", key, err)
			}
			if _, err := s.ReadRange(t.Context(), key, 0, 0); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadRange(%q, 0, 0) error = %v, want fs.ErrNotExist", key, err)
			}
			if _, err := s.Stat(t.Context(), key); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Stat(%q) error = %v, want fs.ErrNotExist", key, err)
			}
		})
	}
}

func testInvalid(t *testing.T, s blob.Store) {
	reads := []struct {
		name   string
		key    string
		off, n int64
	}{
		{"negative offset", "big.bin", -1, 10},
		{"negative length", "big.bin", 0, -1},
		{"negative offset on a missing key", "nope", -1, 10},
	}
	for _, tc := range reads {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := s.ReadRange(t.Context(), tc.key, tc.off, tc.n); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("ReadRange(%q, %d, %d) = %d bytes, %v; want fs.ErrInvalid", tc.key, tc.off, tc.n, len(got), err)
			}
		})
	}
	for _, key := range []string{"", ".", "/big.bin", "../big.bin", "dir/../big.bin", "./big.bin", "dir//other.bin", "dir/", "big\x00.bin"} {
		t.Run(fmt.Sprintf("key %q", key), func(t *testing.T) {
			if _, err := s.ReadRange(t.Context(), key, 0, 10); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("ReadRange(%q, 0, 10) error = %v, want fs.ErrInvalid", key, err)
			}
			if _, err := s.Stat(t.Context(), key); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("Stat(%q) error = %v, want fs.ErrInvalid", key, err)
			}
		})
	}
}

func testStat(t *testing.T, s blob.Store, objects map[string][]byte) {
	for key, data := range objects {
		t.Run(key, func(t *testing.T) {
			info, err := s.Stat(t.Context(), key)
			if err != nil {
				t.Fatalf("Stat(%q): %v", key, err)
			}
			if info.Size != int64(len(data)) {
				t.Errorf("Stat(%q).Size = %d, want %d", key, info.Size, len(data))
			}
			if info.ETag == "" {
				t.Errorf("Stat(%q).ETag is empty", key)
			}
			if info.ModTime.IsZero() {
				t.Errorf("Stat(%q).ModTime is zero", key)
			}
			again, err := s.Stat(t.Context(), key)
			if err != nil {
				t.Fatalf("Stat(%q) again: %v", key, err)
			}
			if again.ETag != info.ETag {
				t.Errorf("Stat(%q).ETag changed without a write: %q, then %q", key, info.ETag, again.ETag)
			}
		})
	}
}

// testReadFirst: blob.ReadFirst (one request where the store is a
// FirstReader) gives an object's first bytes, clipped to its size, and the
// version Stat gives; a missing key is fs.ErrNotExist.
func testReadFirst(t *testing.T, s blob.Store, objects map[string][]byte) {
	for key, data := range objects {
		t.Run(key, func(t *testing.T) {
			st, err := s.Stat(t.Context(), key)
			if err != nil {
				t.Fatalf("Stat(%q): %v", key, err)
			}
			for _, n := range []int64{0, 1, 10, int64(len(data)), int64(len(data)) + 100} {
				got, info, err := blob.ReadFirst(t.Context(), s, key, n)
				if err != nil {
					t.Fatalf("ReadFirst(%q, %d): %v", key, n, err)
				}
				want := data[:min(n, int64(len(data)))]
				if !bytes.Equal(got, want) {
					t.Errorf("ReadFirst(%q, %d) = %d bytes, want the first %d", key, n, len(got), len(want))
				}
				if info.Size != st.Size || info.ETag != st.ETag {
					t.Errorf("ReadFirst(%q, %d) info = size %d, tag %q; Stat says %d, %q", key, n, info.Size, info.ETag, st.Size, st.ETag)
				}
			}
		})
	}
	if _, _, err := blob.ReadFirst(t.Context(), s, "no/such/key.bin", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFirst(missing) error = %v, want fs.ErrNotExist", err)
	}
}

func testCallerOwnsSlice(t *testing.T, s blob.Store, objects map[string][]byte) {
	for range 2 { // twice, so that a cache is warm the second time
		got, err := s.ReadRange(t.Context(), "all-bytes.bin", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i] ^= 0xff
		}
	}
	got, err := s.ReadRange(t.Context(), "all-bytes.bin", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(got, objects["all-bytes.bin"][:100]); d != "" {
		t.Errorf("after the caller changed a returned slice, ReadRange: %s", d)
	}
}

func testCanceled(t *testing.T, s blob.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.ReadRange(ctx, "big.bin", 0, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadRange with a canceled context: error = %v, want context.Canceled", err)
	}
	if _, err := s.Stat(ctx, "big.bin"); !errors.Is(err, context.Canceled) {
		t.Errorf("Stat with a canceled context: error = %v, want context.Canceled", err)
	}
}

// testConcurrent reads random ranges from several goroutines; run it with
// -race.
func testConcurrent(t *testing.T, s blob.Store, objects map[string][]byte) {
	keys := []string{"big.bin", "all-bytes.bin", "exact.bin", "dir/sub/leaf.idx"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 42))
			for range 25 {
				key := keys[r.IntN(len(keys))]
				size := int64(len(objects[key]))
				off, n := r.Int64N(size+10), r.Int64N(20_000)
				got, err := s.ReadRange(t.Context(), key, off, n)
				if err != nil {
					t.Errorf("ReadRange(%q, %d, %d): %v", key, off, n, err)
					return
				}
				if d := diff(got, want(objects[key], off, n)); d != "" {
					t.Errorf("ReadRange(%q, %d, %d): %s", key, off, n, d)
					return
				}
			}
		})
	}
	wg.Wait()
}

// want returns the bytes [off, off+n) of data that exist.
func want(data []byte, off, n int64) []byte {
	size := int64(len(data))
	if off >= size {
		return nil
	}
	return data[off : off+min(n, size-off)]
}

// diff describes how got differs from want, or returns "".
func diff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("got %d bytes, want %d; first difference at byte %d", len(got), len(want), i)
}
