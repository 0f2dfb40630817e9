package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/localtls"
)

// serve -tls answers HTTPS with a certificate that a client trusting the
// printed ca_file verifies (and one that does not trust it refuses); the
// certificate is made once and kept across starts.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines, stop := startServe(t, serverConfig{data: datadir.Dir(dir), tls: true}, "ca_file")
	base, key, caFile := lines["base_url"], lines["api_key"], lines["ca_file"]
	if !strings.HasPrefix(base, "https://127.0.0.1:") || caFile != filepath.Join(datadir.Dir(dir).TLS(), localtls.CAFile) {
		stop()
		t.Fatalf("printed %v", lines)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("ca_file holds no certificate")
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, host := range []string{base, strings.Replace(base, "127.0.0.1", "localhost", 1)} {
		req, _ := http.NewRequest("GET", host+"/search/legal-location?location=NW-25-24-1-W5", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := trusting.Do(req)
		if err != nil {
			t.Errorf("%s with the CA trusted: %v", host, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", host, resp.StatusCode)
		}
	}
	if _, err := http.Get(base + "/healthz"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the CA: %v, want a certificate error", err)
	}
	// Python's ssl (what the Township Canada SDK's requests uses), with
	// the strict verification flags of Python 3.13's default context.
	if py, err := exec.LookPath("python3"); err == nil {
		script := `import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2])
ctx.verify_flags |= getattr(ssl, "VERIFY_X509_STRICT", 0)
print(urllib.request.urlopen(sys.argv[1] + "/healthz", context=ctx).status)`
		out, err := exec.Command(py, "-c", script, base, caFile).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "200" {
			t.Errorf("python3 with the CA and strict verification: %v\n%s", err, out)
		}
	}
	// Node's fetch (the TypeScript SDK) with NODE_EXTRA_CA_CERTS.
	if node, err := exec.LookPath("node"); err == nil {
		cmd := exec.Command(node, "-e", `fetch(process.argv[1] + "/healthz").then(r => console.log(r.status), e => { console.log(String(e.cause || e)); process.exit(1) })`, base)
		cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caFile)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "200" {
			t.Errorf("node with NODE_EXTRA_CA_CERTS: %v\n%s", err, out)
		}
	}
	stop()
	before, _ := os.ReadFile(filepath.Join(datadir.Dir(dir).TLS(), localtls.CertFile))
	lines, stop = startServe(t, serverConfig{data: datadir.Dir(dir), tls: true}, "ca_file")
	stop()
	after, _ := os.ReadFile(filepath.Join(datadir.Dir(dir).TLS(), localtls.CertFile))
	if len(before) == 0 || string(before) != string(after) || lines["ca_file"] != caFile {
		t.Error("the certificate was made again on the second start")
	}
	if fi, err := os.Stat(filepath.Join(datadir.Dir(dir).TLS(), localtls.KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v, %v", fi.Mode(), err)
	}
}
