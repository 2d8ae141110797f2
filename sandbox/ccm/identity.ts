// A CCM's own identity in the sandbox's cluster, for CCMs the sandbox does not vouch for (`--ccm command`,
// and the one a user runs by hand with `--ccm none`): the ServiceAccount kube-system/cloud-controller-manager
// with the RBAC a deployed CCM gets (deploy/rbac.yaml, applied as is, plus system:auth-delegator for
// delegated authentication of its serving endpoints, plus what the cloud's own manifests grant its CCM as
// declared in the cloud's descriptor), a token from the TokenRequest API and a 0600
// kubeconfig holding it. The CCM then acts with exactly a real CCM's permissions, not the admin's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
  type V1ClusterRole,
  type V1ClusterRoleBinding,
} from '@kubernetes/client-node';
import type { CcmRbacRule } from '../cloud/descriptor.ts';
import { loadAll } from 'js-yaml';
import { z } from 'zod';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';

export const CCM_RBAC_MANIFEST = fileURLToPath(new URL('../../deploy/rbac.yaml', import.meta.url));
export const CCM_SERVICE_ACCOUNT = { namespace: 'kube-system', name: 'cloud-controller-manager' } as const;
export const CCM_USER = `system:serviceaccount:${CCM_SERVICE_ACCOUNT.namespace}:${CCM_SERVICE_ACCOUNT.name}`;

/** A sandbox outlives a working day; the token must too (the kube-apiserver may shorten it). */
const TOKEN_SECONDS = 30 * 24 * 3600;

const ManifestObject = z
  .object({
    apiVersion: z.string(),
    kind: z.string(),
    metadata: z.object({ name: z.string(), namespace: z.string().optional() }).loose(),
  })
  .loose();

/** The auth-delegator binding: TokenReviews and SubjectAccessReviews for a CCM's /metrics and friends. */
const AUTH_DELEGATOR: V1ClusterRoleBinding = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'system:cloud-controller-manager:auth-delegator' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
  subjects: [{ kind: 'ServiceAccount', ...CCM_SERVICE_ACCOUNT }],
};

/** The objects of deploy/rbac.yaml (ServiceAccount, ClusterRole and Role with their bindings). */
export function ccmRbacObjects(manifest = readFileSync(CCM_RBAC_MANIFEST, 'utf8')): KubernetesObject[] {
  return loadAll(manifest)
    .filter((doc) => doc !== null && doc !== undefined)
    .map((doc) => ManifestObject.parse(doc) as KubernetesObject);
}

/** Server-side apply: idempotent on a fresh cluster and on one that has them from an earlier run. */
async function apply(admin: KubeConfig, objects: readonly KubernetesObject[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(admin);
  for (const object of objects) await api.patch(object, undefined, undefined, 'ccm-sandbox', true, PatchStrategy.ServerSideApply);
}

export interface CcmIdentity {
  /** The 0600 kubeconfig of the CCM's ServiceAccount. */
  readonly kubeconfig: string;
  readonly user: string;
}

/** The name of the ClusterRole (and its binding) holding what a cloud's own manifests add. */
export const CLOUD_ROLE_NAME = 'system:cloud-controller-manager:cloud';

/** A ClusterRole with the cloud's extra rules and its binding to the CCM's ServiceAccount (none without rules). */
export function cloudRbacObjects(rules: readonly CcmRbacRule[]): KubernetesObject[] {
  if (rules.length === 0) return [];
  const role: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: CLOUD_ROLE_NAME },
    rules: rules.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })),
  };
  const binding: V1ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: CLOUD_ROLE_NAME },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CLOUD_ROLE_NAME },
    subjects: [{ kind: 'ServiceAccount', ...CCM_SERVICE_ACCOUNT }],
  };
  return [role, binding];
}

/**
 * Applies the CCM's RBAC (upstream's, plus `cloudRules`: what the cloud's own manifests grant, from its
 * descriptor), mints its token and writes `<dir>/kubeconfig` (0600) for it.
 */
export async function createCcmIdentity(adminKubeconfig: string, dir: string, cloudRules: readonly CcmRbacRule[] = []): Promise<CcmIdentity> {
  const admin = new PooledKubeConfig();
  admin.loadFromFile(adminKubeconfig);
  await apply(admin, [...ccmRbacObjects(), AUTH_DELEGATOR, ...cloudRbacObjects(cloudRules)]);
  const core = admin.makeApiClient(CoreV1Api);
  const minted = await core.createNamespacedServiceAccountToken({
    ...CCM_SERVICE_ACCOUNT,
    body: { spec: { audiences: [], expirationSeconds: TOKEN_SECONDS } },
  });
  const token = minted.status?.token;
  if (!token) throw new Error(`the TokenRequest for ${CCM_USER} returned no token`);
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, serviceAccountKubeconfig(admin, token), { mode: 0o600 });
  return { kubeconfig, user: CCM_USER };
}

/** The admin kubeconfig's cluster (server, CA) with the ServiceAccount's token as the only user. */
function serviceAccountKubeconfig(admin: KubeConfig, token: string): string {
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: CCM_USER, token }],
    contexts: [{ name: 'cloud-controller-manager', cluster: cluster.name, user: CCM_USER }],
    currentContext: 'cloud-controller-manager',
  });
  return kc.exportConfig();
}
