package simcloud

import (
	"os"
	"strings"
)

// EnvFaultyVariants names deliberate bugs this provider plays, comma-separated. Only the conformance
// e2e tests set it: each variant is a bug CCM users have filed, and a conformance capability must fail on
// exactly the variant it exists to catch (test/e2e). Unset, the provider is the correct one.
const EnvFaultyVariants = "CCM_SANDBOX_FAULTY_VARIANTS"

// faultyVariant reports whether the variant named is switched on. It reads the environment on each call:
// cheap next to a cloud call, and a test's process gets its environment once at start.
func faultyVariant(name string) bool {
	for _, v := range strings.Split(os.Getenv(EnvFaultyVariants), ",") {
		if strings.TrimSpace(v) == name {
			return true
		}
	}
	return false
}
