// The godo contract tests: a module of their own like every SDK's (docs/adr/0005-go-modules.md, revision 1).
// It reaches ccm-sandbox/go only for its shared test packages (internal/simcloudtest,
// internal/providerkit/poll), which import only the standard library, through the replace below (revision 2).
module ccm-sandbox/go/contract/digitalocean

go 1.26.0

require (
	ccm-sandbox/go v0.0.0
	github.com/digitalocean/godo v1.236.0
	golang.org/x/oauth2 v0.36.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.7 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace ccm-sandbox/go => ../..
