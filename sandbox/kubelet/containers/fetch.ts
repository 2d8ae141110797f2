// What the kubelet reads from the apiserver to start a pod's containers: the Secrets and ConfigMaps its
// environment and volumes name (a missing one is absent, for spec.ts to judge against `optional`), and a new
// token for each projected service-account token (TokenRequest for the pod's ServiceAccount, bound to the pod).
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { podReferences, type PodObjects, type TokenRequest } from './spec.ts';

const decode = (data: Record<string, string> | undefined, encoding: 'base64' | 'utf8'): Record<string, Buffer> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, encoding)]));

/** undefined for a 404, else the error again. */
function absent(err: unknown): undefined {
  if ((err as { code?: number }).code === 404) return undefined;
  throw err;
}

async function readAll<T>(names: ReadonlySet<string>, read: (name: string) => Promise<T | undefined>): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for (const name of names) {
    const value = await read(name);
    if (value !== undefined) out.set(name, value);
  }
  return out;
}

async function issueToken(core: CoreV1Api, pod: V1Pod, t: TokenRequest): Promise<string> {
  const { name = '', uid = '', namespace = 'default' } = pod.metadata ?? {};
  const answer = await core.createNamespacedServiceAccountToken({
    name: pod.spec?.serviceAccountName ?? 'default',
    namespace,
    body: { spec: { audiences: [...t.audiences], expirationSeconds: t.expirationSeconds, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name, uid } } },
  });
  return answer.status?.token ?? '';
}

/** The objects the pod names; with `tokens`, new tokens for its projected volumes too. */
export async function fetchPodObjects(core: CoreV1Api, pod: V1Pod, tokens: boolean): Promise<PodObjects> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const refs = podReferences(pod);
  const secrets = await readAll(refs.secrets, async (name) => {
    const s = await core.readNamespacedSecret({ name, namespace }).catch(absent);
    return s && decode(s.data, 'base64');
  });
  const configMaps = await readAll(refs.configMaps, async (name) => {
    const m = await core.readNamespacedConfigMap({ name, namespace }).catch(absent);
    return m && { ...decode(m.data, 'utf8'), ...decode(m.binaryData, 'base64') };
  });
  const issued = new Map<string, string>();
  for (const t of tokens ? refs.tokens : []) issued.set(t.key, await issueToken(core, pod, t));
  return { secrets, configMaps, tokens: issued };
}
