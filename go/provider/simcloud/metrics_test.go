package simcloud

import (
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
)

// callCount is ccm_cloud_api_calls_total{operation, code} as /metrics would show it.
func callCount(t *testing.T, operation, code string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "ccm_cloud_api_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["operation"] == operation && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestEveryCloudCallIsCounted(t *testing.T) {
	before := callCount(t, "servers.list", "200")
	newTestCloud(t, "") // its start-up probe lists servers once
	if after := callCount(t, "servers.list", "200"); after != before+1 {
		t.Errorf("ccm_cloud_api_calls_total{operation=servers.list,code=200} went from %v to %v, want +1", before, after)
	}
}
