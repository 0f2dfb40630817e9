package lld_test

import (
	"strconv"
	"testing"

	"meridian/shared/lld"
)

// Every meridian's name is its direction and number.
func TestMeridianNames(t *testing.T) {
	for m := lld.W1; m <= lld.E2; m++ {
		dir := "W"
		if m.East() {
			dir = "E"
		}
		want := dir + strconv.Itoa(m.Number())
		if got := m.String(); got != want {
			t.Errorf("Meridian(%d).String() = %q, want %q", m, got, want)
		}
	}
	if got := lld.MeridianNone.String(); got != "" {
		t.Errorf("MeridianNone.String() = %q", got)
	}
}
