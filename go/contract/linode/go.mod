// The linodego contract tests: a module of their own like every SDK's (docs/adr/0005-go-modules.md, revision 1).
// It reaches ccm-sandbox/go only for its shared test packages (internal/simcloudtest,
// internal/providerkit/poll), which import only the standard library, through the replace below (revision 2).
module ccm-sandbox/go/contract/linode

go 1.26.0

require (
	ccm-sandbox/go v0.0.0
	github.com/linode/linodego/v2 v2.4.2
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	gopkg.in/ini.v1 v1.67.3 // indirect
)

replace ccm-sandbox/go => ../..
