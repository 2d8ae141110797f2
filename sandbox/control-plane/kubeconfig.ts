// Writes kubeconfig files with the credentials embedded, so a file can be handed to kubectl, the CCM
// or a test without the PKI directory next to it.
import { dump } from 'js-yaml';
import type { PemPair } from './pki.ts';

export interface KubeconfigSpec {
  readonly server: string;
  readonly caCert: string;
  readonly client: PemPair;
  readonly clusterName: string;
  readonly userName: string;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

export function renderKubeconfig(spec: KubeconfigSpec): string {
  const context = `${spec.userName}@${spec.clusterName}`;
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: spec.clusterName, cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caCert) } }],
    users: [{ name: spec.userName, user: { 'client-certificate-data': b64(spec.client.cert), 'client-key-data': b64(spec.client.key) } }],
    contexts: [{ name: context, context: { cluster: spec.clusterName, user: spec.userName } }],
    'current-context': context,
    preferences: {},
  });
}
