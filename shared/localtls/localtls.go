// Package localtls makes and keeps the certificates of the local server's
// HTTPS (meridian serve -tls): clients such as Township Canada's Python SDK
// refuse a base_url that is not https://. The server makes, once, a
// certificate authority of its own and a certificate for the loopback
// names signed by it, in <data>/tls/ (datadir.Dir.TLS):
//
//	ca.pem          the authority's certificate: what a client trusts
//	                (REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, curl --cacert)
//	ca-key.pem      its key (0600), kept to sign the next server certificate
//	cert.pem        the server's certificate: localhost, 127.0.0.1, ::1
//	key.pem         its key (0600)
//
// A separate authority rather than one self-signed certificate because
// strict verifiers (Python 3.13's default context, VERIFY_X509_STRICT)
// refuse a leaf that doubles as its own CA. The server certificate is
// renewed when it expires within 30 days; the authority lasts ten years.
package localtls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"meridian/shared/atomicfile"
)

const (
	caValidity    = 10 * 365 * 24 * time.Hour
	leafValidity  = 397 * 24 * time.Hour // what browsers accept for a leaf
	renewBefore   = 30 * 24 * time.Hour
	CAFile        = "ca.pem"     // the authority's certificate
	caKeyFile     = "ca-key.pem" // its key
	CertFile      = "cert.pem"   // the server's certificate
	KeyFile       = "key.pem"    // its key
	tlsCommonName = "Meridian local server"
)

// Ensure returns the server's certificate kept in dir, making the
// authority and the certificate the first time (and the certificate again
// when it nears expiry). caPath is the file clients should trust.
func Ensure(dir string) (cert tls.Certificate, caPath string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tls.Certificate{}, "", err
	}
	caPath = filepath.Join(dir, CAFile)
	ca, caKey, err := loadPair(caPath, filepath.Join(dir, caKeyFile))
	if err != nil || time.Until(ca.NotAfter) < renewBefore {
		if ca, caKey, err = newCA(dir); err != nil {
			return tls.Certificate{}, "", fmt.Errorf("tls: certificate authority: %w", err)
		}
		// A new authority: the old server certificate is not signed by it.
		os.Remove(filepath.Join(dir, CertFile))
	}
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	leaf, _, err := loadPair(certPath, keyPath)
	if err != nil || time.Until(leaf.NotAfter) < renewBefore || leaf.CheckSignatureFrom(ca) != nil {
		if err := newLeaf(dir, ca, caKey); err != nil {
			return tls.Certificate{}, "", fmt.Errorf("tls: server certificate: %w", err)
		}
	}
	cert, err = tls.LoadX509KeyPair(certPath, keyPath)
	return cert, caPath, err
}

// loadPair reads a certificate and its ECDSA key.
func loadPair(certPath, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cp, _ := pem.Decode(cb)
	kp, _ := pem.Decode(kb)
	if cp == nil || kp == nil {
		return nil, nil, errors.New("not PEM")
	}
	c, err := x509.ParseCertificate(cp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	k, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return c, k, nil
}

func newCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: tlsCommonName + " CA", Organization: []string{"Meridian (local, this machine only)"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // x509 fills in the subject key id of a CA
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	if err := writePair(dir, CAFile, caKeyFile, der, key); err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(der)
	return ca, key, err
}

func newLeaf(dir string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: tlsCommonName},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	} // x509 takes the authority key id from ca
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	return writePair(dir, CertFile, KeyFile, der, key)
}

// writePair writes a certificate and its key, each whole or not at all,
// the key first (0600), so a crash never leaves a certificate without it.
func writePair(dir, certName, keyName string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := writeFileDurably(filepath.Join(dir, keyName), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return err
	}
	return writeFileDurably(filepath.Join(dir, certName), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func writeFileDurably(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	if err := atomicfile.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}
