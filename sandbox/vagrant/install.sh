#!/usr/bin/env bash
# Every machine: kernel settings, containerd 2.x (Docker's apt repository; Kubernetes 1.36+ needs
# containerd 2), and kubelet/kubeadm/kubectl from pkgs.k8s.io for $K8S_MINOR. Idempotent.
source /tmp/ccm-sandbox-lib.sh
: "${K8S_MINOR:?}" "${NODE_IP:?}" "${SIMCLOUD_ENDPOINT:?}" "${CCM_SANDBOX_NAME:?}"
export DEBIAN_FRONTEND=noninteractive

if command -v kubeadm >/dev/null && systemctl is-active --quiet containerd; then
  log "kubeadm $(kubeadm version -o short) and containerd already installed"
  exit 0
fi

log "kernel modules, sysctls, swap off"
swapoff -a
sed -i -E '/\sswap\s/ s/^([^#])/#\1/' /etc/fstab
printf 'overlay\nbr_netfilter\n' >/etc/modules-load.d/k8s.conf
modprobe overlay
modprobe br_netfilter
printf 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n' >/etc/sysctl.d/k8s.conf
sysctl --system >/dev/null

log "apt repositories (Docker for containerd, pkgs.k8s.io ${K8S_MINOR})"
retry 5 10 apt-get update -q
retry 5 10 apt-get install -y -q apt-transport-https ca-certificates curl gpg
install -m 0755 -d /etc/apt/keyrings
. /etc/os-release
curl -fsSL "https://download.docker.com/linux/${ID}/gpg" | gpg --batch --yes --dearmor -o /etc/apt/keyrings/docker.gpg
echo "deb [signed-by=/etc/apt/keyrings/docker.gpg] https://download.docker.com/linux/${ID} ${VERSION_CODENAME} stable" >/etc/apt/sources.list.d/docker.list
curl -fsSL "https://pkgs.k8s.io/core:/stable:/${K8S_MINOR}/deb/Release.key" | gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg
echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/${K8S_MINOR}/deb/ /" >/etc/apt/sources.list.d/kubernetes.list
retry 5 10 apt-get update -q

log "containerd"
retry 5 10 apt-get install -y -q containerd.io
mkdir -p /etc/containerd
containerd config default >/etc/containerd/config.toml
# kubelet uses the systemd cgroup driver; containerd 2 writes the runc options under io.containerd.cri.v1.runtime.
sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' /etc/containerd/config.toml
systemctl restart containerd
systemctl enable containerd

log "kubelet, kubeadm, kubectl"
retry 5 10 apt-get install -y -q kubelet kubeadm kubectl
apt-mark hold kubelet kubeadm kubectl
systemctl enable kubelet

# Where simcloud answers, for anything in the VMs that wants the cloud API (the CCM runs on the host).
mkdir -p /etc/ccm-sandbox
printf 'CCM_SANDBOX_NAME=%s\nSIMCLOUD_ENDPOINT=%s\n' "$CCM_SANDBOX_NAME" "$SIMCLOUD_ENDPOINT" >/etc/ccm-sandbox/env
log "installed kubeadm $(kubeadm version -o short)"
