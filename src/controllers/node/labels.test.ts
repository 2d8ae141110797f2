import { describe, expect, it } from 'vitest';
import { initialLabels, isKubernetesNamespacedLabel, reconcileBetaToGALabels } from './labels.ts';

const metadata = { providerID: 'p://1', instanceType: 't', zone: 'z', region: 'r', nodeAddresses: [], additionalLabels: {} };

describe('node labels', () => {
  it('copies beta labels onto GA labels (beta wins), nothing when beta is absent', () => {
    expect(
      reconcileBetaToGALabels({
        'failure-domain.beta.kubernetes.io/zone': 'z1',
        'topology.kubernetes.io/zone': 'z0',
        'beta.kubernetes.io/instance-type': 't1',
        'node.kubernetes.io/instance-type': 't1',
        'topology.kubernetes.io/region': 'r0',
      }),
    ).toEqual({ 'topology.kubernetes.io/zone': 'z1' });
  });

  it('sets GA and beta zone/region/instance-type at initialisation, overwriting', () => {
    const { labels } = initialLabels({ 'topology.kubernetes.io/zone': 'old' }, metadata);
    expect(labels).toEqual({
      'node.kubernetes.io/instance-type': 't',
      'beta.kubernetes.io/instance-type': 't',
      'topology.kubernetes.io/zone': 'z',
      'failure-domain.beta.kubernetes.io/zone': 'z',
      'topology.kubernetes.io/region': 'r',
      'failure-domain.beta.kubernetes.io/region': 'r',
    });
  });

  it('additional labels never overwrite and drop the Kubernetes namespace (v0.32+ regex)', () => {
    const { labels, warnings } = initialLabels(
      { team: 'a' },
      { ...metadata, instanceType: '', zone: '', region: '', additionalLabels: { team: 'b', 'x.k8s.io/y': '1', 'simcloud.dev/pool': 'p' } },
    );
    expect(labels).toEqual({ 'simcloud.dev/pool': 'p' });
    expect(warnings.map((w) => w.key)).toEqual(['team', 'x.k8s.io/y']);
    expect(isKubernetesNamespacedLabel('kubernetes.io/arch')).toBe(true);
    expect(isKubernetesNamespacedLabel('node.kubernetes.io/x')).toBe(true);
    expect(isKubernetesNamespacedLabel('notkubernetes.io/x')).toBe(false);
    expect(isKubernetesNamespacedLabel('kubernetesXio/x')).toBe(false);
  });
});
