package providertest

import (
	"maps"

	"ccm-sandbox/go/internal/providerkit"
)

// Env is a Lookup of base with over's variables set on top: one case of a table of environments.
func Env(base, over map[string]string) providerkit.Lookup {
	all := maps.Clone(base)
	maps.Copy(all, over)
	return providerkit.Map(all)
}
