package linode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
)

// The service.beta.kubernetes.io/linode-loadbalancer-* annotations this provider reads (Linode's names).
const (
	annPrefix        = "service.beta.kubernetes.io/linode-loadbalancer-"
	AnnProtocol      = annPrefix + "default-protocol"
	AnnProxyProtocol = annPrefix + "default-proxy-protocol"
	AnnAlgorithm     = annPrefix + "default-algorithm"
	AnnCheckType     = annPrefix + "check-type"
	AnnCheckPath     = annPrefix + "check-path"
	AnnCheckInterval = annPrefix + "check-interval"
	AnnCheckTimeout  = annPrefix + "check-timeout"
	AnnCheckAttempts = annPrefix + "check-attempts"
	AnnThrottle      = annPrefix + "throttle"
	AnnTags          = annPrefix + "tags"
)

// lbOptions are a Service's NodeBalancer settings, from its annotations with Linode's CCM defaults.
type lbOptions struct {
	protocol      linodego.ConfigProtocol
	proxyProtocol linodego.ConfigProxyProtocol
	algorithm     linodego.ConfigAlgorithm
	check         linodego.ConfigCheck
	checkPath     string
	interval      int
	timeout       int
	attempts      int
	throttle      int
	tags          []string
}

func oneOf[T ~string](ann map[string]string, key string, def T, allowed ...T) (T, error) {
	v, ok := ann[key]
	if !ok {
		return def, nil
	}
	for _, a := range allowed {
		if strings.EqualFold(v, string(a)) {
			return a, nil
		}
	}
	return def, fmt.Errorf("annotation %s: %q is not one of %v", key, v, allowed)
}

func intIn(ann map[string]string, key string, def, lo, hi int) (int, error) {
	v, ok := ann[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return def, fmt.Errorf("annotation %s: %q is not an integer from %d to %d", key, v, lo, hi)
	}
	return n, nil
}

// parseOptions reads a Service's annotations; the first bad one is an error naming it.
func parseOptions(svc *v1.Service) (lbOptions, error) {
	ann := svc.Annotations
	o := lbOptions{checkPath: ann[AnnCheckPath]}
	var err error
	if o.protocol, err = oneOf(ann, AnnProtocol, linodego.ProtocolTCP, linodego.ProtocolTCP, linodego.ProtocolHTTP, linodego.ProtocolHTTPS); err != nil {
		return o, err
	}
	if o.proxyProtocol, err = oneOf(ann, AnnProxyProtocol, linodego.ProxyProtocolNone, linodego.ProxyProtocolNone, linodego.ProxyProtocolV1, linodego.ProxyProtocolV2); err != nil {
		return o, err
	}
	if o.algorithm, err = oneOf(ann, AnnAlgorithm, linodego.AlgorithmRoundRobin, linodego.AlgorithmRoundRobin, linodego.AlgorithmLeastConn, linodego.AlgorithmSource); err != nil {
		return o, err
	}
	if o.check, err = oneOf(ann, AnnCheckType, linodego.CheckConnection, linodego.CheckNone, linodego.CheckConnection, linodego.CheckHTTP, linodego.CheckHTTPBody); err != nil {
		return o, err
	}
	return o, o.parseNumbers(ann)
}

func (o *lbOptions) parseNumbers(ann map[string]string) error {
	var err error
	if o.interval, err = intIn(ann, AnnCheckInterval, 5, 2, 3600); err != nil {
		return err
	}
	if o.timeout, err = intIn(ann, AnnCheckTimeout, 3, 1, 30); err != nil {
		return err
	}
	if o.attempts, err = intIn(ann, AnnCheckAttempts, 2, 1, 30); err != nil {
		return err
	}
	if o.throttle, err = intIn(ann, AnnThrottle, 20, 0, 20); err != nil {
		return err
	}
	for _, t := range strings.Split(ann[AnnTags], ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.tags = append(o.tags, t)
		}
	}
	return nil
}
