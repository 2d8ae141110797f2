package providerkit

import (
	"errors"
	"fmt"
	"testing"

	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
)

func TestWrap(t *testing.T) {
	inner := &OpError{Provider: "hcloud", Op: "UpdateLoadBalancer", Err: errors.New("no network")}
	cases := []struct {
		name string
		err  error
		want string // "" for nil
	}{
		{"nil stays nil", nil, ""},
		{"an error gets the provider and op", errors.New("boom"), "hcloud: EnsureLoadBalancer: boom"},
		{"a wrapped cause is kept", fmt.Errorf("creating load balancer lb-1: %w", cloudprovider.InstanceNotFound), "hcloud: EnsureLoadBalancer: creating load balancer lb-1: instance not found"},
		{"the provider is named once", fmt.Errorf("updating: %w", inner), "updating: hcloud: UpdateLoadBalancer: no network"},
		{"another provider's error is wrapped", &OpError{Provider: "linode", Op: "X", Err: errors.New("y")}, "hcloud: EnsureLoadBalancer: linode: X: y"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err
			Wrap(&err, "hcloud", "EnsureLoadBalancer")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("%v does not wrap %v", err, tc.err)
			}
		})
	}
}

func TestWrapKeepsWhatTheControllersLookFor(t *testing.T) {
	err := fmt.Errorf("droplet 7: %w", cloudprovider.InstanceNotFound)
	Wrap(&err, "digitalocean", "InstanceMetadata")
	if !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("%v: InstanceNotFound is lost", err)
	}
	retry := api.NewRetryError("not yet active", 0)
	err = retry
	Wrap(&err, "digitalocean", "EnsureLoadBalancer")
	if e, ok := errors.AsType[*api.RetryError](err); !ok || e != retry {
		t.Errorf("%v: the RetryError is lost", err)
	}
}
