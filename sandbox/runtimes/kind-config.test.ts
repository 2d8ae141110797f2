import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { imageKubernetesVersion, kindConfig, KindConfigError, kubeadmApiVersion, kubeletPatches, renderKindConfig } from './kind-config.ts';

const DIGEST = '@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5';

describe('imageKubernetesVersion', () => {
  it.each([
    ['kindest/node:v1.37.0' + DIGEST, { major: 1, minor: 37, patch: 0 }],
    ['kindest/node:v1.30.13', { major: 1, minor: 30, patch: 13 }],
    ['localhost:5000/kindest/node:v1.31.2-custom', { major: 1, minor: 31, patch: 2 }],
    ['ccm-sandbox/node:v1.37.1', { major: 1, minor: 37, patch: 1 }],
  ])('%s', (image, version) => expect(imageKubernetesVersion(image)).toEqual(version));

  it.each(['kindest/node', 'kindest/node:latest', 'localhost:5000/node', 'kindest/node' + DIGEST])('no version in %s', (image) => {
    expect(imageKubernetesVersion(image)).toBeUndefined();
  });
});

describe('kubeadmApiVersion', () => {
  it('v1beta3 before Kubernetes 1.31, v1beta4 from 1.31', () => {
    expect(kubeadmApiVersion('kindest/node:v1.30.13')).toBe('kubeadm.k8s.io/v1beta3');
    expect(kubeadmApiVersion('kindest/node:v1.31.0')).toBe('kubeadm.k8s.io/v1beta4');
    expect(kubeadmApiVersion('kindest/node:v1.37.0' + DIGEST)).toBe('kubeadm.k8s.io/v1beta4');
  });

  it('an image without a version tag is an error that shows the expected form', () => {
    expect(() => kubeadmApiVersion('kindest/node:latest')).toThrow(KindConfigError);
    expect(() => kubeadmApiVersion('kindest/node:latest')).toThrow(/vMAJOR\.MINOR\.PATCH/);
  });
});

describe('kubeletPatches', () => {
  it('v1beta4: kubeletExtraArgs as a name/value list, for init and join', () => {
    const [init, join] = kubeletPatches('kindest/node:v1.37.0').map((p) => load(p));
    expect(init).toEqual({
      apiVersion: 'kubeadm.k8s.io/v1beta4',
      kind: 'InitConfiguration',
      nodeRegistration: {
        kubeletExtraArgs: [
          { name: 'cloud-provider', value: 'external' },
          { name: 'provider-id', value: '' },
        ],
      },
    });
    expect(join).toMatchObject({ kind: 'JoinConfiguration', nodeRegistration: (init as { nodeRegistration: unknown }).nodeRegistration });
  });

  it('v1beta3: kubeletExtraArgs as a map', () => {
    expect(load(kubeletPatches('kindest/node:v1.30.13')[0] ?? '')).toEqual({
      apiVersion: 'kubeadm.k8s.io/v1beta3',
      kind: 'InitConfiguration',
      nodeRegistration: { kubeletExtraArgs: { 'cloud-provider': 'external', 'provider-id': '' } },
    });
  });
});

describe('kindConfig', () => {
  it('one control plane and N workers on the image, with the pod subnet', () => {
    const config = kindConfig({ workers: 3, image: 'kindest/node:v1.37.0', podSubnet: '10.200.0.0/16' });
    expect(config.nodes).toEqual([
      { role: 'control-plane', image: 'kindest/node:v1.37.0' },
      ...Array.from({ length: 3 }, () => ({ role: 'worker', image: 'kindest/node:v1.37.0' })),
    ]);
    expect(config.networking).toEqual({ podSubnet: '10.200.0.0/16', serviceSubnet: '10.96.0.0/16' });
  });

  it('port mapping publishes the ports of node i on its own listen address', () => {
    const config = kindConfig({ workers: 1, image: 'kindest/node:v1.37.0', portMapping: { listenAddresses: ['127.10.0.10', '127.10.0.11'], ports: [30080] } });
    expect((config.nodes as { extraPortMappings: unknown }[]).map((n) => n.extraPortMappings)).toEqual([
      [{ containerPort: 30080, hostPort: 30080, listenAddress: '127.10.0.10', protocol: 'TCP' }],
      [{ containerPort: 30080, hostPort: 30080, listenAddress: '127.10.0.11', protocol: 'TCP' }],
    ]);
    expect(() => kindConfig({ workers: 2, image: 'kindest/node:v1.37.0', portMapping: { listenAddresses: ['127.10.0.10'], ports: [30080] } })).toThrow(
      /3 listen addresses/,
    );
  });

  it('rejects a negative or fractional worker count', () => {
    expect(() => kindConfig({ workers: -1, image: 'kindest/node:v1.37.0' })).toThrow(KindConfigError);
    expect(() => kindConfig({ workers: 1.5, image: 'kindest/node:v1.37.0' })).toThrow(KindConfigError);
  });

  it('renders YAML that parses back to the same object', () => {
    const options = { workers: 2, image: 'kindest/node:v1.37.0' + DIGEST };
    expect(load(renderKindConfig(options))).toEqual(kindConfig(options));
  });
});
