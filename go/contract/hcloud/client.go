// Package hcloud holds the contract tests of simcloud's Hetzner Cloud dialect (served under /hcloud/v1): they
// start a real simcloud process (ccm-sandbox/go/internal/simcloudtest) and reach it only through the official
// hcloud-go/v2 client, so every request and every parsed answer is exactly what a Hetzner CCM sends and reads.
package hcloud

import (
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/simcloudtest"
)

// DialectPath is where simcloud mounts the Hetzner Cloud dialect; HCLOUD_ENDPOINT is the server's URL plus it.
const DialectPath = "/hcloud/v1"

// NewClient is an hcloud-go client for sim's Hetzner dialect with the project token. Actions are polled
// every 50 ms (simcloud finishes them in tens of milliseconds) instead of hcloud-go's default backoff.
func NewClient(sim *simcloudtest.Server, opts ...hcloud.ClientOption) *hcloud.Client {
	base := []hcloud.ClientOption{
		hcloud.WithEndpoint(sim.URL + DialectPath),
		hcloud.WithToken(sim.Token),
		hcloud.WithApplication("ccm-sandbox-contract", "test"),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(50 * time.Millisecond)}),
	}
	return hcloud.NewClient(append(base, opts...)...)
}
