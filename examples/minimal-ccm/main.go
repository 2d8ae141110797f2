// Command minimal-ccm is a cloud-controller-manager for the Hetzner Cloud API in five small files. Upstream's
// k8s.io/cloud-provider brings the controllers, the flags, leader election, serving and metrics; this program
// brings the one thing only a cloud knows: cloud.go (which capabilities it has), instances.go and
// lifecycle.go (InstancesV2), loadbalancer.go (LoadBalancer, with -tags loadbalancer) and routes.go (Routes,
// with -tags routes). docs/learn/ walks through it stage by stage.
package main

import (
	"os"

	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"
)

func main() {
	// Every flag of a cloud-controller-manager (--cloud-provider, --kubeconfig, --controllers, ...) lives in
	// this options struct; the command below parses the command line into it.
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("options: %v", err)
	}
	// A default before parsing: the kubeconfig from $KUBECONFIG, for talking to the API server and for
	// checking who calls our own HTTPS endpoint. A flag on the command line still wins.
	if kubeconfig := os.Getenv("KUBECONFIG"); kubeconfig != "" {
		opts.Generic.ClientConnection.Kubeconfig = kubeconfig
		opts.Authentication.RemoteKubeConfigFile = kubeconfig
		opts.Authorization.RemoteKubeConfigFile = kubeconfig
	}
	command := app.NewCloudControllerManagerCommand(
		opts,
		newCloud,                        // called once flags are parsed: returns our cloudprovider.Interface
		app.DefaultInitFuncConstructors, // upstream's controllers: cloud-node, cloud-node-lifecycle, service, route
		names.CCMControllerAliases(),    // their names for --controllers
		cliflag.NamedFlagSets{},         // no flags of our own
		wait.NeverStop,
	)
	os.Exit(cli.Run(command))
}

// newCloud builds the provider --cloud-provider names (registered in cloud.go). Without one the manager
// cannot run, so a failure ends the process.
func newCloud(c *config.CompletedConfig) cloudprovider.Interface {
	shared := c.ComponentConfig.KubeCloudShared.CloudProvider
	cloud, err := cloudprovider.InitCloudProvider(shared.Name, shared.CloudConfigFile)
	if err != nil || cloud == nil {
		klog.Fatalf("cloud provider %q could not be initialised: %v", shared.Name, err)
	}
	return cloud
}
