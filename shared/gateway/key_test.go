package gateway_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"meridian/shared/gateway"
)

var keyFormat = regexp.MustCompile(`^mk_[a-z2-7]{32}$`)

func TestAddKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", gateway.KeysFile) // the directory is created
	products := map[gateway.Product]string{gateway.Search: "default", gateway.Batch: "unlimited"}
	before := time.Now().Add(-time.Second)
	plain, k, err := gateway.AddKey(path, "acme", products)
	if err != nil {
		t.Fatalf("AddKey: %v", err)
	}
	if !keyFormat.MatchString(plain) {
		t.Errorf("AddKey key = %q, want mk_ and 32 base32 characters", plain)
	}
	sum := sha256.Sum256([]byte(plain))
	want := gateway.Key{ID: plain[3:11], Name: "acme", Hash: hex.EncodeToString(sum[:]), Products: products}
	if diff := cmp.Diff(want, k, cmpopts.IgnoreFields(gateway.Key{}, "CreatedAt")); diff != "" {
		t.Errorf("AddKey key record (-want +got):\n%s", diff)
	}
	if k.CreatedAt.Before(before) || k.CreatedAt.After(time.Now()) || k.Revoked() {
		t.Errorf("CreatedAt = %v, Revoked = %v, want now and not revoked", k.CreatedAt, k.Revoked())
	}

	listed, err := gateway.ListKeys(path)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	if diff := cmp.Diff([]gateway.Key{k}, listed); diff != "" {
		t.Errorf("ListKeys (-want +got):\n%s", diff)
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), plain) || strings.Contains(string(b), plain[3:]) {
		t.Errorf("keys file contains the plain key:\n%s", b)
	}
	if !strings.Contains(string(b), k.Hash) {
		t.Errorf("keys file lacks the key's hash:\n%s", b)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("keys file mode = %v, want 0600", fi.Mode().Perm())
	}

	// Another key differs, and nothing but the keys file is left behind.
	plain2, k2, err := gateway.AddKey(path, "other", products)
	if err != nil {
		t.Fatal(err)
	}
	if plain2 == plain || k2.ID == k.ID {
		t.Errorf("two keys share a value or id: %q/%q, %q/%q", plain, plain2, k.ID, k2.ID)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The lock file stays (a kernel lock on it; removing it would let a
	// waiter lock a file no longer named); no temporary file does.
	if want := []string{gateway.KeysFile, gateway.KeysFile + ".lock"}; !slices.Equal(names, want) {
		t.Errorf("files after AddKey = %v, want %v (no temporary files)", names, want)
	}
}

func TestAddKeyErrors(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), gateway.KeysFile)
	search := map[gateway.Product]string{gateway.Search: "default"}
	if _, _, err := gateway.AddKey(path, "taken", search); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		keyName  string
		products map[gateway.Product]string
		wantErr  string
	}{
		{"empty name", "", search, "name is empty"},
		{"name with a newline", "a\nb", search, "control character"},
		{"name with surrounding space", " a", search, "white space"},
		{"long name", strings.Repeat("n", 65), search, "longer than 64"},
		{"reserved demo name", "demo", search, "reserved"},
		{"duplicate active name", "taken", search, `active key named "taken" exists`},
		{"no products", "x", nil, "at least one product"},
		{"invalid product", "x", map[gateway.Product]string{42: "default"}, "invalid product 42"},
		{"empty plan", "x", map[gateway.Product]string{gateway.Maps: ""}, "maps has no plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := gateway.AddKey(path, tc.keyName, tc.products)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("AddKey(%q, %v) = %v, want an error containing %q", tc.keyName, tc.products, err, tc.wantErr)
			}
		})
	}
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), gateway.KeysFile)
	search := map[gateway.Product]string{gateway.Search: "default"}
	_, byID, _ := gateway.AddKey(path, "by-id", search)
	gateway.AddKey(path, "by-name", search)
	gateway.AddKey(path, "dup-a", search)
	_, dup2, err := gateway.AddKey(path, "dup-b", search)
	if err != nil {
		t.Fatal(err)
	}
	// A hand-written file could hold two active keys with one name.
	doc, _ := os.ReadFile(path)
	s := strings.NewReplacer(`"name": "dup-a"`, `"name": "dup"`, `"name": "dup-b"`, `"name": "dup"`).Replace(string(doc))
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		idOrName string
		wantErr  string // "" means success
	}{
		{"by id", byID.ID, ""},
		{"by name", "by-name", ""},
		{"id already revoked", byID.ID, "already revoked"},
		{"name already revoked", "by-name", `every key named "by-name" is already revoked`},
		{"unknown", "nobody", "no key has the id or name"},
		{"ambiguous name", "dup", `2 active keys are named "dup"`},
		{"one of two by id", dup2.ID, ""},
		{"the other by name now", "dup", ""},
	}
	for _, tc := range tests { // in order: each case builds on the previous
		err := gateway.RevokeKey(path, tc.idOrName)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: RevokeKey(%q) = %v, want nil", tc.name, tc.idOrName, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: RevokeKey(%q) = %v, want an error containing %q", tc.name, tc.idOrName, err, tc.wantErr)
		}
	}
	if err := gateway.RevokeKey(path, "nobody"); !errors.Is(err, gateway.ErrKeyNotFound) {
		t.Errorf("RevokeKey(unknown) = %v, want ErrKeyNotFound", err)
	}
	keys, _ := gateway.ListKeys(path)
	for _, k := range keys {
		if !k.Revoked() {
			t.Errorf("key %s (%s) is active, want every key revoked", k.ID, k.Name)
		}
	}
	// A revoked key's name can be used again.
	if _, _, err := gateway.AddKey(path, "by-name", search); err != nil {
		t.Errorf("AddKey with the name of a revoked key: %v", err)
	}
}

func TestListKeysMissingFile(t *testing.T) {
	t.Parallel()
	keys, err := gateway.ListKeys(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || len(keys) != 0 {
		t.Errorf("ListKeys(missing) = %v, %v, want no keys and no error", keys, err)
	}
}

// activeDemo returns the active demo keys.
func activeDemo(t *testing.T, dir string) []gateway.Key {
	t.Helper()
	keys, err := gateway.ListKeys(filepath.Join(dir, gateway.KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []gateway.Key
	for _, k := range keys {
		if k.Name == gateway.DemoKeyName && !k.Revoked() {
			out = append(out, k)
		}
	}
	return out
}

func TestEnsureDemoKey(t *testing.T) {
	t.Parallel()
	all := make(map[gateway.Product]string)
	for _, p := range gateway.Products() {
		all[p] = gateway.UnlimitedPlan
	}
	ensure := func(t *testing.T, dir string) string {
		t.Helper()
		key, err := gateway.EnsureDemoKey(dir)
		if err != nil {
			t.Fatalf("EnsureDemoKey: %v", err)
		}
		demo := activeDemo(t, dir)
		if len(demo) != 1 {
			t.Fatalf("%d active demo keys, want 1", len(demo))
		}
		if sum := sha256.Sum256([]byte(key)); demo[0].Hash != hex.EncodeToString(sum[:]) {
			t.Errorf("the active demo key is not the returned one")
		}
		if diff := cmp.Diff(all, demo[0].Products); diff != "" {
			t.Errorf("demo key products (-want +got):\n%s", diff)
		}
		b, err := os.ReadFile(filepath.Join(dir, gateway.DemoKeyFile))
		if err != nil || strings.TrimSpace(string(b)) != key {
			t.Errorf("demo-key file = %q, %v, want %q", b, err, key)
		}
		return key
	}
	keysPath := func(dir string) string { return filepath.Join(dir, gateway.KeysFile) }

	tests := []struct {
		name     string
		between  func(t *testing.T, dir, key string) // runs between the two calls
		wantSame bool
	}{
		{name: "second call returns the same key", between: func(*testing.T, string, string) {}, wantSame: true},
		{
			name: "revoked: a new key", wantSame: false,
			between: func(t *testing.T, dir, key string) {
				if err := gateway.RevokeKey(keysPath(dir), "demo"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "keys file lost: the same key is put back", wantSame: true,
			between: func(t *testing.T, dir, key string) { os.Remove(keysPath(dir)) },
		},
		{
			name: "demo-key file lost: a new key, the old one revoked", wantSame: false,
			between: func(t *testing.T, dir, key string) { os.Remove(filepath.Join(dir, gateway.DemoKeyFile)) },
		},
		{
			name: "missing products are added", wantSame: true,
			between: func(t *testing.T, dir, key string) {
				b, _ := os.ReadFile(keysPath(dir))
				s := strings.Replace(string(b), `"energy": "unlimited",`, "", 1)
				if s == string(b) {
					t.Fatalf("energy not found in %s", b)
				}
				os.WriteFile(keysPath(dir), []byte(s), 0o600)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data") // created by EnsureDemoKey
			first := ensure(t, dir)
			if !keyFormat.MatchString(first) {
				t.Errorf("demo key %q has the wrong format", first)
			}
			fi, err := os.Stat(filepath.Join(dir, gateway.DemoKeyFile))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("demo-key file: %v, %v, want mode 0600", fi, err)
			}
			tc.between(t, dir, first)
			second := ensure(t, dir)
			if (first == second) != tc.wantSame {
				t.Errorf("first %q, second %q: same = %v, want %v", first, second, first == second, tc.wantSame)
			}
		})
	}
}

func TestKeysAcceptedInAnyFormat(t *testing.T) {
	t.Parallel()
	// An operator imports a Township Canada style key by its hash.
	e := newEnv(t, nil)
	const tcKey = "tc_live_0123456789abcdef"
	sum := sha256.Sum256([]byte(tcKey))
	doc := `{"keys": [{"id": "tc-import", "name": "imported", "sha256": "` + hex.EncodeToString(sum[:]) +
		`", "products": {"search": "default", "weather": "default"}, "created_at": "2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(e.keysPath(), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	e.reload()
	if w := e.do("/search/legal-location", tcKey); w.Code != 200 {
		t.Errorf("imported tc_ key: %d, want 200: %s", w.Code, w.Body)
	}
	keys, err := gateway.ListKeys(e.keysPath())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[gateway.Product]string{gateway.Search: "default"}, keys[0].Products); diff != "" {
		t.Errorf("products of a key naming an unknown product (-want +got):\n%s", diff)
	}
}

// The map page's key sits beside the demo key: its own value and file,
// only the products the page calls, on the rate-limited map-page plan,
// stable across starts, replaced when revoked; its name is reserved.
func TestEnsureMapKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo, err := gateway.EnsureDemoKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	key, err := gateway.EnsureMapKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if key == demo || key == "" {
		t.Fatalf("map key %q, demo key %q: want a key of its own", key, demo)
	}
	if again, err := gateway.EnsureMapKey(dir); err != nil || again != key {
		t.Errorf("second EnsureMapKey = %q, %v; want the same key", again, err)
	}
	if again, err := gateway.EnsureDemoKey(dir); err != nil || again != demo {
		t.Errorf("EnsureDemoKey after the map key = %q, %v; want the demo key unchanged", again, err)
	}
	keys, err := gateway.ListKeys(filepath.Join(dir, gateway.KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	var mk gateway.Key
	for _, k := range keys {
		if k.Name == gateway.MapKeyName && !k.Revoked() {
			mk = k
		}
	}
	want := map[gateway.Product]string{gateway.Maps: gateway.MapPagePlan, gateway.Search: gateway.MapPagePlan, gateway.Autocomplete: gateway.MapPagePlan,
		gateway.Batch: gateway.MapPagePlan, gateway.Ag: gateway.MapPagePlan, gateway.Energy: gateway.MapPagePlan, gateway.Changes: gateway.MapPagePlan}
	if diff := cmp.Diff(want, mk.Products); diff != "" {
		t.Errorf("map key products (-want +got):\n%s", diff)
	}
	plans := gateway.WithMapPagePlans(gateway.DefaultPlans())
	for p := range want {
		if pl, ok := plans.Lookup(p, gateway.MapPagePlan); !ok || pl.RatePerSecond <= 0 {
			t.Errorf("%s: map-page plan %+v, %v; want a rate limit", p, pl, ok)
		}
	}
	if _, ok := gateway.DefaultPlans().Lookup(gateway.Search, gateway.MapPagePlan); ok {
		t.Error("the AWS catalogue (DefaultPlans) has the map-page plan")
	}
	if err := gateway.RevokeKey(filepath.Join(dir, gateway.KeysFile), mk.ID); err != nil {
		t.Fatal(err)
	}
	if fresh, err := gateway.EnsureMapKey(dir); err != nil || fresh == key {
		t.Errorf("after revocation EnsureMapKey = %q, %v; want a new key", fresh, err)
	}
	if _, _, err := gateway.AddKey(filepath.Join(dir, gateway.KeysFile), gateway.MapKeyName, want); err == nil {
		t.Error("AddKey took the reserved map key name")
	}
}
