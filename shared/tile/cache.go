package tile

import (
	"container/list"
	"sync"
)

// lru is a byte-bounded least-recently-used cache of generated tiles. A nil
// value (an empty tile) is cached too, at a small nominal cost.
type lru struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recent; values *entry
	items map[string]*list.Element
}

type entry struct {
	key  string
	data []byte
}

const entryOverhead = 96 // map slot, list element, key header: roughly

func newLRU(maxBytes int) *lru {
	return &lru{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry).data, true
}

func (c *lru) put(key string, data []byte) {
	cost := len(key) + len(data) + entryOverhead
	if cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		old := e.Value.(*entry)
		c.size += len(data) - len(old.data)
		old.data = data
		c.order.MoveToFront(e)
	} else {
		c.items[key] = c.order.PushFront(&entry{key: key, data: data})
		c.size += cost
	}
	for c.size > c.max {
		e := c.order.Back()
		old := e.Value.(*entry)
		c.order.Remove(e)
		delete(c.items, old.key)
		c.size -= len(old.key) + len(old.data) + entryOverhead
	}
}

// clear drops every entry (grid data changed).
func (c *lru) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.items = map[string]*list.Element{}
	c.size = 0
}
