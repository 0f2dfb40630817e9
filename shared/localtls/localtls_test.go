package localtls

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

// Ensure makes the authority and a certificate for the loopback names
// signed by it once, keeps them on the next call, and makes a new
// certificate when the authority is replaced.
func TestEnsure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	cert, caPath, err := Ensure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if caPath != filepath.Join(dir, CAFile) {
		t.Errorf("caPath %s", caPath)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("certificate for 127.0.0.1: %v", err)
	}
	if err := leaf.VerifyHostname("localhost"); err != nil {
		t.Errorf("certificate for localhost: %v", err)
	}
	if leaf.IsCA {
		t.Error("the server certificate is its own authority (strict verifiers refuse it)")
	}
	if fi, err := os.Stat(filepath.Join(dir, KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi, err)
	}
	again, _, err := Ensure(dir)
	if err != nil || !bytes.Equal(again.Certificate[0], cert.Certificate[0]) {
		t.Errorf("second Ensure made a new certificate (%v)", err)
	}
	os.Remove(filepath.Join(dir, CAFile))
	renewed, _, err := Ensure(dir)
	if err != nil || bytes.Equal(renewed.Certificate[0], cert.Certificate[0]) {
		t.Errorf("a new authority kept the old certificate (%v)", err)
	}
}
