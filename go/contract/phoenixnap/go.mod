// The go-sdk-bmc contract tests: a module of their own like every SDK's (docs/adr/0005-go-modules.md, revision 1).
// It reaches ccm-sandbox/go only for its shared test packages (internal/simcloudtest,
// internal/providerkit/poll), which import only the standard library, through the replace below (revision 2).
module ccm-sandbox/go/contract/phoenixnap

go 1.26.0

require (
	ccm-sandbox/go v0.0.0
	github.com/phoenixnap/go-sdk-bmc/bmcapi v1.2.2
	github.com/phoenixnap/go-sdk-bmc/ipapi v1.1.2
	github.com/phoenixnap/go-sdk-bmc/networkapi v1.1.3
	github.com/phoenixnap/go-sdk-bmc/tagapi v1.1.3
	golang.org/x/oauth2 v0.36.0
)

replace ccm-sandbox/go => ../..
