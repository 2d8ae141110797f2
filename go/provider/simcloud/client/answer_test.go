package client

import (
	"context"
	"net/http"
	"testing"
)

func TestAnswersAreReadPartByPart(t *testing.T) {
	cases := []struct {
		name, body      string
		wantID, wantErr string
		wantTotal       int
	}{
		{name: "the resource", body: `{"server":{"id":"srv-1"}}`, wantID: "srv-1"},
		{name: "the resource and its action", body: `{"load_balancer":{"id":"lb-1"},"action":{"id":"act-1"}}`, wantID: "lb-1"},
		{name: "a list and its meta", body: `{"servers":[{"id":"srv-2"}],"meta":{"pagination":{"total_entries":1}}}`, wantID: "srv-2", wantTotal: 1},
		{name: "a part of the wrong shape", body: `{"server":["srv-1"]}`, wantErr: "servers.get: invalid_response: server: json: cannot unmarshal array into Go value of type client.Server"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, &recorder{answers: []func(http.ResponseWriter){status(200, nil, tc.body)}})
			ctx := context.Background()
			var id string
			var err error
			switch {
			case tc.wantTotal > 0:
				var servers []Server
				var meta Meta
				servers, meta, err = c.ListServers(ctx, ListOpts{})
				if err == nil && (len(servers) != 1 || meta.Pagination.TotalEntries != tc.wantTotal) {
					t.Fatalf("servers %v, meta %+v", servers, meta)
				}
				id = servers[0].ID
			case tc.wantID == "lb-1":
				var lb *LoadBalancer
				var action *Action
				if lb, action, err = c.CreateLoadBalancer(ctx, CreateLoadBalancerRequest{}); err == nil && action.ID != "act-1" {
					t.Fatalf("action %+v", action)
				}
				if err == nil {
					id = lb.ID
				}
			default:
				var server *Server
				if server, err = c.GetServer(ctx, "srv-1"); err == nil {
					id = server.ID
				}
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) || id != tc.wantID {
				t.Errorf("id %q, err %v; want %q, %q", id, err, tc.wantID, tc.wantErr)
			}
		})
	}
}
