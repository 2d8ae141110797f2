// Package linode holds the contract tests of simcloud's Linode API v4 dialect (served under /v4): they start
// a real simcloud process (ccm-sandbox/go/internal/simcloudtest) and reach it only through linodego, the
// client the Linode CCM uses, configured the way that CCM configures it (UseURL with LINODE_URL).
package linode

import (
	"net/http"
	"time"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/simcloudtest"
)

// DialectPath is where simcloud mounts the Linode dialect; LINODE_URL is the server's URL plus it.
const DialectPath = "/v4"

// NewClient is a linodego client for sim's Linode dialect with the given token. linodego's UseURL keeps only
// the scheme, host and API version of the URL, so the dialect has to live at /v4 on the root.
func NewClient(sim *simcloudtest.Server, token string) (*linodego.Client, error) {
	c, err := linodego.NewClient(&http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return nil, err
	}
	if _, err := c.UseURL(sim.URL + DialectPath); err != nil {
		return nil, err
	}
	c.SetToken(token)
	c.SetUserAgent("ccm-sandbox-contract")
	c.SetRetryWaitTime(50 * time.Millisecond)
	return &c, nil
}
