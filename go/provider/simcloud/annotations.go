package simcloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// AnnotationPrefix starts every Service annotation the provider reads. The names and meanings are the
// TypeScript CCM's (docs/reference/annotations.md); an unknown key under the prefix is an error, so a typo
// is reported in a SyncLoadBalancerFailed event instead of being ignored.
const AnnotationPrefix = "loadbalancer.simcloud.dev/"

// Service annotations.
const (
	AnnotationProtocol            = AnnotationPrefix + "protocol"
	AnnotationProxyProtocol       = AnnotationPrefix + "proxy-protocol"
	AnnotationAlgorithm           = AnnotationPrefix + "algorithm"
	AnnotationHealthCheckProtocol = AnnotationPrefix + "health-check-protocol"
	AnnotationHealthCheckPort     = AnnotationPrefix + "health-check-port"
	AnnotationHealthCheckPath     = AnnotationPrefix + "health-check-path"
	AnnotationHealthCheckInterval = AnnotationPrefix + "health-check-interval"
	AnnotationHealthCheckTimeout  = AnnotationPrefix + "health-check-timeout"
	AnnotationHealthCheckRetries  = AnnotationPrefix + "health-check-retries"
	AnnotationHostnameOnlyIngress = AnnotationPrefix + "hostname-only-ingress"
	AnnotationPreserve            = AnnotationPrefix + "preserve"
	AnnotationLoadBalancerID      = AnnotationPrefix + "load-balancer-id"
	AnnotationCertificateID       = AnnotationPrefix + "certificate-id"
	AnnotationRedirectHTTPToHTTPS = AnnotationPrefix + "redirect-http-to-https"
	// AnnotationPortPrefix + "<port>" holds a JSON object of overrides for one Service port.
	AnnotationPortPrefix = AnnotationPrefix + "port-"
)

// portOverride is the JSON of a port-<n> annotation; nil fields fall back to the Service-wide values.
type portOverride struct {
	Protocol            *string `json:"protocol"`
	ProxyProtocol       *string `json:"proxy-protocol"`
	HealthCheckProtocol *string `json:"health-check-protocol"`
	HealthCheckPort     *int    `json:"health-check-port"`
	HealthCheckPath     *string `json:"health-check-path"`
}

// lbConfig is a Service's annotations, parsed, with defaults filled in.
type lbConfig struct {
	protocol            string
	proxyProtocol       string
	algorithm           string
	healthCheckProtocol string
	// healthCheckPort is 0 for "the listener's node port".
	healthCheckPort     int
	healthCheckPath     string
	healthCheckInterval int
	healthCheckTimeout  int
	healthCheckRetries  int
	hostnameOnlyIngress bool
	preserve            bool
	loadBalancerID      string
	// certificateID: every https listener ends TLS with it; redirectHTTPToHTTPS: http listeners redirect to the first https port.
	certificateID       string
	redirectHTTPToHTTPS bool
	portOverrides       map[int32]portOverride
}

func defaultLBConfig() lbConfig {
	return lbConfig{
		protocol: "tcp", proxyProtocol: "none", algorithm: "round_robin", healthCheckProtocol: "tcp",
		healthCheckPath: "/", healthCheckInterval: 10, healthCheckTimeout: 5, healthCheckRetries: 3,
		portOverrides: map[int32]portOverride{},
	}
}

var (
	listenerProtocols    = []string{"tcp", "http", "https"}
	proxyProtocols       = []string{"none", "v1", "v2"}
	healthCheckProtocols = []string{"tcp", "http"}
	algorithms           = []string{"round_robin", "least_connections"}
	pathPattern          = regexp.MustCompile(`^/\S*$`)
	idPattern            = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
)

// annotation is one scalar annotation: its key and how it sets its field; parse returns what is allowed
// when the value is invalid.
type annotation struct {
	key   string
	parse func(raw string, cfg *lbConfig) (allowed string, ok bool)
}

func enumOf(values []string, set func(*lbConfig, string)) func(string, *lbConfig) (string, bool) {
	return func(raw string, cfg *lbConfig) (string, bool) {
		v := strings.TrimSpace(raw)
		for _, allowed := range values {
			if v == allowed {
				set(cfg, v)
				return "", true
			}
		}
		return "must be one of: " + strings.Join(values, ", "), false
	}
}

func intIn(lo, hi int, set func(*lbConfig, int)) func(string, *lbConfig) (string, bool) {
	return func(raw string, cfg *lbConfig) (string, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("must be an integer %d..%d", lo, hi), false
		}
		set(cfg, n)
		return "", true
	}
}

func boolean(set func(*lbConfig, bool)) func(string, *lbConfig) (string, bool) {
	return func(raw string, cfg *lbConfig) (string, bool) {
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true":
			set(cfg, true)
		case "false":
			set(cfg, false)
		default:
			return "must be one of: true, false", false
		}
		return "", true
	}
}

func matching(pattern *regexp.Regexp, what string, set func(*lbConfig, string)) func(string, *lbConfig) (string, bool) {
	return func(raw string, cfg *lbConfig) (string, bool) {
		v := strings.TrimSpace(raw)
		if !pattern.MatchString(v) {
			return "must be " + what, false
		}
		set(cfg, v)
		return "", true
	}
}

var annotations = []annotation{
	{AnnotationProtocol, enumOf(listenerProtocols, func(c *lbConfig, v string) { c.protocol = v })},
	{AnnotationProxyProtocol, enumOf(proxyProtocols, func(c *lbConfig, v string) { c.proxyProtocol = v })},
	{AnnotationAlgorithm, enumOf(algorithms, func(c *lbConfig, v string) { c.algorithm = v })},
	{AnnotationHealthCheckProtocol, enumOf(healthCheckProtocols, func(c *lbConfig, v string) { c.healthCheckProtocol = v })},
	{AnnotationHealthCheckPort, intIn(1, 65535, func(c *lbConfig, v int) { c.healthCheckPort = v })},
	{AnnotationHealthCheckPath, matching(pathPattern, "an absolute path starting with /", func(c *lbConfig, v string) { c.healthCheckPath = v })},
	{AnnotationHealthCheckInterval, intIn(1, 3600, func(c *lbConfig, v int) { c.healthCheckInterval = v })},
	{AnnotationHealthCheckTimeout, intIn(1, 300, func(c *lbConfig, v int) { c.healthCheckTimeout = v })},
	{AnnotationHealthCheckRetries, intIn(1, 10, func(c *lbConfig, v int) { c.healthCheckRetries = v })},
	{AnnotationHostnameOnlyIngress, boolean(func(c *lbConfig, v bool) { c.hostnameOnlyIngress = v })},
	{AnnotationPreserve, boolean(func(c *lbConfig, v bool) { c.preserve = v })},
	{AnnotationLoadBalancerID, matching(idPattern, "a simcloud resource id (letters, digits, `_.-`)", func(c *lbConfig, v string) { c.loadBalancerID = v })},
	{AnnotationCertificateID, matching(idPattern, "a simcloud certificate id (letters, digits, `_.-`)", func(c *lbConfig, v string) { c.certificateID = v })},
	{AnnotationRedirectHTTPToHTTPS, boolean(func(c *lbConfig, v bool) { c.redirectHTTPToHTTPS = v })},
}

// InvalidServiceError lists every problem that keeps a Service from getting a load balancer. It is returned
// before any cloud call, and the service controller records its message in a SyncLoadBalancerFailed event.
type InvalidServiceError struct {
	What     string
	Problems []string
}

// Error joins the problems into one line.
func (e *InvalidServiceError) Error() string {
	return e.What + ": " + strings.Join(e.Problems, "; ")
}

// parseAnnotations reads every loadbalancer.simcloud.dev/ annotation; all problems are reported together.
func parseAnnotations(source map[string]string) (lbConfig, error) {
	cfg := defaultLBConfig()
	var problems []string
	known := map[string]bool{}
	for _, a := range annotations {
		known[a.key] = true
		raw, ok := source[a.key]
		if !ok {
			continue
		}
		if allowed, ok := a.parse(raw, &cfg); !ok {
			problems = append(problems, fmt.Sprintf("annotation %s=%q %s", a.key, raw, allowed))
		}
	}
	for _, key := range sortedKeys(source) {
		raw := source[key]
		switch {
		case strings.HasPrefix(key, AnnotationPortPrefix):
			if problem := parsePortOverride(key, raw, &cfg); problem != "" {
				problems = append(problems, problem)
			}
		case strings.HasPrefix(key, AnnotationPrefix) && !known[key]:
			problems = append(problems, fmt.Sprintf("annotation %s is not known; known %s annotations: %s", key, AnnotationPrefix, knownNames()))
		}
	}
	if len(problems) > 0 {
		return cfg, &InvalidServiceError{What: "invalid service annotations", Problems: problems}
	}
	return cfg, nil
}

const portOverrideAllowed = "a JSON object with optional keys protocol (tcp, http, https), proxy-protocol (none, v1, v2), " +
	"health-check-protocol (tcp, http), health-check-port (1..65535), health-check-path (/...)"

func parsePortOverride(key, raw string, cfg *lbConfig) string {
	port, err := strconv.Atoi(strings.TrimPrefix(key, AnnotationPortPrefix))
	if err != nil || port < 1 || port > 65535 {
		return fmt.Sprintf("annotation %s=%q names no valid port: use port-<n> with n in 1..65535", key, raw)
	}
	var o portOverride
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil || !o.valid() {
		return fmt.Sprintf("annotation %s=%q must be %s", key, raw, portOverrideAllowed)
	}
	cfg.portOverrides[int32(port)] = o
	return ""
}

func (o portOverride) valid() bool {
	in := func(v *string, allowed []string) bool {
		if v == nil {
			return true
		}
		for _, a := range allowed {
			if *v == a {
				return true
			}
		}
		return false
	}
	portOK := o.HealthCheckPort == nil || (*o.HealthCheckPort >= 1 && *o.HealthCheckPort <= 65535)
	pathOK := o.HealthCheckPath == nil || pathPattern.MatchString(*o.HealthCheckPath)
	return in(o.Protocol, listenerProtocols) && in(o.ProxyProtocol, proxyProtocols) && in(o.HealthCheckProtocol, healthCheckProtocols) && portOK && pathOK
}

func knownNames() string {
	names := make([]string, 0, len(annotations)+1)
	for _, a := range annotations {
		names = append(names, strings.TrimPrefix(a.key, AnnotationPrefix))
	}
	return strings.Join(append(names, "port-<n>"), ", ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
