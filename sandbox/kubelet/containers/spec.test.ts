import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { containerArgv, containerEnv, ContainerSpecError, expand, mountPlans, podReferences, volumePlans, type PodObjects } from './spec.ts';

const buf = (s: string): Buffer => Buffer.from(s);

function pod(container: Partial<V1Container>, spec: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod {
  return {
    metadata: { name: 'ccm-linode-abcde', namespace: 'kube-system', uid: 'u-1', labels: { app: 'ccm' } },
    spec: { nodeName: 'cp-1', serviceAccountName: 'ccm-linode', containers: [{ name: 'ccm', image: 'linode/ccm:latest', ...container }], ...spec },
    status: { podIP: '127.0.64.2', hostIP: '127.0.64.2' },
  };
}

const objects: PodObjects = {
  secrets: new Map([['ccm-linode', { apiToken: buf('tok'), region: buf('sim-1') }]]),
  configMaps: new Map<string, Record<string, Buffer>>([
    ['settings', { level: buf('3'), mode: buf('fast') }],
    ['kube-root-ca.crt', { 'ca.crt': buf('PEM') }],
  ]),
  tokens: new Map([['kube-api-access/token', 'jwt']]),
};

describe('a container as a runtime resolves it', () => {
  it('names the Secrets, ConfigMaps and tokens the pod reads', () => {
    const p = pod(
      { env: [{ name: 'R', valueFrom: { secretKeyRef: { name: 'ccm-linode', key: 'region' } } }], envFrom: [{ configMapRef: { name: 'settings' } }] },
      {
        volumes: [
          { name: 'token', secret: { secretName: 'other' } },
          {
            name: 'kube-api-access',
            projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 600 } }, { configMap: { name: 'kube-root-ca.crt' } }] },
          },
        ],
      },
    );
    const refs = podReferences(p);
    expect([...refs.secrets]).toEqual(['ccm-linode', 'other']);
    expect([...refs.configMaps]).toEqual(['settings', 'kube-root-ca.crt']);
    expect(refs.tokens).toEqual([{ key: 'kube-api-access/token', audiences: [], expirationSeconds: 600 }]);
  });

  it('builds the environment over the base: envFrom with its prefix, then env with Secret and ConfigMap keys, fieldRefs and $(VAR)', () => {
    const c: V1Container = {
      name: 'ccm',
      envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'settings' } }],
      env: [
        { name: 'LINODE_REGION', valueFrom: { secretKeyRef: { name: 'ccm-linode', key: 'region' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: 'WHERE', value: '$(POD) in $(LINODE_REGION), $(UNKNOWN), $$(POD)' },
        { name: 'HOME', value: '/home/ccm' },
      ],
    };
    expect(containerEnv(pod({}), c, objects, { HOME: '/root', PATH: '/bin' })).toEqual({
      HOME: '/home/ccm',
      PATH: '/bin',
      CFG_level: '3',
      CFG_mode: 'fast',
      LINODE_REGION: 'sim-1',
      LEVEL: '3',
      POD: 'ccm-linode-abcde',
      APP: 'ccm',
      WHERE: 'ccm-linode-abcde in sim-1, $(UNKNOWN), $(POD)',
    });
  });

  it('refuses a missing Secret key and skips an optional one, as CreateContainerConfigError', () => {
    const missing: V1Container = { name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'ccm-linode', key: 'nope' } } }] };
    expect(() => containerEnv(pod({}), missing, objects, {})).toThrow(/couldn't find key nope in secret ccm-linode/);
    try {
      containerEnv(pod({}), missing, objects, {});
    } catch (err) {
      expect(err).toBeInstanceOf(ContainerSpecError);
      expect((err as ContainerSpecError).reason).toBe('CreateContainerConfigError');
    }
    const optional: V1Container = { name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } }] };
    expect(containerEnv(pod({}), optional, objects, {})).toEqual({});
  });

  it('runs the binary as the entrypoint: args after it, command[0] replaced by it, $(VAR) expanded', () => {
    expect(containerArgv({ name: 'c', args: ['--v=3', '--region=$(R)'] }, '/bin/ccm', { R: 'sim-1' })).toEqual(['/bin/ccm', '--v=3', '--region=sim-1']);
    expect(containerArgv({ name: 'c', command: ['/linode-cloud-controller-manager', '--a'], args: ['--b'] }, '/bin/ccm', {})).toEqual([
      '/bin/ccm',
      '--a',
      '--b',
    ]);
    expect(expand('$$(X)', { X: '1' })).toBe('$(X)');
  });

  it('makes volumes: Secret items 0600, ConfigMap keys 0644, the projected token and CA, emptyDir, hostPath', () => {
    const p = pod(
      {},
      {
        volumes: [
          { name: 'linode-api-token', secret: { secretName: 'ccm-linode', items: [{ key: 'apiToken', path: 'api-token' }] } },
          { name: 'settings', configMap: { name: 'settings' } },
          {
            name: 'kube-api-access',
            projected: {
              sources: [
                { serviceAccountToken: { path: 'token' } },
                { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
              ],
            },
          },
          { name: 'scratch', emptyDir: {} },
          { name: 'k8s', hostPath: { path: '/etc/kubernetes' } },
        ],
      },
    );
    const text = (files: readonly { path: string; content: Buffer; mode: number }[]): [string, string, string][] =>
      files.map((f) => [f.path, f.content.toString(), f.mode.toString(8)]);
    const plans = volumePlans(p, objects);
    expect(plans.map((v) => (v.kind === 'files' ? [v.name, text(v.files)] : v))).toEqual([
      ['linode-api-token', [['api-token', 'tok', '600']]],
      [
        'settings',
        [
          ['level', '3', '644'],
          ['mode', 'fast', '644'],
        ],
      ],
      [
        'kube-api-access',
        [
          ['token', 'jwt', '600'],
          ['ca.crt', 'PEM', '644'],
          ['namespace', 'kube-system', '644'],
        ],
      ],
      { kind: 'empty', name: 'scratch' },
      { kind: 'host', name: 'k8s', path: '/etc/kubernetes', type: '' },
    ]);
  });

  it('refuses a volume type it cannot make, and a path that climbs out of its volume', () => {
    expect(() => volumePlans(pod({}, { volumes: [{ name: 'nfs', nfs: { server: 'x', path: '/' } }] }), objects)).toThrow(/only secret, configMap/);
    const climbing = pod({}, { volumes: [{ name: 's', secret: { secretName: 'ccm-linode', items: [{ key: 'apiToken', path: '../x' }] } }] });
    expect(() => volumePlans(climbing, objects)).toThrow(/must be relative without \.\./);
  });

  it('mounts each volumeMount at its absolute path, with subPath and readOnly', () => {
    const plans = volumePlans(
      pod(
        {},
        {
          volumes: [
            { name: 'k8s', hostPath: { path: '/etc/kubernetes' } },
            { name: 'scratch', emptyDir: {} },
          ],
        },
      ),
      objects,
    );
    const c: V1Container = {
      name: 'c',
      volumeMounts: [
        { name: 'k8s', mountPath: '/etc/kubernetes/' },
        { name: 'scratch', mountPath: '/tmp/x', subPath: 'a/b', readOnly: true },
      ],
    };
    expect(mountPlans(c, plans)).toEqual([
      { volume: 'k8s', subPath: '', target: '/etc/kubernetes', readOnly: false },
      { volume: 'scratch', subPath: 'a/b', target: '/tmp/x', readOnly: true },
    ]);
    expect(() => mountPlans({ name: 'c', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }, plans)).toThrow(/no volume named nope/);
  });
});
