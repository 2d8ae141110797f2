// Command upstream-ccm is a cloud-controller-manager built from upstream k8s.io/cloud-provider: upstream's
// own cloud-node, cloud-node-lifecycle, service-lb and node-route controllers, flags, leader election,
// serving and metrics, over one of two providers:
//   - --cloud-provider=simcloud (ccm-sandbox/go/provider/simcloud), with SIMCLOUD_ENDPOINT / SIMCLOUD_TOKEN;
//   - --cloud-provider=hcloud (ccm-sandbox/go/provider/hcloud, on hcloud-go) for simcloud's Hetzner dialect
//     or any Hetzner Cloud API, with HCLOUD_ENDPOINT / HCLOUD_TOKEN and --allow-untagged-cloud (Hetzner
//     resources carry no cluster id).
//   - --cloud-provider=linode (ccm-sandbox/go/provider/linode, on linodego) for simcloud's Linode dialect or
//     any Linode API, with LINODE_URL / LINODE_API_TOKEN / LINODE_REGION.
//   - --cloud-provider=digitalocean (ccm-sandbox/go/provider/digitalocean, on godo) for simcloud's DigitalOcean
//     dialect or any DigitalOcean API, with DO_OVERRIDE_URL / DO_ACCESS_TOKEN / REGION.
//   - --cloud-provider=phoenixnap (ccm-sandbox/go/provider/phoenixnap, on go-sdk-bmc) for simcloud's phoenixNAP
//     persona, with PNAP_CLIENT_ID / PNAP_CLIENT_SECRET / PNAP_LOCATION, its token and API URLs, and
//     SIMCLOUD_ENDPOINT / SIMCLOUD_TOKEN for the load balancers carrying its IP blocks' traffic.
//   - --cloud-provider=brightbox (ccm-sandbox/go/provider/brightbox, on gobrightbox) for simcloud's Brightbox
//     persona or any Brightbox API, with BRIGHTBOX_API_URL / BRIGHTBOX_CLIENT / BRIGHTBOX_CLIENT_SECRET.
package main

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics on /metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // the version metric
	"k8s.io/klog/v2"

	_ "ccm-sandbox/go/provider/brightbox"    // registers the "brightbox" cloud provider
	_ "ccm-sandbox/go/provider/digitalocean" // registers the "digitalocean" cloud provider
	_ "ccm-sandbox/go/provider/hcloud"       // registers the "hcloud" cloud provider
	_ "ccm-sandbox/go/provider/linode"       // registers the "linode" cloud provider
	_ "ccm-sandbox/go/provider/phoenixnap"   // registers the "phoenixnap" cloud provider
	_ "ccm-sandbox/go/provider/simcloud"     // registers the "simcloud" cloud provider
)

func main() {
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	command := app.NewCloudControllerManagerCommand(opts, initCloud, app.DefaultInitFuncConstructors, names.CCMControllerAliases(), cliflag.NamedFlagSets{}, wait.NeverStop)
	os.Exit(cli.Run(command))
}

// initCloud builds the provider named by --cloud-provider. A provider that cannot start (bad endpoint or
// token, invalid configuration) ends the process with one line on stderr and exit code 1.
func initCloud(c *config.CompletedConfig) cloudprovider.Interface {
	shared := c.ComponentConfig.KubeCloudShared.CloudProvider
	cloud, err := cloudprovider.InitCloudProvider(shared.Name, shared.CloudConfigFile)
	if err == nil && cloud == nil {
		err = fmt.Errorf("unknown cloud provider %q; this binary provides: simcloud, hcloud, linode, digitalocean", shared.Name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "upstream-ccm: cloud provider could not be initialized: %v\n", err)
		os.Exit(1)
	}
	return cloud
}
