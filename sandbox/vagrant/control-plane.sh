#!/usr/bin/env bash
# The control plane: kubeadm init with every kubelet on --cloud-provider=external (the Node stays tainted
# node.cloudprovider.kubernetes.io/uninitialized until the CCM initializes it), flannel as the CNI on
# the host-only interface, and the admin kubeconfig for the vagrant user. Idempotent.
source /tmp/ccm-sandbox-lib.sh
: "${NODE_NAME:?}" "${NODE_IP:?}" "${POD_CIDR:?}" "${JOIN_TOKEN:?}" "${CCM_SANDBOX_NAME:?}"
FLANNEL_VERSION=${FLANNEL_VERSION:-latest}

mkdir -p /etc/kubernetes
if [[ ! -f /etc/kubernetes/admin.conf ]]; then
  api=$(kubeadm_api_version)
  log "kubeadm init (kubeadm.k8s.io/${api})"
  cat >/etc/kubernetes/kubeadm-init.yaml <<YAML
apiVersion: kubeadm.k8s.io/${api}
kind: InitConfiguration
bootstrapTokens:
- token: "${JOIN_TOKEN}"
  ttl: "0s"
  groups: ["system:bootstrappers:kubeadm:default-node-token"]
  usages: ["signing", "authentication"]
localAPIEndpoint:
  advertiseAddress: "${NODE_IP}"
  bindPort: 6443
nodeRegistration:
  name: "${NODE_NAME}"
  criSocket: unix:///run/containerd/containerd.sock
$(kubelet_extra_args "$api" cloud-provider=external node-ip="$NODE_IP")
---
apiVersion: kubeadm.k8s.io/${api}
kind: ClusterConfiguration
clusterName: "${CCM_SANDBOX_NAME}"
kubernetesVersion: "$(kubeadm version -o short)"
networking:
  podSubnet: "${POD_CIDR}"
  serviceSubnet: "10.96.0.0/12"
apiServer:
  certSANs: ["${NODE_IP}", "127.0.0.1", "localhost"]
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
YAML
  kubeadm init --config /etc/kubernetes/kubeadm-init.yaml
fi

export KUBECONFIG=/etc/kubernetes/admin.conf
install -d -o vagrant -g vagrant /home/vagrant/.kube
install -m 0600 -o vagrant -g vagrant /etc/kubernetes/admin.conf /home/vagrant/.kube/config

if ! kubectl get daemonset -n kube-flannel kube-flannel-ds >/dev/null 2>&1; then
  log "flannel ${FLANNEL_VERSION} on ${POD_CIDR}, bound to the host-only interface"
  if [[ $FLANNEL_VERSION == latest ]]; then url=https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml
  else url=https://github.com/flannel-io/flannel/releases/download/${FLANNEL_VERSION}/kube-flannel.yml; fi
  # Each VM also has a NAT interface with the same address everywhere: pin flannel to the host-only one.
  prefix=${NODE_IP%.*}
  iface_regex="^${prefix//./\\\\.}\\\\."
  curl -fsSL "$url" |
    sed -E "s#\"Network\": \"10\.244\.0\.0/16\"#\"Network\": \"${POD_CIDR}\"#; s#^( +)- --kube-subnet-mgr#\1- --kube-subnet-mgr\n\1- --iface-regex=${iface_regex}#" >/etc/kubernetes/kube-flannel.yml
  retry 30 5 kubectl apply -f /etc/kubernetes/kube-flannel.yml
fi
log "control plane ready at https://${NODE_IP}:6443; node ${NODE_NAME} waits for the CCM (uninitialized taint)"
