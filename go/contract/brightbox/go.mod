// The gobrightbox contract tests: a module of their own like every SDK's (docs/adr/0005-go-modules.md, revision 1),
// with k8ssdk for the client as Brightbox's CCM connects it. It reaches ccm-sandbox/go only for its shared test
// packages (internal/simcloudtest, internal/providerkit/poll) through the replace below (revision 2).
module ccm-sandbox/go/contract/brightbox

go 1.26.0

replace ccm-sandbox/go => ../..

require (
	ccm-sandbox/go v0.0.0
	github.com/brightbox/gobrightbox/v2 v2.2.2
	github.com/brightbox/k8ssdk/v2 v2.1.1
	golang.org/x/oauth2 v0.36.0
)

require (
	github.com/aws/aws-sdk-go v1.55.5 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
