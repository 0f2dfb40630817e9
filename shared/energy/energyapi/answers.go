package energyapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// answers keeps the bodies of the province-wide lists: the operators
// list, an operator's summary and views, the tenure expiring. Each is the
// same for every caller who asks the same question on the same day of the
// same data, and the largest cost hundreds of microseconds of CPU to
// assemble (page 20 of the tenure expiring within ten years, 200 rows:
// 610 µs); a kept body costs a lookup and a copy. Bodies are kept only
// over a store that cannot change while it is open (kv.Unchanging: the
// local server's read-only version; a refresh serves the next version
// through a new Handler, whose answers start empty). The key is the path
// and the query as sent (a route's path tells it from the others) and the
// day of the clock (days_to_expiry count from it). The parcel routes are not kept: their questions are the
// province's millions of LSDs.
//
// Memory: at most maxAnswerBytes of keys and bodies; a body over
// maxAnswerBody or a key over maxAnswerKey is answered and not kept. When
// a new body does not fit, kept ones are dropped in the map's order
// (arbitrary) until it does.
type answers struct {
	mu   sync.RWMutex
	size int // bytes of the keys and bodies kept
	m    map[string][]byte
	now  func() time.Time
}

const (
	maxAnswerBytes = 32 << 20
	maxAnswerBody  = 512 << 10 // a page of 200 tenure rows is about 130 KB
	maxAnswerKey   = 2 << 10
)

// render answers a request with the body to write, or an error.
type render func(r *http.Request) ([]byte, error)

// keep serves fn's answers, kept in a when a is not nil.
func (a *answers) keep(fn render) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if a == nil {
			body, err := fn(r)
			if err != nil {
				return err
			}
			writeBody(w, body)
			return nil
		}
		key := a.key(r)
		a.mu.RLock()
		body, ok := a.m[key]
		a.mu.RUnlock()
		if !ok {
			var err error
			if body, err = fn(r); err != nil {
				return err
			}
			a.put(key, body)
		}
		writeBody(w, body)
		return nil
	}
}

// key is the request's path (as sent: a name's escaped slash stays
// escaped) and query, and the clock's day.
func (a *answers) key(r *http.Request) string {
	y, m, d := a.now().Date()
	path := r.URL.EscapedPath()
	b := make([]byte, 0, 16+len(path)+len(r.URL.RawQuery))
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(m), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, 0)
	b = append(b, path...)
	b = append(b, 0)
	b = append(b, r.URL.RawQuery...)
	return string(b)
}

// put keeps body under key, within the bound.
func (a *answers) put(key string, body []byte) {
	n := len(key) + len(body)
	if len(body) > maxAnswerBody || len(key) > maxAnswerKey {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.m[key]; ok {
		return // another request kept it first
	}
	for k, v := range a.m {
		if a.size+n <= maxAnswerBytes {
			break
		}
		delete(a.m, k)
		a.size -= len(k) + len(v)
	}
	a.m[key] = body
	a.size += n
}
