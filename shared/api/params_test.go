package api

import (
	"net/url"
	"testing"
)

// Params.Get answers as url.Values.Get on url.ParseQuery's map, for the
// queries clients send and for the ones ParseQuery refuses in part.
func TestParamsAsURLValues(t *testing.T) {
	t.Parallel()
	queries := []string{
		"", "legal_location=24-1-W5", "legal_location=24-1-W5&page=2&per_page=10",
		"legal_location=+NW-25-24-1-W5+&kinds=well,pipeline", "a=1&a=2", "a&b=&=c&&a=3",
		"q=%41%42", "q=%zz&q=ok", "%zz=1&q=2", "q=1;q=2&q=3", "q=a%2Bb+c", "q=caf%C3%A9",
		"page=%20%37", "a=b=c", "=&=", "q=%", "q=%2",
	}
	for _, q := range queries {
		checkParams(t, q)
	}
}

func FuzzParams(f *testing.F) {
	for _, q := range []string{"legal_location=24-1-W5&page=2", "a=%41;b&a=+x", "q=%zz&q=1", "x=1&&x=2"} {
		f.Add(q)
	}
	f.Fuzz(checkParams)
}

func checkParams(t *testing.T, q string) {
	want, _ := url.ParseQuery(q)
	names := []string{"", "a", "b", "q", "x", "page", "legal_location", "kinds", "per_page", "AB", "a b", "caf\u00e9"}
	for k := range want {
		names = append(names, k)
	}
	for _, n := range names {
		if got, w := Params(q).Get(n), want.Get(n); got != w {
			t.Errorf("Params(%q).Get(%q) = %q, url.Values says %q", q, n, got, w)
		}
	}
}
