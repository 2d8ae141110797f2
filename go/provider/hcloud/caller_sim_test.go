package hcloud

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type apiCall struct {
	Path           string `json:"path"`
	Caller         string `json:"caller"`
	UpstreamMethod string `json:"upstream_method"`
}

// apiCalls replays the API calls simcloud recorded so far (its event stream from the start, up to the
// point where it turns live).
func apiCalls(t *testing.T) []apiCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, sim.URL+"/_sim/events?types=api_call&since=0", nil)
	req.Header.Set("Authorization", "Bearer "+sim.AdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var calls []apiCall
	scanner := bufio.NewScanner(res.Body)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if line == ": connected" {
			return calls
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var c apiCall
			if err := json.Unmarshal([]byte(data), &c); err != nil {
				t.Fatal(err)
			}
			calls = append(calls, c)
		}
	}
	t.Fatalf("the event stream ended before its replay did: %v", scanner.Err())
	return nil
}

func TestSimcloudRecordsWhichControllerMadeEachCall(t *testing.T) {
	cloud := newTestCloud(t, nil)
	instances, _ := cloud.InstancesV2()
	lbs, _ := cloud.LoadBalancer()
	server := createServer(t, unique("caller"), nil)
	if _, err := instances.InstanceMetadata(context.Background(), node(server.Name, "")); err != nil {
		t.Fatal(err)
	}
	svc := lbService(nil)
	if _, _, err := lbs.GetLoadBalancer(context.Background(), "c", svc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cloud-node-controller " + server.Name:      "InstanceMetadata",
		"service-lb-controller default/" + svc.Name: "GetLoadBalancer",
	}
	for _, call := range apiCalls(t) {
		if method, ok := want[call.Caller]; ok && method == call.UpstreamMethod && strings.HasPrefix(call.Path, dialectPath+"/") {
			delete(want, call.Caller)
		}
	}
	if len(want) > 0 {
		t.Errorf("no call through %s recorded for %v", dialectPath, want)
	}
}
