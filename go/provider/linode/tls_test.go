package linode

import (
	"context"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"ccm-sandbox/go/internal/simcloudtest"
)

func tlsSecret(name string, data map[string]string) *v1.Secret {
	s := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Type: v1.SecretTypeTLS, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func httpsPort(secret string) map[string]string {
	return map[string]string{AnnPortPrefix + "443": `{"protocol": "https", "tls-secret-name": "` + secret + `"}`}
}

func TestPortSettingsReadTheCertificateAsLinodesCCMDoes(t *testing.T) {
	kube := fake.NewClientset(
		tlsSecret("web-tls", map[string]string{v1.TLSCertKey: " CERT\n", v1.TLSPrivateKeyKey: "KEY\n"}),
		tlsSecret("no-key", map[string]string{v1.TLSCertKey: "CERT"}),
		tlsSecret("empty", nil),
	)
	port443 := v1.ServicePort{Port: 443, NodePort: 30443}
	tests := []struct {
		name    string
		kube    kubernetes.Interface
		ann     map[string]string
		want    portTLS
		wantErr string
	}{
		{"no annotation keeps default-protocol", kube, map[string]string{AnnProtocol: "http"}, portTLS{protocol: linodego.ProtocolHTTP}, ""},
		{"https reads tls.crt and tls.key, trimmed", kube, httpsPort("web-tls"), portTLS{protocol: linodego.ProtocolHTTPS, cert: "CERT", key: "KEY"}, ""},
		{"the per-port protocol wins over default-protocol", kube, map[string]string{AnnProtocol: "https", AnnPortPrefix + "443": `{"protocol": "TCP"}`}, portTLS{protocol: linodego.ProtocolTCP}, ""},
		{"a secret on a tcp port is not read", nil, map[string]string{AnnPortPrefix + "443": `{"protocol": "tcp", "tls-secret-name": "gone"}`}, portTLS{protocol: linodego.ProtocolTCP}, ""},
		{"default-protocol https needs the per-port secret", kube, map[string]string{AnnProtocol: "https"}, portTLS{}, `port 443: protocol https needs a certificate: set "tls-secret-name" in annotation ` + AnnPortPrefix + "443"},
		{"https without a secret name", kube, map[string]string{AnnPortPrefix + "443": `{"protocol": "https"}`}, portTLS{}, "protocol https needs a certificate"},
		{"a missing Secret", kube, httpsPort("gone"), portTLS{}, "port 443: the Secret default/gone named by annotation " + AnnPortPrefix + "443 does not exist"},
		{"a Secret without tls.key", kube, httpsPort("no-key"), portTLS{}, "the Secret default/no-key named by annotation " + AnnPortPrefix + "443 has no tls.key"},
		{"a Secret without either", kube, httpsPort("empty"), portTLS{}, "has no tls.crt or tls.key"},
		{"a Secret in another namespace", kube, httpsPort("other/web-tls"), portTLS{}, `tls-secret-name "other/web-tls" must be a Secret's name only: it is read from the Service's namespace default`},
		{"no Kubernetes client", nil, httpsPort("web-tls"), portTLS{}, "the provider has no Kubernetes client"},
		{"an unknown protocol", kube, map[string]string{AnnPortPrefix + "443": `{"protocol": "udp"}`}, portTLS{}, `protocol "udp" is not one of tcp, http, https`},
		{"an annotation that is not JSON", kube, map[string]string{AnnPortPrefix + "443": `https`}, portTLS{}, "annotation " + AnnPortPrefix + "443 is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := service("uid", tt.ann, port443)
			opts, err := parseOptions(svc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := portSettings(context.Background(), tt.kube, svc, opts.protocol)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got[443] != tt.want {
				t.Fatalf("portSettings = %+v, %v, want %+v", got[443], err, tt.want)
			}
		})
	}
}

// tlsLBs is the provider's load balancers reading Secrets from a fake cluster holding secrets.
func tlsLBs(t *testing.T, secrets ...*v1.Secret) *loadBalancers {
	lbs, _ := newTestCloud(t).LoadBalancer()
	l := lbs.(*loadBalancers)
	kube := fake.NewClientset()
	for _, s := range secrets {
		simcloudtest.Must(kube.CoreV1().Secrets(s.Namespace).Create(context.Background(), s, metav1.CreateOptions{})).Get(t)
	}
	l.kube = kube
	return l
}

// An https port becomes an https config carrying the Secret's certificate, which the API then names by its
// common name; a rotated Secret reaches the config on the next update.
func TestHTTPSPortTerminatesTLSWithTheSecretsCertificate(t *testing.T) {
	ctx := context.Background()
	first := simcloudtest.SelfSignedPEM(t, "first.example")
	l := tlsLBs(t, tlsSecret("web-tls", map[string]string{v1.TLSCertKey: first.Cert, v1.TLSPrivateKeyKey: first.Key}))
	svc := service(simcloudtest.UniqueName("uid"), httpsPort("web-tls"), v1.ServicePort{Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP})
	nodes := []*v1.Node{node("n1", "10.1.0.1")}
	if _, err := l.EnsureLoadBalancer(ctx, "", svc, nodes); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.EnsureLoadBalancerDeleted(ctx, "", svc) })
	commonName := func() string {
		nb := simcloudtest.Must(l.find(ctx, svc)).Get(t)
		cfgs := simcloudtest.Must(api(t).ListNodeBalancerConfigs(ctx, nb.ID, nil)).Get(t)
		if len(cfgs) != 1 || cfgs[0].Protocol != linodego.ProtocolHTTPS {
			t.Fatalf("configs %+v, want one https config", cfgs)
		}
		return cfgs[0].SSLCommonName
	}
	if cn := commonName(); cn != "first.example" {
		t.Errorf("ssl_commonname %q, want first.example", cn)
	}
	second := simcloudtest.SelfSignedPEM(t, "second.example")
	s := tlsSecret("web-tls", map[string]string{v1.TLSCertKey: second.Cert, v1.TLSPrivateKeyKey: second.Key})
	simcloudtest.Must(l.kube.CoreV1().Secrets("default").Update(ctx, s, metav1.UpdateOptions{})).Get(t)
	if err := l.UpdateLoadBalancer(ctx, "", svc, nodes); err != nil {
		t.Fatal(err)
	}
	if cn := commonName(); cn != "second.example" {
		t.Errorf("ssl_commonname after rotation %q, want second.example", cn)
	}
}

// A contradictory annotation is refused before any cloud call: no NodeBalancer is made.
func TestHTTPSWithoutAUsableSecretMakesNoNodeBalancer(t *testing.T) {
	ctx := context.Background()
	l := tlsLBs(t)
	svc := service(simcloudtest.UniqueName("uid"), httpsPort("absent"), v1.ServicePort{Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP})
	if _, err := l.EnsureLoadBalancer(ctx, "", svc, []*v1.Node{node("n1", "10.1.0.1")}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("EnsureLoadBalancer err = %v, want the missing Secret named", err)
	}
	if nb, err := l.find(ctx, svc); err != nil || nb != nil {
		t.Fatalf("NodeBalancer %+v, %v, want none", nb, err)
	}
}
