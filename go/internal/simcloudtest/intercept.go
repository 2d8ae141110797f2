package simcloudtest

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"testing"
)

// Intercept is a running interception proxy (sandbox/intercept/main.ts) in front of a simcloud: an HTTPS
// CONNECT proxy for the real API hostnames of simcloud's personas, with a CA of its own.
type Intercept struct {
	// URL is the proxy's, e.g. http://127.0.0.1:40124: what HTTPS_PROXY names.
	URL *url.URL
	// CAFile is the PEM file of its CA: what SSL_CERT_FILE names.
	CAFile string
	// Dir holds the CA's certificate and key.
	Dir string
	*process
}

var (
	proxyListening = regexp.MustCompile(`interception proxy listening on (http://127\.0\.0\.1:\d+)`)
	proxyCA        = regexp.MustCompile(`interception CA (\S+)`)
)

// StartIntercept runs the interception proxy in front of s, its CA in a new directory under dir.
func StartIntercept(s *Server, dir string) (*Intercept, error) {
	p, lines, err := startNode([]string{"sandbox/intercept/main.ts", "--upstream=" + s.URL, "--dir=" + dir}, nil, proxyListening, proxyCA)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(lines[0][1])
	if err != nil {
		p.Stop()
		return nil, err
	}
	return &Intercept{URL: u, CAFile: lines[1][1], Dir: dir, process: p}, nil
}

// RunWithIntercept is Run with an interception proxy in front of the simcloud, its CA in a temporary directory.
func RunWithIntercept(m *testing.M, server **Server, proxy **Intercept) int {
	dir, err := os.MkdirTemp("", "simcloudtest-intercept-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "simcloudtest: %v\n", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	s, err := Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "simcloudtest: %v\n", err)
		return 1
	}
	defer s.Stop()
	p, err := StartIntercept(s, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "simcloudtest: %v\n", err)
		return 1
	}
	defer p.Stop()
	*server, *proxy = s, p
	return m.Run()
}

// Roots is a pool holding the proxy's CA alone.
func (p *Intercept) Roots(t testing.TB) *x509.CertPool {
	t.Helper()
	data, err := os.ReadFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		t.Fatalf("%s holds no certificate", p.CAFile)
	}
	return pool
}

// Proxy is an http.Transport Proxy function naming the interception proxy, for a transport that must not read
// HTTPS_PROXY from the environment (net/http reads it once per process).
func (p *Intercept) Proxy(*http.Request) (*url.URL, error) { return p.URL, nil }

// PhoenixnapClientID is the client id that goes with a client secret (a project token) at the phoenixNAP
// persona's token endpoint: the persona's rule.
func PhoenixnapClientID(secret string) string {
	sum := sha256.Sum256([]byte("phoenixnap-client:" + secret))
	return "simcloud-" + hex.EncodeToString(sum[:])[:20]
}
