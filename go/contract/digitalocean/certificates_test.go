package digitalocean

import (
	"net/http"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

// TestACustomCertificateIsUploadedFoundByNameAndNamedByAnHTTPSRule follows what the DigitalOcean CCM does with
// its certificate annotations: it lists certificates by name and gets one by id (reading name and type), and
// sends its id on the https forwarding rule, which the load balancer answers back.
func TestACustomCertificateIsUploadedFoundByNameAndNamedByAnHTTPSRule(t *testing.T) {
	c := client(t)
	pair := simcloudtest.SelfSignedPEM(t, "lb.test")
	name := simcloudtest.UniqueName("do-cert")
	cert, _, err := c.Certificates.Create(ctx(t), &godo.CertificateRequest{Name: name, Type: "custom", LeafCertificate: pair.Cert, PrivateKey: pair.Key})
	if err != nil {
		t.Fatalf("create certificate: %v", err)
	}
	if cert.Type != "custom" || cert.State != "verified" || len(cert.SHA1Fingerprint) != 40 || cert.NotAfter == "" || len(cert.DNSNames) != 1 || cert.DNSNames[0] != "lb.test" {
		t.Fatalf("certificate %+v", cert)
	}
	found, _, err := c.Certificates.ListByName(ctx(t), name, &godo.ListOptions{Page: 1, PerPage: 1})
	if err != nil || len(found) != 1 || found[0].ID != cert.ID {
		t.Fatalf("list by name: %+v, %v", found, err)
	}
	got, _, err := c.Certificates.Get(ctx(t), cert.ID)
	if err != nil || got.Name != name {
		t.Fatalf("get: %+v, %v", got, err)
	}

	req := lbRequest(simcloudtest.UniqueName("do-tls"))
	req.EnableProxyProtocol = false
	req.RedirectHttpToHttps = true
	req.ForwardingRules = append(req.ForwardingRules, godo.ForwardingRule{EntryProtocol: "https", EntryPort: 443, TargetProtocol: "http", TargetPort: 30080, CertificateID: cert.ID})
	lb := createLB(t, req)
	if rule := lb.ForwardingRules[1]; rule.CertificateID != cert.ID || rule.EntryProtocol != "https" || rule.TargetProtocol != "http" {
		t.Fatalf("https rule %+v", rule)
	}
	if !lb.RedirectHttpToHttps {
		t.Fatal("redirect_http_to_https not answered back")
	}

	// The certificate in use stays; once the load balancer is gone it can be deleted.
	_, err = c.Certificates.Delete(ctx(t), cert.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(e.Message, "in use") {
		t.Fatalf("delete in use: %d %s", e.Response.StatusCode, e.Message)
	}
	if _, err := c.LoadBalancers.Delete(ctx(t), lb.ID); err != nil {
		t.Fatalf("delete load balancer: %v", err)
	}
	// The load balancer leaves the certificate once simcloud's delete action ends, as DigitalOcean's does a moment later.
	poll.Eventually(t, "certificate deleted", func() error {
		_, err := c.Certificates.Delete(ctx(t), cert.ID)
		return err
	})
	_, _, err = c.Certificates.Get(ctx(t), cert.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusNotFound {
		t.Fatalf("get deleted: %d", e.Response.StatusCode)
	}
}

func TestCertificateUploadsAndTLSRulesAreRefusedNamingTheField(t *testing.T) {
	c := client(t)
	pair, other := simcloudtest.SelfSignedPEM(t, "lb.test"), simcloudtest.SelfSignedPEM(t, "other.test")
	for _, tc := range []struct {
		name  string
		req   godo.CertificateRequest
		field string
	}{
		{"a key of another certificate", godo.CertificateRequest{Type: "custom", LeafCertificate: pair.Cert, PrivateKey: other.Key}, "private_key"},
		{"not a PEM certificate", godo.CertificateRequest{Type: "custom", LeafCertificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", PrivateKey: pair.Key}, "leaf_certificate"},
		{"lets_encrypt", godo.CertificateRequest{Type: "lets_encrypt", DNSNames: []string{"lb.test"}}, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Name = simcloudtest.UniqueName("do-cert")
			_, _, err := c.Certificates.Create(ctx(t), &tc.req)
			if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, tc.field+":") {
				t.Fatalf("%d %s, want 422 naming %s", e.Response.StatusCode, e.Message, tc.field)
			}
		})
	}
	req := lbRequest(simcloudtest.UniqueName("do-tls"))
	req.ForwardingRules = []godo.ForwardingRule{{EntryProtocol: "https", EntryPort: 443, TargetProtocol: "http", TargetPort: 30080}}
	_, _, err := c.LoadBalancers.Create(ctx(t), req)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, "forwarding_rules.0.certificate_id:") {
		t.Fatalf("https rule without a certificate: %d %s", e.Response.StatusCode, e.Message)
	}
}
