package linode

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AnnPortPrefix, followed by a Service port number, is Linode's per-port annotation: a JSON object whose
// "protocol" overrides default-protocol for that port and whose "tls-secret-name" names the kubernetes.io/tls
// Secret, in the Service's namespace, an https port terminates TLS with.
const AnnPortPrefix = annPrefix + "port-"

// portAnnotation is the part of the per-port annotation this provider reads; other keys are ignored, as
// Linode's CCM ignores keys it does not know.
type portAnnotation struct {
	Protocol      string `json:"protocol"`
	TLSSecretName string `json:"tls-secret-name"`
}

// portTLS is one Service port's protocol and, for https, the certificate and key the config carries.
type portTLS struct {
	protocol linodego.ConfigProtocol
	cert     string
	key      string
}

// portSettings reads every port's protocol and certificate before any cloud call, so a contradictory
// annotation or an unusable Secret fails the sync with one line naming what to fix and leaves the NodeBalancer
// as it was. As with Linode's CCM: the per-port protocol wins over default-protocol; an https port needs a
// tls-secret-name; the Secret is read from the Service's namespace and its tls.crt and tls.key, trimmed, are
// the config's ssl_cert and ssl_key; a tls-secret-name on a tcp or http port is not read. A NodeBalancer has
// no http-to-https redirect, so there is none to configure.
func portSettings(ctx context.Context, kube kubernetes.Interface, svc *v1.Service, fallback linodego.ConfigProtocol) (map[int32]portTLS, error) {
	out := make(map[int32]portTLS, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		s, err := portSetting(ctx, kube, svc, p.Port, fallback)
		if err != nil {
			return nil, fmt.Errorf("port %d: %w", p.Port, err)
		}
		out[p.Port] = s
	}
	return out, nil
}

func portSetting(ctx context.Context, kube kubernetes.Interface, svc *v1.Service, port int32, fallback linodego.ConfigProtocol) (portTLS, error) {
	key := AnnPortPrefix + strconv.Itoa(int(port))
	var a portAnnotation
	if raw, ok := svc.Annotations[key]; ok {
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			return portTLS{}, fmt.Errorf("annotation %s is not a JSON object: %v", key, err)
		}
	}
	s := portTLS{protocol: fallback}
	switch p := linodego.ConfigProtocol(strings.ToLower(strings.TrimSpace(a.Protocol))); p {
	case "":
	case linodego.ProtocolTCP, linodego.ProtocolHTTP, linodego.ProtocolHTTPS:
		s.protocol = p
	default:
		return portTLS{}, fmt.Errorf("annotation %s: protocol %q is not one of tcp, http, https", key, a.Protocol)
	}
	if s.protocol != linodego.ProtocolHTTPS {
		return s, nil
	}
	name := strings.TrimSpace(a.TLSSecretName)
	switch {
	case name == "":
		return portTLS{}, fmt.Errorf("protocol https needs a certificate: set \"tls-secret-name\" in annotation %s to a kubernetes.io/tls Secret in namespace %s", key, svc.Namespace)
	case strings.Contains(name, "/"):
		return portTLS{}, fmt.Errorf("annotation %s: tls-secret-name %q must be a Secret's name only: it is read from the Service's namespace %s", key, name, svc.Namespace)
	case kube == nil:
		return portTLS{}, fmt.Errorf("protocol https needs Secret %s/%s, but the provider has no Kubernetes client", svc.Namespace, name)
	}
	secret, err := kube.CoreV1().Secrets(svc.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return portTLS{}, fmt.Errorf("the Secret %s/%s named by annotation %s does not exist", svc.Namespace, name, key)
	}
	if err != nil {
		return portTLS{}, fmt.Errorf("reading Secret %s/%s named by annotation %s: %w", svc.Namespace, name, key, err)
	}
	s.cert = strings.TrimSpace(string(secret.Data[v1.TLSCertKey]))
	s.key = strings.TrimSpace(string(secret.Data[v1.TLSPrivateKeyKey]))
	var missing []string
	if s.cert == "" {
		missing = append(missing, v1.TLSCertKey)
	}
	if s.key == "" {
		missing = append(missing, v1.TLSPrivateKeyKey)
	}
	if len(missing) > 0 {
		return portTLS{}, fmt.Errorf("the Secret %s/%s named by annotation %s has no %s", svc.Namespace, name, key, strings.Join(missing, " or "))
	}
	return s, nil
}
