package simcloud

import (
	"strconv"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Cloud API metrics on the CCM's /metrics, named as cloud providers name theirs and as our TypeScript CCM
// does, so the two CCMs' figures compare line by line.
var (
	apiRequestDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Name:           "cloudprovider_simcloud_api_request_duration_seconds",
		Help:           "Latency of a cloud API call",
		Buckets:        []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		StabilityLevel: metrics.ALPHA,
	}, []string{"request"})
	apiRequestErrors = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "cloudprovider_simcloud_api_request_errors",
		Help:           "Cloud API errors",
		StabilityLevel: metrics.ALPHA,
	}, []string{"request"})
	apiCalls = metrics.NewCounterVec(&metrics.CounterOpts{
		Name:           "ccm_cloud_api_calls_total",
		Help:           "Cloud API calls by operation and status code",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operation", "code"})
)

func init() {
	legacyregistry.MustRegister(apiRequestDuration, apiRequestErrors, apiCalls)
}

// observeCall records one HTTP exchange with simcloud (status 0: no answer).
func observeCall(operation string, status int, took time.Duration) {
	apiCalls.WithLabelValues(operation, strconv.Itoa(status)).Inc()
	apiRequestDuration.WithLabelValues(operation).Observe(took.Seconds())
	if status == 0 || status >= 400 {
		apiRequestErrors.WithLabelValues(operation).Inc()
	}
}
