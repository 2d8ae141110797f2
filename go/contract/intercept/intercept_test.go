// Package intercept tests the sandbox's HTTPS interception proxy (sandbox/intercept/) with the clouds' own SDK
// clients built with their default endpoints (api.hetzner.cloud, api.digitalocean.com, api.phoenixnap.com and
// auth.phoenixnap.com): through the proxy, with its CA as the only root, they reach simcloud's personas with TLS
// verified; without the CA they fail TLS; the proxy dials no other host and refuses a foreign Host in a tunnel.
// It is part of the module go/, which already requires the three SDKs for its providers.
package intercept

import (
	"bufio"
	"context"
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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"ccm-sandbox/go/internal/simcloudtest"
)

var (
	sim   *simcloudtest.Server
	proxy *simcloudtest.Intercept
)

func TestMain(m *testing.M) {
	if os.Getenv(childVar) != "" {
		os.Exit(m.Run())
	}
	os.Exit(simcloudtest.RunWithIntercept(m, &sim, &proxy))
}

// phoenixNAP's token endpoint as its CCM compiles it in.
const pnapTokenURL = "https://auth.phoenixnap.com/auth/realms/BMC/protocol/openid-connect/token"

// transport goes through the proxy and trusts roots (nil: the system's) and nothing else.
func transport(roots *x509.CertPool) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: proxy.Proxy, TLSClientConfig: &tls.Config{RootCAs: roots}}}
}

func ctx(t *testing.T) context.Context { return simcloudtest.Context(t) }

// Each SDK client lists servers at its default endpoint on the HTTP client hc (with its token); it returns the
// names it saw.
var clients = []struct {
	sdk  string
	list func(ctx context.Context, hc *http.Client, token string) ([]string, error)
}{
	{"hcloud-go", func(ctx context.Context, hc *http.Client, token string) ([]string, error) {
		servers, err := hcloud.NewClient(hcloud.WithToken(token), hcloud.WithHTTPClient(hc)).Server.All(ctx)
		names := make([]string, 0, len(servers))
		for _, s := range servers {
			names = append(names, s.Name)
		}
		return names, err
	}},
	{"godo", func(ctx context.Context, hc *http.Client, token string) ([]string, error) {
		bearer := oauth2.NewClient(context.WithValue(ctx, oauth2.HTTPClient, hc), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
		droplets, _, err := godo.NewClient(bearer).Droplets.List(ctx, &godo.ListOptions{PerPage: 200})
		names := make([]string, 0, len(droplets))
		for _, d := range droplets {
			names = append(names, d.Name)
		}
		return names, err
	}},
	{"go-sdk-bmc", func(ctx context.Context, hc *http.Client, token string) ([]string, error) {
		cc := &clientcredentials.Config{ClientID: simcloudtest.PhoenixnapClientID(token), ClientSecret: token, TokenURL: pnapTokenURL}
		cfg := bmcapi.NewConfiguration()
		cfg.HTTPClient = cc.Client(context.WithValue(ctx, oauth2.HTTPClient, hc))
		servers, _, err := bmcapi.NewAPIClient(cfg).ServersApi.ServersGet(ctx).Execute()
		names := make([]string, 0, len(servers))
		for _, s := range servers {
			names = append(names, s.Hostname)
		}
		return names, err
	}},
}

// A server made through /v1 is listed by every SDK at its default endpoint: the request reached the persona.
func TestDefaultEndpointsReachThePersonasThroughTheProxyWithTLSVerified(t *testing.T) {
	name := simcloudtest.UniqueName("intercepted")
	sim.CreateServer(t, name, simcloudtest.ServerOpts{})
	hc := transport(proxy.Roots(t))
	for _, c := range clients {
		t.Run(c.sdk, func(t *testing.T) {
			names, err := c.list(ctx(t), hc, sim.Token)
			if err != nil {
				t.Fatal(err)
			}
			if !contains(names, name) {
				t.Errorf("server %s not among %v", name, names)
			}
		})
	}
}

// The same clients trusting the system's roots only: the proxy's certificate does not verify.
func TestWithoutTheCATheClientsFailTLS(t *testing.T) {
	hc := transport(nil)
	for _, c := range clients {
		t.Run(c.sdk, func(t *testing.T) {
			_, err := c.list(ctx(t), hc, sim.Token)
			var unknown x509.UnknownAuthorityError
			var verify *tls.CertificateVerificationError
			if !errors.As(err, &unknown) && !errors.As(err, &verify) {
				t.Fatalf("want a certificate verification error, got %v", err)
			}
		})
	}
}

// connect sends a CONNECT for target to the proxy and returns the status line's code and the open connection.
func connect(t *testing.T, target string) (int, net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", proxy.URL.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	if res.StatusCode != http.StatusOK {
		_ = res.Body.Close()
	}
	return res.StatusCode, conn, r
}

// A CONNECT to anything but a persona's API host on 443 is 403, and the proxy never dials it: a listener on
// loopback named every way a client could name it sees no connection.
func TestConnectToAHostNotOnTheListIs403AndNeverDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, target := range []string{
		"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.0.0.1:443", "example.com:443",
		"api.hetzner.cloud:80", "api.hetzner.cloud:" + port, "api.hetzner.cloud.example.com:443", "evil-api.hetzner.cloud:443",
		strings.TrimPrefix(sim.URL, "http://"),
	} {
		if code, _, _ := connect(t, target); code != http.StatusForbidden {
			t.Errorf("CONNECT %s: %d, want 403", target, code)
		}
	}
	select {
	case <-accepted:
		t.Fatal("the proxy dialled the listener")
	case <-time.After(200 * time.Millisecond):
	}
}

// Inside a tunnel to api.hetzner.cloud, a request naming another Host is refused as on every local surface,
// even with a valid token; the tunnel's own name is served.
func TestAForeignHostInsideATunnelIsRefused(t *testing.T) {
	for _, c := range []struct {
		host string
		want int
	}{{"attacker.example", http.StatusForbidden}, {"127.0.0.1", http.StatusForbidden}, {"api.linode.com", http.StatusForbidden}, {"api.hetzner.cloud", http.StatusOK}, {"api.hetzner.cloud:443", http.StatusOK}} {
		code, conn, _ := connect(t, "api.hetzner.cloud:443")
		if code != http.StatusOK {
			t.Fatalf("CONNECT api.hetzner.cloud:443: %d", code)
		}
		tc := tls.Client(conn, &tls.Config{ServerName: "api.hetzner.cloud", RootCAs: proxy.Roots(t)})
		req, _ := http.NewRequest(http.MethodGet, "https://api.hetzner.cloud/v1/servers", nil)
		req.Host = c.host
		req.Header.Set("Authorization", "Bearer "+sim.Token)
		if err := req.Write(tc); err != nil {
			t.Fatalf("Host %s: %v", c.host, err)
		}
		res, err := http.ReadResponse(bufio.NewReader(tc), req)
		if err != nil {
			t.Fatalf("Host %s: %v", c.host, err)
		}
		_ = res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %s: %d, want %d", c.host, res.StatusCode, c.want)
		}
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// The variable that makes the test binary the child of TestAToolWithTheSandboxEnvironmentAloneGetsThrough.
const childVar = "CCM_SANDBOX_INTERCEPT_CHILD"

// What the sandbox gives a CCM (HTTPS_PROXY, SSL_CERT_FILE, NO_PROXY) is all a program on net/http's defaults
// needs: the child process lists servers with http.DefaultClient, as phoenixNAP's CCM does.
func TestAToolWithTheSandboxEnvironmentAloneGetsThrough(t *testing.T) {
	cmd := exec.CommandContext(ctx(t), os.Args[0], "-test.run=^TestChildOnNetHTTPDefaults$", "-test.v")
	cmd.Env = append(os.Environ(), childVar+"=1", "HTTPS_PROXY="+proxy.URL.String(), "SSL_CERT_FILE="+proxy.CAFile,
		"NO_PROXY=127.0.0.1,localhost,::1", "CHILD_TOKEN="+sim.Token, "CHILD_SIMCLOUD="+sim.URL)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestChildOnNetHTTPDefaults") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestChildOnNetHTTPDefaults(t *testing.T) {
	if os.Getenv(childVar) == "" {
		t.Skip("the child of TestAToolWithTheSandboxEnvironmentAloneGetsThrough")
	}
	for _, c := range clients {
		if _, err := c.list(ctx(t), http.DefaultClient, os.Getenv("CHILD_TOKEN")); err != nil {
			t.Errorf("%s: %v", c.sdk, err)
		}
	}
	// Go never proxies loopback: simcloud (and the kube-apiserver) stay direct.
	req, _ := http.NewRequest(http.MethodGet, os.Getenv("CHILD_SIMCLOUD")+"/_sim/health", nil)
	if u, err := http.ProxyFromEnvironment(req); err != nil || u != nil {
		t.Errorf("loopback proxied through %v (%v)", u, err)
	}
}

// The CA is name-constrained: a certificate it signs for any other name fails verification even with the CA
// trusted (its key is read from the sandbox directory, as another local user could not: 0600).
func TestTheCAIsNameConstrainedToTheAPIHosts(t *testing.T) {
	info, err := os.Stat(filepath.Join(proxy.Dir, "ca-key.pem"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("ca-key.pem: %v %v", err, info)
	}
	data, err := os.ReadFile(filepath.Join(proxy.Dir, "ca-key.pem"))
	block, _ := pem.Decode(data)
	if err != nil || block == nil {
		t.Fatalf("ca-key.pem: %v", err)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	caData, _ := os.ReadFile(proxy.CAFile)
	caBlock, _ := pem.Decode(caData)
	ca, err := x509.ParseCertificate(caBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, c := range []struct {
		name string
		ok   bool
	}{{"api.hetzner.cloud", true}, {"auth.phoenixnap.com", true}, {"example.com", false}, {"kubernetes.default.svc", false}, {"hetzner.cloud", false}} {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: c.name}, DNSNames: []string{c.name},
			NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &leafKey.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := x509.ParseCertificate(der)
		_, err = leaf.Verify(x509.VerifyOptions{DNSName: c.name, Roots: proxy.Roots(t)})
		var invalid x509.CertificateInvalidError
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if !c.ok && (!errors.As(err, &invalid) || invalid.Reason != x509.CANotAuthorizedForThisName) {
			t.Errorf("%s: want CANotAuthorizedForThisName, got %v", c.name, err)
		}
	}
}
