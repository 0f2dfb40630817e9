package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// KeyPrefix starts every key Meridian issues. Keys of any other form are
// accepted on input when their hash is in the keys file.
const KeyPrefix = "mk_"

// DemoKeyName and MapKeyName are the names of the keys EnsureDemoKey and
// EnsureMapKey manage; AddKey refuses them.
const (
	DemoKeyName = "demo"
	MapKeyName  = "map page"
)

const (
	keyRandomChars = 32  // base32 characters after the prefix: 160 bits
	keyIDChars     = 8   // characters of the random part used as the id
	maxKeyLen      = 512 // longer presented keys are refused without hashing
	maxNameLen     = 64
)

// Key is one API key as stored in the keys file (never its plain value).
type Key struct {
	ID        string             // short public id: the 8 characters after "mk_"
	Name      string             // the operator's label, unique among active keys
	Hash      string             // hex SHA-256 of the plain key
	Products  map[Product]string // product → plan name
	CreatedAt time.Time
	RevokedAt time.Time // zero while the key is active
}

// Revoked reports whether the key has been revoked.
func (k Key) Revoked() bool { return !k.RevokedAt.IsZero() }

// ErrKeyNotFound is returned by RevokeKey when no key has the id or name.
var ErrKeyNotFound = errors.New("gateway: key not found")

// newPlainKey returns "mk_" and 32 random lower-case base32 characters.
func newPlainKey() string {
	var b [keyRandomChars * 5 / 8]byte
	rand.Read(b[:])
	enc := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	return KeyPrefix + enc.EncodeToString(b[:])
}

// hashKey returns the SHA-256 of a presented key without allocating for
// keys of ordinary length.
func hashKey(plain string) [sha256.Size]byte {
	var buf [128]byte
	if len(plain) <= len(buf) {
		return sha256.Sum256(append(buf[:0], plain...))
	}
	return sha256.Sum256([]byte(plain))
}

func hashHex(plain string) string {
	h := hashKey(plain)
	return hex.EncodeToString(h[:])
}

// keyIDOf returns the id shown for a key: the 8 characters after the prefix
// for Meridian keys, else the first 8 hex digits of its hash.
func keyIDOf(plain string) string {
	if strings.HasPrefix(plain, KeyPrefix) && len(plain) >= len(KeyPrefix)+keyIDChars {
		return plain[len(KeyPrefix) : len(KeyPrefix)+keyIDChars]
	}
	return hashHex(plain)[:keyIDChars]
}

// ValidateKeyName reports whether name can label a key: 1 to 64 printable
// characters without tabs or line breaks.
func ValidateKeyName(name string) error {
	switch {
	case name == "":
		return errors.New("gateway: key name is empty")
	case utf8.RuneCountInString(name) > maxNameLen:
		return fmt.Errorf("gateway: key name %q is longer than %d characters", name, maxNameLen)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("gateway: key name %q starts or ends with white space", name)
	case !utf8.ValidString(name):
		return fmt.Errorf("gateway: key name %q is not valid UTF-8", name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("gateway: key name %q contains a control character", name)
		}
	}
	return nil
}

func validateProducts(products map[Product]string) error {
	if len(products) == 0 {
		return errors.New("gateway: a key needs at least one product")
	}
	for p, plan := range products {
		if !p.Valid() {
			return fmt.Errorf("gateway: invalid product %d", uint8(p))
		}
		if plan == "" {
			return fmt.Errorf("gateway: product %s has no plan name", p)
		}
	}
	return nil
}

// AddKey creates a key with the given name and products (product → plan
// name) in the keys file at path, creating the file if needed, and returns
// the plain key, which is stored nowhere: show it to the operator once.
// Names are unique among active keys, and DemoKeyName and MapKeyName are
// reserved. Plan names
// are not checked against a catalogue (the CLI checks them against
// LoadPlans); a Gateway refuses a product whose plan it does not know, and
// logs it.
func AddKey(path, name string, products map[Product]string) (plainKey string, k Key, err error) {
	if err := ValidateKeyName(name); err != nil {
		return "", Key{}, err
	}
	if ReservedKeyName(name) {
		return "", Key{}, fmt.Errorf("gateway: key name %q is reserved for the key the server manages", name)
	}
	if err := validateProducts(products); err != nil {
		return "", Key{}, err
	}
	err = updateKeys(path, func(doc *keysDoc) error {
		if i := activeByName(doc, name); i >= 0 {
			return fmt.Errorf("gateway: an active key named %q exists (id %s); choose another name or revoke it first", name, doc.Keys[i].ID)
		}
		var rec keyRecord
		plainKey, rec = newRecord(doc, name, products, time.Now())
		doc.Keys = append(doc.Keys, rec)
		k = rec.key()
		return nil
	})
	if err != nil {
		return "", Key{}, err
	}
	return plainKey, k, nil
}

// newRecord makes a key whose id no record in doc has.
func newRecord(doc *keysDoc, name string, products map[Product]string, now time.Time) (string, keyRecord) {
	for {
		plain := newPlainKey()
		id := keyIDOf(plain)
		if !slices.ContainsFunc(doc.Keys, func(r keyRecord) bool { return r.ID == id }) {
			return plain, makeRecord(id, name, plain, products, now)
		}
	}
}

func makeRecord(id, name, plain string, products map[Product]string, now time.Time) keyRecord {
	ps := make(map[string]string, len(products))
	for p, plan := range products {
		ps[p.String()] = plan
	}
	return keyRecord{ID: id, Name: name, SHA256: hashHex(plain), Products: ps, CreatedAt: now.UTC().Truncate(time.Second)}
}

// key converts a record, skipping products this build does not know.
func (r keyRecord) key() Key {
	k := Key{ID: r.ID, Name: r.Name, Hash: r.SHA256, Products: make(map[Product]string, len(r.Products)), CreatedAt: r.CreatedAt, RevokedAt: r.RevokedAt}
	for name, plan := range r.Products {
		if p, err := ParseProduct(name); err == nil {
			k.Products[p] = plan
		}
	}
	return k
}

func activeByName(doc *keysDoc, name string) int {
	return slices.IndexFunc(doc.Keys, func(r keyRecord) bool { return r.Name == name && r.active() })
}

// ListKeys returns every key in the keys file, revoked ones included, in
// creation order. A missing file has no keys.
func ListKeys(path string) ([]Key, error) {
	doc, err := readKeysDoc(path)
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(doc.Keys))
	for i, r := range doc.Keys {
		keys[i] = r.key()
	}
	return keys, nil
}

// RevokeKey marks the key with the given id, or else the active key with the
// given name, as revoked. Revocation is permanent. It returns an error
// wrapping ErrKeyNotFound when nothing matches, and an error when the key is
// already revoked or the name is ambiguous.
func RevokeKey(path, idOrName string) error {
	return updateKeys(path, func(doc *keysDoc) error {
		i := slices.IndexFunc(doc.Keys, func(r keyRecord) bool { return r.ID == idOrName })
		if i < 0 {
			var matches []string
			for j, r := range doc.Keys {
				if r.Name == idOrName && r.active() {
					i = j
					matches = append(matches, r.ID)
				}
			}
			if len(matches) > 1 {
				return fmt.Errorf("gateway: %d active keys are named %q (ids %s); revoke one by id", len(matches), idOrName, strings.Join(matches, ", "))
			}
		}
		if i < 0 {
			if slices.ContainsFunc(doc.Keys, func(r keyRecord) bool { return r.Name == idOrName }) {
				return fmt.Errorf("gateway: every key named %q is already revoked", idOrName)
			}
			return fmt.Errorf("%w: no key has the id or name %q", ErrKeyNotFound, idOrName)
		}
		r := &doc.Keys[i]
		if !r.active() {
			return fmt.Errorf("gateway: key %s (%s) was already revoked at %s", r.ID, r.Name, r.RevokedAt.UTC().Format(time.RFC3339))
		}
		r.RevokedAt = time.Now().UTC().Truncate(time.Second)
		return nil
	})
}

// EnsureDemoKey makes sure the data directory holds an active key named
// "demo" with every product on the unlimited plan, and returns its plain
// value, which it keeps in <dataDir>/demo-key (mode 0600) so that every start
// can print it. Later calls return the same key. Rules for the cases in
// between:
//   - the key is in demo-key but missing from the keys file (the file was
//     deleted or edited): the same value is put back, so copies of it keep
//     working;
//   - the key was revoked: revocation is permanent, so a new value is made
//     and written to demo-key;
//   - demo-key is missing or empty: a new value is made; active "demo" keys
//     whose value is lost with the file are revoked;
//   - the catalogue gained a product: the demo key gets it.
func EnsureDemoKey(dataDir string) (plainKey string, err error) {
	return ensureManagedKey(dataDir, DemoKeyFile, DemoKeyName, demoProducts())
}

// EnsureMapKey is EnsureDemoKey for the map page's key: named "map page",
// kept in <dataDir>/map-key, with the products the page calls (MapPageProducts)
// on the rate-limited MapPagePlan. The local server hands it to every
// browser that loads the page, so it must not be the unlimited demo key.
func EnsureMapKey(dataDir string) (plainKey string, err error) {
	products := map[Product]string{}
	for _, p := range MapPageProducts() {
		products[p] = MapPagePlan
	}
	return ensureManagedKey(dataDir, MapKeyFile, MapKeyName, products)
}

// ensureManagedKey keeps the key called name, with products, active and its
// value in <dataDir>/file, under the rules of EnsureDemoKey.
func ensureManagedKey(dataDir, file, name string, products map[Product]string) (plainKey string, err error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return "", fmt.Errorf("gateway: create data directory: %w", err)
	}
	valuePath := filepath.Join(dataDir, file)
	want := make(map[string]string, len(products))
	for p, plan := range products {
		want[p.String()] = plan
	}
	err = updateKeys(filepath.Join(dataDir, KeysFile), func(doc *keysDoc) error {
		now := time.Now()
		plain, err := readKeyValue(valuePath)
		if err != nil {
			return err
		}
		if plain != "" {
			hash := hashHex(plain)
			i := slices.IndexFunc(doc.Keys, func(r keyRecord) bool { return r.SHA256 == hash })
			switch {
			case i >= 0 && doc.Keys[i].active():
				plainKey = plain
				if maps.Equal(doc.Keys[i].Products, want) {
					return errUnchanged
				}
				doc.Keys[i].Products = want
				return nil
			case i < 0 && !slices.ContainsFunc(doc.Keys, func(r keyRecord) bool { return r.ID == keyIDOf(plain) }):
				plainKey = plain
				revokeNamed(doc, name, now)
				doc.Keys = append(doc.Keys, makeRecord(keyIDOf(plain), name, plain, products, now))
				return nil
			}
		}
		// No usable value: make one, store it before the keys file so
		// that a crash between the two writes leaves a value that the
		// next call puts back.
		revokeNamed(doc, name, now)
		var rec keyRecord
		plainKey, rec = newRecord(doc, name, products, now)
		if err := writeFileAtomic(valuePath, []byte(plainKey+"\n"), 0o600); err != nil {
			return fmt.Errorf("gateway: write %s key: %w", name, err)
		}
		doc.Keys = append(doc.Keys, rec)
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return plainKey, nil
}

// errUnchanged stops updateKeys without writing.
var errUnchanged = errors.New("gateway: unchanged")

// ReservedKeyName reports whether name is one of the keys the server
// manages (DemoKeyName, MapKeyName), which AddKey refuses.
func ReservedKeyName(name string) bool { return name == DemoKeyName || name == MapKeyName }

func demoProducts() map[Product]string {
	ps := make(map[Product]string, maxProduct)
	for _, p := range Products() {
		ps[p] = UnlimitedPlan
	}
	return ps
}

// revokeNamed revokes the active keys called name before a new one
// replaces them.
func revokeNamed(doc *keysDoc, name string, now time.Time) {
	for i := range doc.Keys {
		if doc.Keys[i].Name == name && doc.Keys[i].active() {
			doc.Keys[i].RevokedAt = now.UTC().Truncate(time.Second)
		}
	}
}

func readKeyValue(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway: read %s: %w", filepath.Base(path), err)
	}
	return strings.TrimSpace(string(b)), nil
}
