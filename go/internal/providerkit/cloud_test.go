package providerkit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	cloudprovider "k8s.io/cloud-provider"
)

// Values of the capability interfaces; the tests only compare them.
type fakeInstances struct{ cloudprovider.InstancesV2 }
type fakeLoadBalancer struct{ cloudprovider.LoadBalancer }
type fakeRoutes struct{ cloudprovider.Routes }

func TestCloudOffersWhatItIsGiven(t *testing.T) {
	in, lb, rt := &fakeInstances{}, &fakeLoadBalancer{}, &fakeRoutes{}
	cases := []struct {
		name                   string
		caps                   Capabilities
		wantIn, wantLB, wantRt bool
	}{
		{"nothing", Capabilities{}, false, false, false},
		{"instances only", Capabilities{InstancesV2: in}, true, false, false},
		{"everything", Capabilities{InstancesV2: in, LoadBalancer: lb, Routes: rt, ClusterID: true}, true, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCloud("kit", tc.caps)
			if got, ok := c.InstancesV2(); ok != tc.wantIn || (ok && got != in) {
				t.Errorf("InstancesV2 = %v, %v", got, ok)
			}
			if got, ok := c.LoadBalancer(); ok != tc.wantLB || (ok && got != lb) {
				t.Errorf("LoadBalancer = %v, %v", got, ok)
			}
			if got, ok := c.Routes(); ok != tc.wantRt || (ok && got != rt) {
				t.Errorf("Routes = %v, %v", got, ok)
			}
			if _, ok := c.Instances(); ok {
				t.Error("the deprecated Instances is offered")
			}
			if _, ok := c.Zones(); ok {
				t.Error("Zones is offered")
			}
			if _, ok := c.Clusters(); ok {
				t.Error("Clusters is offered")
			}
			if c.ProviderName() != "kit" || c.HasClusterID() != tc.caps.ClusterID {
				t.Errorf("name %q, cluster id %v", c.ProviderName(), c.HasClusterID())
			}
		})
	}
}

func TestInitializeReachesTheCapabilityThatAsksForIt(t *testing.T) {
	NewCloud("kit", Capabilities{}).Initialize(nil, nil) // nothing asked: nothing happens
	var got cloudprovider.ControllerClientBuilder
	stop := make(chan struct{})
	builder := struct {
		cloudprovider.ControllerClientBuilder
	}{}
	NewCloud("kit", Capabilities{Initialize: func(b cloudprovider.ControllerClientBuilder, s <-chan struct{}) {
		got = b
		if s != stop {
			t.Error("another stop channel")
		}
	}}).Initialize(builder, stop)
	if got != builder {
		t.Errorf("Initialize gave %v", got)
	}
}

func TestRegister(t *testing.T) {
	type config struct{ file string }
	load := func(file io.Reader, env Lookup) (config, error) {
		if file == nil {
			return config{}, nil
		}
		data, _ := io.ReadAll(file)
		if string(data) == "bad" {
			return config{}, errors.New("bad file")
		}
		return config{file: string(data)}, nil
	}
	newCloud := func(_ context.Context, cfg config) (*Cloud, error) {
		if cfg.file == "unreachable" {
			return nil, errors.New("cannot reach the API")
		}
		return NewCloud("kit-register", Capabilities{}), nil
	}
	Register("kit-register", load, newCloud)
	cases := []struct {
		name, file, wantErr string
	}{
		{"no file", "", ""},
		{"the load's error", "bad", "bad file"},
		{"the constructor's error", "unreachable", "cannot reach the API"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var file io.Reader
			if tc.file != "" {
				file = strings.NewReader(tc.file)
			}
			cloud, err := cloudprovider.GetCloudProvider("kit-register", file)
			if tc.wantErr != "" {
				// A nil *Cloud in the Interface would not be == nil.
				if err == nil || err.Error() != tc.wantErr || cloud != nil {
					t.Fatalf("GetCloudProvider = %v, %v; want nil, %s", cloud, err, tc.wantErr)
				}
				return
			}
			if err != nil || cloud == nil || cloud.ProviderName() != "kit-register" {
				t.Fatalf("GetCloudProvider = %v, %v", cloud, err)
			}
		})
	}
}

func TestEnvOnlyReadsTheEnvironmentAndIgnoresTheFile(t *testing.T) {
	load := EnvOnly("KIT_* variables", func(env Lookup) (string, error) {
		v, _ := env("KIT_TOKEN")
		return v, nil
	})
	for _, file := range []io.Reader{nil, bytes.NewReader(nil), strings.NewReader("token: from-file\n")} {
		got, err := load(file, Map(map[string]string{"KIT_TOKEN": "from-env"}))
		if err != nil || got != "from-env" {
			t.Errorf("load(%v) = %q, %v", file, got, err)
		}
	}
}

func TestProbe(t *testing.T) {
	unauthorized := errors.New("unauthorized (HTTP 401)")
	cases := []struct {
		name    string
		call    func(context.Context) error
		wantErr string
	}{
		{"the call works", func(context.Context) error { return nil }, ""},
		{"the call fails", func(context.Context) error { return unauthorized }, "cannot use the Kit API at http://127.0.0.1:1: unauthorized (HTTP 401)"},
		{"the call takes too long", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, "cannot use the Kit API at http://127.0.0.1:1: context deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Probe(context.Background(), 10*time.Millisecond, "the Kit API", "http://127.0.0.1:1", tc.call)
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
