#!/usr/bin/env bash
# A worker: waits for the control plane's API, then kubeadm join with the sandbox's bootstrap token and
# kubelet --cloud-provider=external. The host-only network is private to this machine, so discovery skips
# CA pinning (the token is per sandbox). Idempotent.
source /tmp/ccm-sandbox-lib.sh
: "${NODE_NAME:?}" "${NODE_IP:?}" "${CONTROL_PLANE_IP:?}" "${JOIN_TOKEN:?}"

if [[ -f /etc/kubernetes/kubelet.conf ]]; then
  log "already joined"
  exit 0
fi

log "waiting for the API server at ${CONTROL_PLANE_IP}:6443"
retry 120 5 curl -fsSk "https://${CONTROL_PLANE_IP}:6443/readyz" -o /dev/null

mkdir -p /etc/kubernetes
api=$(kubeadm_api_version)
log "kubeadm join (kubeadm.k8s.io/${api})"
cat >/etc/kubernetes/kubeadm-join.yaml <<YAML
apiVersion: kubeadm.k8s.io/${api}
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "${CONTROL_PLANE_IP}:6443"
    token: "${JOIN_TOKEN}"
    unsafeSkipCAVerification: true
nodeRegistration:
  name: "${NODE_NAME}"
  criSocket: unix:///run/containerd/containerd.sock
$(kubelet_extra_args "$api" cloud-provider=external node-ip="$NODE_IP")
YAML
join() { kubeadm join --config /etc/kubernetes/kubeadm-join.yaml || { kubeadm reset -f >/dev/null 2>&1; return 1; }; }
retry 10 15 join
log "joined; node ${NODE_NAME} waits for the CCM (uninitialized taint)"
