package phoenixnap

import (
	"context"
	"errors"
	"strings"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// newInstances is the InstancesV2 capability: a node's server by providerID, else by hostname; shut down when
// powered off, as phoenixNAP's CCM decides it.
func newInstances(bmc *bmcapi.APIClient) *providerkit.Instances[bmcapi.Server] {
	return &providerkit.Instances[bmcapi.Server]{
		Provider: ProviderName,
		ByProviderID: func(ctx context.Context, providerID string) (*bmcapi.Server, error) {
			id, err := ParseProviderID(providerID)
			if err != nil {
				return nil, err
			}
			s, _, err := bmc.ServersApi.ServersServerIdGet(ctx, id).Execute()
			return s, err
		},
		ByName: func(ctx context.Context, name string) (*bmcapi.Server, error) {
			list, _, err := bmc.ServersApi.ServersGet(ctx).Execute()
			for i := range list {
				if list[i].Hostname == name {
					return &list[i], nil
				}
			}
			return nil, err
		},
		Missing:  isGone,
		Off:      func(s *bmcapi.Server) bool { return s.Status == "powered-off" },
		Metadata: metadata,
	}
}

// ProviderID is phoenixnap://<server id>, as phoenixNAP's CCM writes it.
func ProviderID(id string) string { return ProviderName + "://" + id }

// ParseProviderID returns the server id of phoenixnap://<id> (or a bare <id>).
func ParseProviderID(providerID string) (string, error) {
	id, found := strings.CutPrefix(providerID, ProviderName+"://")
	if (!found && strings.Contains(providerID, "://")) || id == "" || strings.ContainsAny(id, "/?#") {
		return "", errors.New("providerID " + providerID + " is not phoenixnap://<server id>")
	}
	return id, nil
}

// isGone: phoenixNAP answers 403 for a server that was deleted (phoenixNAP's own CCM reads it as gone,
// k8s-cloud-provider-bmc d84a2c5) and 404 for an id it never had. bmcapi's GenericOpenAPIError starts with the
// HTTP status either way (it decodes a 403's body, leaves a 404's undecoded).
func isGone(err error) bool {
	var e *bmcapi.GenericOpenAPIError
	return errors.As(err, &e) && (strings.HasPrefix(e.Error(), "404") || strings.HasPrefix(e.Error(), "403"))
}

func metadata(_ context.Context, s *bmcapi.Server) (*cloudprovider.InstanceMetadata, error) {
	out := []v1.NodeAddress{{Type: v1.NodeHostName, Address: s.Hostname}}
	for _, ip := range s.PrivateIpAddresses {
		out = append(out, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	}
	for _, ip := range s.PublicIpAddresses {
		out = append(out, v1.NodeAddress{Type: v1.NodeExternalIP, Address: ip})
	}
	return &cloudprovider.InstanceMetadata{ProviderID: ProviderID(s.Id), InstanceType: s.Type, Region: s.Location, NodeAddresses: out}, nil
}
