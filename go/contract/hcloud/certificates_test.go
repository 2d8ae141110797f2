package hcloud

import (
	"errors"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

// TestAnUploadedCertificateIsFoundByNameAndTerminatesAnHTTPSService follows Hetzner's CCM with its
// http-certificates annotation: it gets the certificate by name or id and puts it on an https service, which the
// load balancer answers back; the certificate shows the load balancer in used_by and cannot be deleted meanwhile.
func TestAnUploadedCertificateIsFoundByNameAndTerminatesAnHTTPSService(t *testing.T) {
	client, ctx := NewClient(sim), testContext(t)
	pair := simcloudtest.SelfSignedPEM(t, "lb.test")
	name := unique("cert")
	cert := ok(client.Certificate.Create(ctx, hcloud.CertificateCreateOpts{
		Name: name, Type: hcloud.CertificateTypeUploaded, Certificate: pair.Cert, PrivateKey: pair.Key, Labels: map[string]string{"app": "web"},
	})).Get(t)
	if cert.Type != hcloud.CertificateTypeUploaded || len(cert.DomainNames) != 1 || cert.DomainNames[0] != "lb.test" || cert.Fingerprint == "" || cert.NotValidAfter.IsZero() {
		t.Fatalf("certificate %+v", cert)
	}
	if got := ok(client.Certificate.Get(ctx, name)).Get(t); got == nil || got.ID != cert.ID {
		t.Fatalf("get by name: %+v", got)
	}
	renamed := ok(client.Certificate.Update(ctx, cert, hcloud.CertificateUpdateOpts{Name: name + "-x"})).Get(t)
	if renamed.Name != name+"-x" {
		t.Fatalf("update: %+v", renamed)
	}

	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{Services: []hcloud.LoadBalancerCreateOptsService{{
		Protocol: hcloud.LoadBalancerServiceProtocolHTTPS, ListenPort: ptr(443), DestinationPort: ptr(30080),
		HTTP: &hcloud.LoadBalancerCreateOptsServiceHTTP{Certificates: []*hcloud.Certificate{{ID: cert.ID}}, RedirectHTTP: ptr(true)},
	}}})
	if len(lb.Services) != 1 || len(lb.Services[0].HTTP.Certificates) != 1 || lb.Services[0].HTTP.Certificates[0].ID != cert.ID || !lb.Services[0].HTTP.RedirectHTTP {
		t.Fatalf("services %+v", lb.Services)
	}
	used := ok(client.Certificate.GetByID(ctx, cert.ID)).Get(t)
	if len(used.UsedBy) != 1 || used.UsedBy[0].ID != lb.ID || used.UsedBy[0].Type != hcloud.CertificateUsedByRefTypeLoadBalancer {
		t.Fatalf("used_by %+v", used.UsedBy)
	}
	_, err := client.Certificate.Delete(ctx, cert)
	if !hcloud.IsError(err, hcloud.ErrorCodeServiceError) {
		t.Fatalf("delete in use: %v", err)
	}

	// Without the service, the certificate can go.
	wait(t, client, ok(client.LoadBalancer.DeleteService(ctx, lb, 443)).Get(t))
	poll.Eventually(t, "certificate deleted", func() error {
		_, err := client.Certificate.Delete(ctx, cert)
		return err
	})
}

func TestCertificatesAndHTTPSServicesAreRefusedNamingTheField(t *testing.T) {
	client, ctx := NewClient(sim), testContext(t)
	pair, other := simcloudtest.SelfSignedPEM(t, "lb.test"), simcloudtest.SelfSignedPEM(t, "other.test")
	for _, tc := range []struct {
		name  string
		opts  hcloud.CertificateCreateOpts
		field string
	}{
		{"a key of another certificate", hcloud.CertificateCreateOpts{Type: hcloud.CertificateTypeUploaded, Certificate: pair.Cert, PrivateKey: other.Key}, "private_key"},
		{"not a PEM certificate", hcloud.CertificateCreateOpts{Type: hcloud.CertificateTypeUploaded, Certificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", PrivateKey: pair.Key}, "certificate"},
		{"managed", hcloud.CertificateCreateOpts{Type: hcloud.CertificateTypeManaged, DomainNames: []string{"lb.test"}}, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Name = unique("cert")
			_, _, err := client.Certificate.CreateCertificate(ctx, tc.opts)
			assertInvalidField(t, err, tc.field)
		})
	}
	_, _, err := client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
		Name: unique("lb"), LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "sim-1"},
		Services: []hcloud.LoadBalancerCreateOptsService{{
			Protocol: hcloud.LoadBalancerServiceProtocolHTTPS, ListenPort: ptr(443), DestinationPort: ptr(30080),
			HTTP: &hcloud.LoadBalancerCreateOptsServiceHTTP{Certificates: []*hcloud.Certificate{{ID: 999_999}}},
		}},
	})
	// hcloud-go reads fields only for invalid_input; the message names the certificate.
	if !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		t.Fatalf("unknown certificate: %v", err)
	}
}

// assertInvalidField fails unless err is hcloud's invalid_input naming field.
func assertInvalidField(t *testing.T, err error, field string) {
	t.Helper()
	var e hcloud.Error
	if !errors.As(err, &e) || e.Code != hcloud.ErrorCodeInvalidInput {
		t.Fatalf("%v, want invalid_input", err)
	}
	if f, ok := e.Details.(hcloud.ErrorDetailsInvalidInput); !ok || len(f.Fields) == 0 || f.Fields[0].Name != field {
		t.Fatalf("%+v, want the field %s", e.Details, field)
	}
}
