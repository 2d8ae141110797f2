package hcloud

import (
	"fmt"
	"strconv"
	"strings"
)

// providerIDPrefix starts every providerID; the format is an API: a Node's providerID never changes, and
// it is the one Hetzner's own CCM writes, so Nodes move between the two CCMs.
const providerIDPrefix = ProviderName + "://"

// providerID is "hcloud://<server id>".
func providerID(serverID int64) string {
	return providerIDPrefix + strconv.FormatInt(serverID, 10)
}

// serverIDFromProviderID returns the server id of "hcloud://<id>" (a positive decimal number).
func serverIDFromProviderID(pid string) (int64, error) {
	raw, ok := strings.CutPrefix(pid, providerIDPrefix)
	if !ok {
		return 0, fmt.Errorf("providerID %q is not %s<server id>", pid, providerIDPrefix)
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		return 0, fmt.Errorf("providerID %q: the server id must be a positive decimal number", pid)
	}
	return id, nil
}
