import { describe, expect, it } from 'vitest';
import { renderSummary } from '../cli/summary.ts';
import { readyState } from '../state-fixture.ts';
import { ccmRbacObjects, cloudRbacObjects, CLOUD_ROLE_NAME } from './identity.ts';
import { ccmChoiceArgs, ccmChoiceFrom, CcmStateField, commandLine } from './slot.ts';

describe('the CCM choice', () => {
  it('round-trips through the daemon flags', () => {
    for (const choice of [ccmChoiceFrom('builtin', undefined), ccmChoiceFrom('none', undefined), ccmChoiceFrom('command', "my-ccm --x='a b'")]) {
      const [kind, command] = ccmChoiceArgs(choice).map((a) => a.replace(/^--ccm(-command)?=/, ''));
      expect(ccmChoiceFrom(kind!, command)).toEqual(choice);
    }
  });

  it('shows a multi-line command line on one line', () => {
    expect(commandLine('my-ccm --a \\\n  --b=$X\n  --c ')).toBe('my-ccm --a --b=$X --c');
  });
});

describe("state.json's ccm", () => {
  it('reads a state file from before the slot as our CCM', () => {
    expect(CcmStateField.parse({ url: 'http://127.0.0.1:1', pid: 7 })).toEqual({
      kind: 'builtin',
      url: 'http://127.0.0.1:1',
      pid: 7,
      restarts: 0,
      lastExit: null,
      kubeconfig: null,
    });
    expect(readyState({ ccm: { url: 'http://127.0.0.1:1', pid: 7 } }).ccm?.kind).toBe('builtin');
  });

  it('refuses an unknown kind', () => {
    expect(CcmStateField.safeParse({ kind: 'aws', url: null, pid: null }).success).toBe(false);
  });
});

describe('the summary of an empty slot', () => {
  it('prints the environment, the CCM identity kubeconfig and the upstream flags to run one by hand', () => {
    const state = readyState({ ccm: { kind: 'none', url: null, pid: null, kubeconfig: '/s/demo/ccm/kubeconfig' } });
    const text = renderSummary(state);
    expect(text).toContain('CCM            none: the slot is empty');
    for (const line of [
      '  export SIMCLOUD_ENDPOINT=http://127.0.0.1:4600',
      '  export SIMCLOUD_TOKEN=tok',
      '  export SIMCLOUD_NETWORK=demo',
      '  export SIMCLOUD_LOAD_BALANCER_STRATEGY=lb',
      '  export KUBECONFIG=/s/demo/ccm/kubeconfig',
      '  export CCM_SANDBOX_CLUSTER_NAME=demo',
      '  export CCM_SANDBOX_CLUSTER_CIDR=10.244.0.0/16',
      '    --kubeconfig=/s/demo/ccm/kubeconfig \\',
      '    --cluster-name=demo \\',
      '    --cert-dir=/s/demo/ccm/certs \\',
    ])
      expect(text).toContain(line);
  });
});

describe("the CCM identity's RBAC", () => {
  it("is deploy/rbac.yaml's ServiceAccount, roles and bindings", () => {
    expect(ccmRbacObjects().map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'ServiceAccount/cloud-controller-manager',
      'ClusterRole/system:cloud-controller-manager',
      'ClusterRoleBinding/system:cloud-controller-manager',
      'Role/cloud-controller-manager:leader-election',
      'RoleBinding/cloud-controller-manager:leader-election',
    ]);
  });

  it("adds one ClusterRole bound to the ServiceAccount for what a cloud's own manifests grant, and nothing without rules", () => {
    expect(cloudRbacObjects([])).toEqual([]);
    const [role, binding] = cloudRbacObjects([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    expect(role).toMatchObject({
      kind: 'ClusterRole',
      metadata: { name: CLOUD_ROLE_NAME },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    });
    expect(binding).toMatchObject({
      kind: 'ClusterRoleBinding',
      roleRef: { kind: 'ClusterRole', name: CLOUD_ROLE_NAME },
      subjects: [{ kind: 'ServiceAccount', namespace: 'kube-system', name: 'cloud-controller-manager' }],
    });
  });
});
