package hcloud

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCallerHeaders(t *testing.T) {
	seen := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen <- r.Header.Clone() }))
	defer srv.Close()
	cases := []struct {
		name                 string
		ctx                  context.Context
		wantCaller, wantMeth string
	}{
		{name: "a controller on an object", ctx: withCaller(context.Background(), "service-lb-controller", "default/web", "EnsureLoadBalancer"),
			wantCaller: "service-lb-controller default/web", wantMeth: "EnsureLoadBalancer"},
		{name: "no object", ctx: withCaller(context.Background(), "upstream-ccm", "", "Initialize"), wantCaller: "upstream-ccm", wantMeth: "Initialize"},
		{name: "no caller: no headers", ctx: context.Background()},
	}
	c := &http.Client{Transport: callerTransport{next: http.DefaultTransport}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(tc.ctx, http.MethodGet, srv.URL, nil)
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			h := <-seen
			if h.Get("X-Simcloud-Caller") != tc.wantCaller || h.Get("X-Simcloud-Method") != tc.wantMeth {
				t.Errorf("headers %q %q; want %q %q", h.Get("X-Simcloud-Caller"), h.Get("X-Simcloud-Method"), tc.wantCaller, tc.wantMeth)
			}
			if req.Header.Get("X-Simcloud-Caller") != "" {
				t.Error("the caller's request was changed")
			}
		})
	}
}
