// The hcloud-go contract tests: a module of their own because hcloud-go requires newer golang.org/x and
// Prometheus modules than the control plane builds with (docs/adr/0005-go-modules.md). It reaches
// ccm-sandbox/go only for its shared test packages (internal/simcloudtest, internal/providerkit/poll),
// which import only the standard library, through the replace below (revision 2 there).
module ccm-sandbox/go/contract/hcloud

go 1.26.0

require (
	ccm-sandbox/go v0.0.0
	github.com/hetznercloud/hcloud-go/v2 v2.52.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.24.1 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.70.1 // indirect
	github.com/prometheus/procfs v0.21.1 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/protobuf v1.36.12-0.20260120151049-f2248ac996af // indirect
)

replace ccm-sandbox/go => ../..
