#!/usr/bin/env bash
# Helpers shared by the provisioning scripts (uploaded to /tmp/ccm-sandbox-lib.sh by the Vagrantfile).
set -euo pipefail

log() { echo "ccm-sandbox[$(hostname)]: $*"; }

# Retries a command with a pause, for apt mirrors and an API server that is still starting.
retry() {
  local attempts=$1 pause=$2
  shift 2
  local i
  for ((i = 1; i <= attempts; i++)); do
    if "$@"; then return 0; fi
    log "attempt $i/$attempts of '$*' failed; retrying in ${pause}s"
    sleep "$pause"
  done
  return 1
}

# kubeadm's configuration API for the installed kubeadm: v1beta4 from 1.31 (kubeletExtraArgs as a list of
# name/value pairs), v1beta3 before (a map).
kubeadm_api_version() {
  local minor
  minor=$(kubeadm version -o short | sed -E 's/^v1\.([0-9]+)\..*/\1/')
  if ((minor >= 31)); then echo v1beta4; else echo v1beta3; fi
}

# Prints kubeletExtraArgs (indented for nodeRegistration) in the format of the given API version.
# Arguments: api-version name=value...
kubelet_extra_args() {
  local api=$1 pair
  shift
  echo "  kubeletExtraArgs:"
  for pair in "$@"; do
    if [[ $api == v1beta4 ]]; then
      printf '    - name: %s\n      value: "%s"\n' "${pair%%=*}" "${pair#*=}"
    else
      printf '    %s: "%s"\n' "${pair%%=*}" "${pair#*=}"
    fi
  done
}
