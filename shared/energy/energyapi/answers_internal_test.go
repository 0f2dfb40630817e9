package energyapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The kept answers stay within maxAnswerBytes, count what they keep
// exactly, and keep neither errors nor bodies or keys over their bounds.
func TestAnswersBound(t *testing.T) {
	a := &answers{m: map[string][]byte{}, now: time.Now}
	calls := 0
	size := 400 << 10
	serve := a.keep(func(r *http.Request) ([]byte, error) {
		calls++
		if r.URL.Query().Get("fail") != "" {
			return nil, errors.New("no")
		}
		return make([]byte, size), nil
	})
	ask := func(path string) {
		t.Helper()
		rec := httptest.NewRecorder()
		if err := serve(rec, httptest.NewRequest("GET", path, nil)); err != nil && !strings.Contains(path, "fail") {
			t.Fatal(err)
		}
	}
	for i := range 200 { // 80 MB of bodies asked for
		ask(fmt.Sprintf("/energy/operators/%d", i))
		total := 0
		for k, v := range a.m {
			total += len(k) + len(v)
		}
		if total != a.size || a.size > maxAnswerBytes {
			t.Fatalf("after %d answers: %d bytes kept, counted %d, bound %d", i+1, total, a.size, maxAnswerBytes)
		}
	}
	if n := len(a.m); n < maxAnswerBytes/(size+64)-1 || n > maxAnswerBytes/size {
		t.Fatalf("%d answers kept of %d bytes each in %d", n, size, maxAnswerBytes)
	}
	before, kept := calls, len(a.m)
	ask("/energy/operators/199") // the last one is kept
	if calls != before {
		t.Fatal("the last answer was not kept")
	}
	ask("/energy/operators/x?fail=1")
	ask("/energy/operators/x?fail=1")
	size = maxAnswerBody + 1
	ask("/energy/operators/big")
	ask("/energy/operators/big")
	ask("/energy/operators/" + strings.Repeat("k", maxAnswerKey))
	if calls != before+5 || len(a.m) != kept {
		t.Fatalf("errors, a body over %d bytes or a key over %d were kept: %d calls, %d answers", maxAnswerBody, maxAnswerKey, calls-before, len(a.m)-kept)
	}
}
