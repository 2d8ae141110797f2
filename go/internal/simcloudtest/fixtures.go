package simcloudtest

import (
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"

	"ccm-sandbox/go/internal/providerkit/poll"
)

// ServerOpts are the optional fields of a test server.
type ServerOpts struct {
	// Networks are network ids to attach at create; the first gives the private address.
	Networks []string
	Labels   map[string]string
}

type catalogueEntry struct {
	ID string `json:"id"`
}

// catalogue returns the first server type, image and zone simcloud offers.
func (s *Server) catalogue(t testing.TB) (serverType, image, zone string) {
	t.Helper()
	first := func(path, key string) string {
		var out map[string][]catalogueEntry
		s.Do(t, "GET", path, nil, &out)
		if len(out[key]) == 0 {
			t.Fatalf("GET %s: no %s", path, key)
		}
		return out[key][0].ID
	}
	return first("/v1/server_types", "server_types"), first("/v1/images", "images"), first("/v1/zones", "zones")
}

// CreateServer creates a running server named name and waits for its create action; it returns the
// server as the API shows it then (a map of the JSON fields).
func (s *Server) CreateServer(t testing.TB, name string, opts ServerOpts) map[string]any {
	t.Helper()
	serverType, image, zone := s.catalogue(t)
	body := map[string]any{"name": name, "server_type": serverType, "image": image, "zone": zone}
	if len(opts.Networks) > 0 {
		body["networks"] = opts.Networks
	}
	if opts.Labels != nil {
		body["labels"] = opts.Labels
	}
	var out struct {
		Server map[string]any `json:"server"`
		Action struct {
			ID string `json:"id"`
		} `json:"action"`
	}
	s.Do(t, "POST", "/v1/servers", body, &out)
	s.WaitForAction(t, out.Action.ID)
	var got struct {
		Server map[string]any `json:"server"`
	}
	s.Do(t, "GET", "/v1/servers/"+url.PathEscape(out.Server["id"].(string)), nil, &got)
	return got.Server
}

// ServerAction runs a power action ("poweroff", "poweron", ...) and waits for it.
func (s *Server) ServerAction(t testing.TB, id, action string) {
	t.Helper()
	var out struct {
		Action struct {
			ID string `json:"id"`
		} `json:"action"`
	}
	s.Do(t, "POST", "/v1/servers/"+url.PathEscape(id)+"/actions/"+action, map[string]any{}, &out)
	s.WaitForAction(t, out.Action.ID)
}

// DeleteServer deletes a server and waits until it is gone.
func (s *Server) DeleteServer(t testing.TB, id string) {
	t.Helper()
	var out struct {
		Action struct {
			ID string `json:"id"`
		} `json:"action"`
	}
	s.Do(t, "DELETE", "/v1/servers/"+url.PathEscape(id), nil, &out)
	s.WaitForAction(t, out.Action.ID)
}

// CreateNetwork creates a private network and returns its id.
func (s *Server) CreateNetwork(t testing.TB, name string) string {
	t.Helper()
	var out struct {
		Network struct {
			ID string `json:"id"`
		} `json:"network"`
	}
	s.Do(t, "POST", "/v1/networks", map[string]any{"name": name}, &out)
	return out.Network.ID
}

// WaitForAction polls an action until it succeeds; a failed action fails the test.
func (s *Server) WaitForAction(t testing.TB, id string) {
	t.Helper()
	poll.Eventually(t, "action "+id, func() error {
		var out struct {
			Action struct {
				Status string `json:"status"`
			} `json:"action"`
		}
		s.Do(t, "GET", "/v1/actions/"+url.PathEscape(id), nil, &out)
		switch out.Action.Status {
		case "success":
			return nil
		case "error":
			t.Fatalf("action %s failed", id)
		}
		return fmt.Errorf("still %s", out.Action.Status)
	})
}

var names atomic.Int64

// UniqueName returns a name no other test of this process uses (tests of one package share one simcloud).
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), names.Add(1))
}

// AddFault injects one simcloud fault rule (the body of POST /_sim/faults) and returns a function reporting
// how often it fired so far; the rule is removed when the test ends.
func (s *Server) AddFault(t testing.TB, rule map[string]any) func() int {
	t.Helper()
	var added struct {
		Fault struct {
			ID string `json:"id"`
		} `json:"fault"`
	}
	s.Do(t, "POST", "/_sim/faults", rule, &added)
	t.Cleanup(func() { s.Request(t, "DELETE", "/_sim/faults/"+added.Fault.ID, nil) })
	return func() int {
		var list struct {
			Faults []struct {
				ID    string `json:"id"`
				Fired int    `json:"fired"`
			} `json:"faults"`
		}
		s.Do(t, "GET", "/_sim/faults", nil, &list)
		for _, f := range list.Faults {
			if f.ID == added.Fault.ID {
				return f.Fired
			}
		}
		t.Fatalf("fault %s is gone", added.Fault.ID)
		return 0
	}
}
