package blob

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mem is an in-memory Store for tests. It is safe for concurrent use.
// The zero value is not usable; call NewMem.
type Mem struct {
	mu   sync.RWMutex
	objs map[string]memObject
	seq  uint64 // version counter for ETags
}

type memObject struct {
	data []byte // never modified after Put
	etag string
	mod  time.Time
}

// NewMem returns an empty Mem.
func NewMem() *Mem {
	return &Mem{objs: make(map[string]memObject)}
}

// ReadRange implements Store.
func (m *Mem) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	o, err := m.object(ctx, key, off, n)
	if err != nil {
		return nil, err
	}
	return slices.Clone(Clip(o.data, off, n)), nil
}

// object checks a read of n bytes at off and returns the object at key.
func (m *Mem) object(ctx context.Context, key string, off, n int64) (memObject, error) {
	if err := CheckRead(key, off, n); err != nil {
		return memObject{}, err
	}
	if err := ctx.Err(); err != nil {
		return memObject{}, fmt.Errorf("blob: read %s: %w", key, err)
	}
	m.mu.RLock()
	o, ok := m.objs[key]
	m.mu.RUnlock()
	if !ok {
		return memObject{}, fmt.Errorf("blob: read %s: %w", key, fs.ErrNotExist)
	}
	return o, nil
}

// Stat implements Store. The ETag is a quoted counter that changes on every Put.
func (m *Mem) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	m.mu.RLock()
	o, ok := m.objs[key]
	m.mu.RUnlock()
	if !ok {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, fs.ErrNotExist)
	}
	return Info{Size: int64(len(o.data)), ETag: o.etag, ModTime: o.mod}, nil
}

// Put stores the contents of r under key, replacing any previous object.
func (m *Mem) Put(ctx context.Context, key string, r io.Reader) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	m.objs[key] = memObject{data: data, etag: strconv.Quote(strconv.FormatUint(m.seq, 10)), mod: time.Now()}
	return nil
}

// Delete removes key; deleting a missing key is not an error.
func (m *Mem) Delete(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objs, key)
}

// List returns the keys that start with prefix, sorted.
func (m *Mem) List(ctx context.Context, prefix string) ([]string, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: list %s: %w", prefix, err)
	}
	m.mu.RLock()
	var keys []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	m.mu.RUnlock()
	slices.Sort(keys)
	return keys, nil
}
