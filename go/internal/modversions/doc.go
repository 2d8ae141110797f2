// Package modversions holds the test that keeps this module's k8s.io/* requirements at the versions the
// control-plane wrapper module (sandbox/control-plane/gomod) builds Kubernetes with, so the upstream CCM
// runs the same client and controller code as the cluster and both builds share one Go build cache.
package modversions
