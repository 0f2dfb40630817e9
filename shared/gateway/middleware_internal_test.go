package gateway

import (
	"testing"
)

func TestQueryValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
	}{
		{"", ""},
		{"api_key=mk_abc", "mk_abc"},
		{"z=1&api_key=mk_abc&y=2", "mk_abc"},
		{"api_key=first&api_key=second", "first"},
		{"api_keys=x&xapi_key=y", ""},
		{"api_key", ""},
		{"api_key=", ""},
		{"api_key=a%2Bb+c", "a+b c"},
		{"api_key=%zz", "%zz"}, // malformed escapes are looked up as sent
	}
	for _, tc := range tests {
		if got := queryValue(tc.raw, "api_key"); got != tc.want {
			t.Errorf("queryValue(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestHashKeyDoesNotAllocate(t *testing.T) {
	key := newPlainKey()
	if n := testing.AllocsPerRun(100, func() { hashKey(key) }); n != 0 {
		t.Errorf("hashKey allocates %v times, want 0", n)
	}
}
