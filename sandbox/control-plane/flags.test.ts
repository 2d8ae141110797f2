import { describe, expect, it } from 'vitest';
import { firstServiceIp } from './control-plane.ts';
import { apiServerArgs, controllerManagerArgs, egressSelectorConfiguration, etcdArgs, schedulerArgs, type ControlPlaneLayout } from './flags.ts';

const layout: ControlPlaneLayout = {
  dir: '/cp',
  ports: { etcdClient: 2379, etcdPeer: 2380, apiServer: 6443, scheduler: 10259 },
  network: {
    clusterCidr: '10.244.0.0/16',
    serviceCidr: '10.96.0.0/16',
    nodeCidrMaskSize: 24,
    nodeMonitorGracePeriodSeconds: 10,
    podEvictionTolerationSeconds: 20,
  },
};

describe('control-plane flags', () => {
  it('runs kube-controller-manager with its default controllers and the cloud loops left to an external CCM', () => {
    const args = controllerManagerArgs(layout);
    expect(args).toContain('--cloud-provider=external');
    expect(args).toContain('--controllers=*');
    expect(args).toEqual(expect.arrayContaining(['--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16', '--node-monitor-grace-period=10s']));
    // Each controller acts under its own ServiceAccount, so the bootstrap RBAC roles apply.
    expect(args).toContain('--use-service-account-credentials=true');
  });

  it('binds the apiserver to loopback with RBAC and client-certificate authentication', () => {
    const args = apiServerArgs(layout);
    expect(args).toEqual(
      expect.arrayContaining([
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        '--secure-port=6443',
        '--authorization-mode=Node,RBAC',
        '--client-ca-file=/cp/pki/ca.crt',
        '--etcd-servers=https://127.0.0.1:2379',
        '--etcd-certfile=/cp/pki/etcd-client.crt',
        '--service-cluster-ip-range=10.96.0.0/16',
      ]),
    );
  });

  it("dials kubelets in kubeadm's address order through the egress proxy, with its kubelet client certificate, verifying theirs against the cluster CA", () => {
    expect(apiServerArgs(layout)).toEqual(
      expect.arrayContaining([
        '--egress-selector-config-file=/cp/egress-selector.json',
        '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
        '--kubelet-client-certificate=/cp/pki/apiserver-kubelet-client.crt',
        '--kubelet-client-key=/cp/pki/apiserver-kubelet-client.key',
        '--kubelet-certificate-authority=/cp/pki/ca.crt',
      ]),
    );
  });

  it('sends the cluster and controlplane egress through the proxy socket and leaves etcd direct', () => {
    const config = egressSelectorConfiguration('/state/egress.sock');
    const connection = { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: '/state/egress.sock' } } };
    expect(config).toEqual({
      apiVersion: 'apiserver.k8s.io/v1beta1',
      kind: 'EgressSelectorConfiguration',
      egressSelections: [
        { name: 'cluster', connection },
        { name: 'controlplane', connection },
      ],
    });
  });

  it('shortens the default eviction tolerations through admission, not by editing pods', () => {
    expect(apiServerArgs(layout)).toEqual(expect.arrayContaining(['--default-not-ready-toleration-seconds=20', '--default-unreachable-toleration-seconds=20']));
  });

  it('runs kube-scheduler under its own identity, serving health on loopback with a certificate of the cluster CA', () => {
    const args = schedulerArgs(layout);
    expect(args).toEqual(
      expect.arrayContaining([
        '--kubeconfig=/cp/scheduler.kubeconfig',
        '--bind-address=127.0.0.1',
        '--secure-port=10259',
        '--tls-cert-file=/cp/pki/scheduler-serving.crt',
        '--leader-elect=false',
      ]),
    );
  });

  it('runs a single-member etcd on loopback ports only, taking only clients and peers the CA signed', () => {
    const args = etcdArgs(layout);
    const urls = args.filter((a) => a.includes('://'));
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.every((a) => a.includes('https://127.0.0.1:'))).toBe(true);
    expect(args).toContain('--initial-cluster=default=https://127.0.0.1:2380');
    expect(args).toEqual(expect.arrayContaining(['--client-cert-auth=true', '--peer-client-cert-auth=true', '--trusted-ca-file=/cp/pki/etcd-ca.crt']));
  });

  it('computes the in-cluster kubernetes Service address from the service CIDR', () => {
    expect(firstServiceIp('10.96.0.0/16')).toBe('10.96.0.1');
    expect(firstServiceIp('fd00:10:96::/112')).toBe('fd00:10:96::1');
  });
});
