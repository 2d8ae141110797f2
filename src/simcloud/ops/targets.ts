/**
 * LB targets from the node set the service controller passes: each node's server id from its providerID, or,
 * for nodes without one, from the server with the node's name (one list call, only when needed). Nodes of
 * another provider or with no server are left out.
 */
import type { V1Node } from '@kubernetes/client-node';
import { PROVIDER_ID_PREFIX, parseProviderId } from '../provider-id.ts';

export interface NamedServer {
  readonly id: string;
  readonly name: string;
}

/** Server ids for `nodes`, sorted and unique; `listServers` is called at most once. */
export async function serverIdsForNodes(nodes: readonly V1Node[], listServers: () => Promise<readonly NamedServer[]>): Promise<string[]> {
  const ids = new Set<string>();
  const providerIDs = nodes.map((n) => n.spec?.providerID ?? '');
  for (const p of providerIDs) if (p.startsWith(PROVIDER_ID_PREFIX)) ids.add(parseProviderId(p));
  const unresolved = nodes.filter((n, i) => providerIDs[i] === '' && n.metadata?.name).map((n) => n.metadata?.name ?? '');
  if (unresolved.length > 0) {
    const byName = new Map((await listServers()).map((s) => [s.name, s.id]));
    for (const name of unresolved) {
      const id = byName.get(name);
      if (id !== undefined) ids.add(id);
    }
  }
  return [...ids].sort();
}

/** The region of the nodes (first `topology.kubernetes.io/region` label), if any. */
export function nodesRegion(nodes: readonly V1Node[]): string | undefined {
  for (const node of nodes) {
    const region = node.metadata?.labels?.['topology.kubernetes.io/region'];
    if (region) return region;
  }
  return undefined;
}
