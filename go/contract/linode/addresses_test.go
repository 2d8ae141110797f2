package linode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
)

// presentedBlock is Linode's private IPv4 block and vpcBlock the one VPC addresses are shown in: the
// persona shows the store's loopback private address as both (docs/adr/0013-presented-addresses.md).
var (
	presentedBlock = &net.IPNet{IP: net.IPv4(192, 168, 128, 0), Mask: net.CIDRMask(17, 32)}
	vpcBlock       = &net.IPNet{IP: net.IPv4(10, 0, 0, 0), Mask: net.CIDRMask(16, 32)}
)

// Linode's CCM builds a Node's addresses from the instance's ipv4 list (cloud/linode/services/instances.go,
// getInstanceAddresses) and calls an address internal only if net.IP.IsPrivate holds (utils.IsPrivate): a
// loopback private address made every Node's addresses ExternalIPs and every NodeBalancer fail with "no
// internal IP found for node". The instance's private address must be RFC 1918, in Linode's 192.168.128.0/17,
// in the instance view and in its /ips alike, and its public address must not be.
func TestInstancePrivateAddressIsRFC1918AsLinodesCCMClassifiesIt(t *testing.T) {
	_, in := createVPCWithInstance(t, "presented-vpc", "10.0.40.0/24")
	got, err := client(t).GetInstance(ctx(t), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var private, public []string
	for _, ip := range got.IPv4 {
		if ip.IsPrivate() {
			private = append(private, ip.String())
		} else {
			public = append(public, ip.String())
		}
	}
	if len(private) != 1 || !presentedBlock.Contains(net.ParseIP(private[0])) || !strings.HasPrefix(private[0], "192.168.168.") || len(public) != 1 {
		t.Fatalf("ipv4 %v: want one private address in 192.168.168.0/24 (of 192.168.128.0/17, for the VPC subnet 10.0.40.0/24) and one public one", got.IPv4)
	}
	ips, err := client(t).GetInstanceIPAddresses(ctx(t), in.ID)
	if err != nil || len(ips.IPv4.Private) != 1 || ips.IPv4.Private[0].Address != private[0] || ips.IPv4.Private[0].Prefix != 17 {
		t.Fatalf("GetInstanceIPAddresses = %+v, %v: want the private address %s (prefix 17)", ips, err, private[0])
	}
}

// Linode's CCM gives a NodeBalancer node the Node's InternalIP (or its private-ip annotation) and the
// NodePort, so nodes arrive as 192.168.x.y:port. The persona takes them (to the loopback address that
// carries the traffic) and shows them back as sent, which the CCM compares on every sync.
func TestNodeBalancerNodeAtAPresentedPrivateAddressReadsBackAsSent(t *testing.T) {
	_, in := createVPCWithInstance(t, "nb-presented", "10.0.41.0/24")
	private := ""
	for _, ip := range in.IPv4 {
		if ip.IsPrivate() {
			private = ip.String()
		}
	}
	c := client(t)
	nb, err := c.CreateNodeBalancer(ctx(t), linodego.NodeBalancerCreateOptions{
		Label: ptr("nb-presented"), Region: region(t), Configs: []linodego.NodeBalancerConfigCreateOptions{{
			Port: 80, Protocol: linodego.ProtocolTCP, Check: linodego.CheckConnection, Nodes: []linodego.NodeBalancerNodeCreateOptions{node(private+":30080", "node-a")},
		}},
	})
	if err != nil {
		t.Fatalf("CreateNodeBalancer: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteNodeBalancer(ctx(t), nb.ID) })
	configs, err := c.ListNodeBalancerConfigs(ctx(t), nb.ID, nil)
	if err != nil || len(configs) != 1 {
		t.Fatalf("ListNodeBalancerConfigs = %+v, %v", configs, err)
	}
	nodes, err := c.ListNodeBalancerNodes(ctx(t), nb.ID, configs[0].ID, nil)
	if err != nil || len(nodes) != 1 || nodes[0].Address != private+":30080" {
		t.Fatalf("ListNodeBalancerNodes = %+v, %v: want %s:30080", nodes, err, private)
	}
}

// Linode's CCM in VPC mode (--vpc-names) finds the subnet named by --subnet-names, whose default is
// "default" (services/vpc.go GetSubnetID), reads it by id (GetVPCSubnet), and lists the VPC's addresses with
// X-Filter {"subnet_id":"<id>,<id>"}: the ids joined into one JSON string. It also lists the VPC's IPv6
// addresses on every instance-cache refresh (GetVPCIPv6Addresses), where any error fails the refresh.
func TestVPCAsLinodesCCMReadsItInVPCMode(t *testing.T) {
	c := client(t)
	vpc, in := createVPCWithInstance(t, "ccm-vpc", "10.0.42.0/24")
	subnets, err := c.ListVPCSubnets(ctx(t), vpc.ID, nil)
	if err != nil || len(subnets) != 1 || subnets[0].Label != "default" {
		t.Fatalf("ListVPCSubnets = %+v, %v: want one subnet labelled default", subnets, err)
	}
	sub, err := c.GetVPCSubnet(ctx(t), vpc.ID, subnets[0].ID)
	if err != nil || sub.ID != subnets[0].ID || sub.IPv4 != "10.0.42.0/24" || len(sub.Linodes) != 1 || sub.Linodes[0].ID != in.ID {
		t.Fatalf("GetVPCSubnet = %+v, %v", sub, err)
	}
	if _, err := c.GetVPCSubnet(ctx(t), vpc.ID, subnets[0].ID+1); apiError(t, err).Code != http.StatusNotFound {
		t.Fatalf("GetVPCSubnet(unknown) = %v, want 404", err)
	}
	for filter, want := range map[string]int{
		fmt.Sprintf(`{"subnet_id":"%d"}`, sub.ID): 1, fmt.Sprintf(`{"subnet_id":"%d,%d"}`, sub.ID+1, sub.ID): 1,
		fmt.Sprintf(`{"subnet_id":"%d"}`, sub.ID+1): 0, fmt.Sprintf(`{"subnet_id":%d}`, sub.ID): 1,
	} {
		ips, err := c.ListVPCIPAddresses(ctx(t), vpc.ID, linodego.NewListOptions(0, filter))
		if err != nil || len(ips) != want || (want == 1 && (ips[0].Address == nil || !vpcBlock.Contains(net.ParseIP(*ips[0].Address)))) {
			t.Fatalf("ListVPCIPAddresses(%s) = %+v, %v: want %d address in 10.0.0.0/16", filter, ips, err, want)
		}
		// The CCM lists a node's VPC address and then its private IPv4 as InternalIPs; the apiserver refuses a
		// Node listing one address twice, so the two must differ, as on Linode.
		if want == 1 && slices.ContainsFunc(in.IPv4, func(ip net.IP) bool { return ip.String() == *ips[0].Address }) {
			t.Fatalf("VPC address %s is also the instance's ipv4 %v", *ips[0].Address, in.IPv4)
		}
	}
	v6, err := c.ListVPCIPv6Addresses(ctx(t), vpc.ID, linodego.NewListOptions(0, fmt.Sprintf(`{"subnet_id":"%d"}`, sub.ID)))
	if err != nil || len(v6) != 0 {
		t.Fatalf("ListVPCIPv6Addresses = %+v, %v: want none and no error", v6, err)
	}
}

// Linode's CCM in VPC mode always sends backend_vpcs with a NodeBalancer create (unless
// --disable-nodebalancer-vpc-backends): one entry naming the nodes' subnet. Its linodego (a pseudo-version the
// Go module proxy does not serve) encodes it; the proxy's v2.4.2 has no such field, so the body is sent as
// that linodego encodes it. An unknown subnet is a 404 naming backend_vpcs.0.subnet_id.
func TestNodeBalancerCreateTakesBackendVPCsAsLinodesCCMSendsThem(t *testing.T) {
	vpc, _ := createVPCWithInstance(t, "backend-vpc", "10.0.43.0/24")
	body := func(subnet int) map[string]any {
		return map[string]any{
			"label": "nb-backend-vpc", "region": region(t), "tags": []string{"kubernetes"},
			"configs":      []map[string]any{{"port": 80, "protocol": "tcp", "check": "connection", "nodes": []map[string]any{{"address": "10.0.43.2:30080", "label": "node-a", "weight": 100, "mode": "accept", "subnet_id": subnet}}}},
			"backend_vpcs": []map[string]any{{"subnet_id": subnet}},
		}
	}
	if status, out := postRaw(t, "/nodebalancers", body(vpc.Subnets[0].ID+7)); status != http.StatusNotFound || !strings.Contains(string(out), "backend_vpcs.0.subnet_id") {
		t.Fatalf("backend_vpcs with an unknown subnet: %d %s, want 404 naming backend_vpcs.0.subnet_id", status, out)
	}
	status, out := postRaw(t, "/nodebalancers", body(vpc.Subnets[0].ID))
	var nb linodego.NodeBalancer
	if status != http.StatusOK || json.Unmarshal(out, &nb) != nil || nb.ID == 0 {
		t.Fatalf("create with backend_vpcs: %d %s", status, out)
	}
	t.Cleanup(func() { _ = client(t).DeleteNodeBalancer(ctx(t), nb.ID) })
}

// postRaw POSTs body to the dialect with the project token: for what the proxy's linodego cannot encode.
func postRaw(t *testing.T, path string, body any) (int, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, sim.URL+DialectPath+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+sim.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, buf.Bytes()
}
