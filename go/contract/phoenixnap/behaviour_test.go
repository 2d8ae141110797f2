package phoenixnap

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
)

// A missing server: 404, which bmcapi does not decode (its generated code decodes 400, 401, 403 and 500), with
// phoenixNAP's Error body naming the id as asked.
func TestMissingServerIs404InPhoenixNAPsBody(t *testing.T) {
	const id = "a10000000000000009999999"
	_, res, err := clients(t).BMC.ServersApi.ServersServerIdGet(ctx(t), id).Execute()
	e := bmcError(t, err)
	var body bmcapi.Error
	if status(t, res) != http.StatusNotFound || e.Model() != nil || json.Unmarshal(e.Body(), &body) != nil || body.Message != "server "+id+" not found" {
		t.Fatalf("%d %#v %s", res.StatusCode, e.Model(), e.Body())
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// A deleted server: 403, as phoenixNAP answers one (its own CCM reads it as gone, k8s-cloud-provider-bmc d84a2c5),
// decoded by bmcapi into its Error model; an id never seen stays 404 (above).
func TestDeletedServerIs403InPhoenixNAPsBody(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	deprovision(t, c, s.Id)
	_, res, err := c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute()
	e := bmcError(t, err)
	m, ok := e.Model().(bmcapi.Error)
	if status(t, res) != http.StatusForbidden || !ok || m.Message != "server "+s.Id+" was deleted and can no longer be accessed" {
		t.Fatalf("%d %#v %s", res.StatusCode, e.Model(), e.Body())
	}
}

// A bad field: 400 with validationErrors naming it, decoded by bmcapi into its Error model.
func TestBadServerFieldsAreValidationErrors(t *testing.T) {
	_, res, err := clients(t).BMC.ServersApi.ServersPost(ctx(t)).ServerCreate(bmcapi.ServerCreate{Hostname: "x", Os: "ubuntu-24.04", Type: "s1.c1.small", Location: "sim-1"}).Execute()
	e := bmcError(t, err)
	m, ok := e.Model().(bmcapi.Error)
	if status(t, res) != http.StatusBadRequest || !ok || len(m.ValidationErrors) != 1 || !strings.HasPrefix(m.ValidationErrors[0], "type: unknown type s1.c1.small") {
		t.Fatalf("%d %#v", res.StatusCode, e.Model())
	}
}

// A rate limit on the BMC API's servers: RateLimit-* headers (Reset in seconds), then 429 in phoenixNAP's body.
func TestRateLimitOnServers(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	sim.AddFault(t, map[string]any{"kind": "rate_limit", "limit": 2, "window_seconds": 60, "match": map[string]any{"path": BMCPath + "/servers/*"}})
	_, res, err := c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute()
	if err != nil {
		t.Fatal(err)
	}
	reset, _ := strconv.Atoi(res.Header.Get("RateLimit-Reset"))
	if res.Header.Get("RateLimit-Limit") != "2" || res.Header.Get("RateLimit-Remaining") != "1" || reset < 30 || reset > 60 {
		t.Fatalf("headers %v", res.Header)
	}
	if _, _, err := c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute(); err != nil {
		t.Fatal(err)
	}
	_, res, err = c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute()
	e := bmcError(t, err)
	var body bmcapi.Error
	if status(t, res) != http.StatusTooManyRequests || json.Unmarshal(e.Body(), &body) != nil || body.Message != "Too Many Requests" || res.Header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d %s %v", res.StatusCode, e.Body(), res.Header)
	}
}

// A fault rule on simcloud's resource type matches the persona's path for the same resource (500: decoded).
func TestAnErrorFaultOnSimcloudServersHitsTheBMCAPI(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	sim.AddFault(t, map[string]any{"kind": "error", "status": 500, "code": "server_error", "count": 1, "match": map[string]any{"method": "GET", "resource_type": "server"}})
	_, res, err := c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute()
	e := bmcError(t, err)
	if _, ok := e.Model().(bmcapi.Error); status(t, res) != http.StatusInternalServerError || !ok {
		t.Fatalf("first GET: %d %#v", res.StatusCode, e.Model())
	}
	if _, _, err := c.BMC.ServersApi.ServersServerIdGet(ctx(t), s.Id).Execute(); err != nil {
		t.Fatalf("second GET (rule spent): %v", err)
	}
}
