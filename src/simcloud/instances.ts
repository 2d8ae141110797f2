/**
 * InstancesV2 for simcloud servers. A Node maps to a server by `spec.providerID` (`simcloud://<id>`), else by
 * the server name equal to the node name. `instanceExists` answers false only on a definite not_found from the
 * API; every other failure is thrown, because the lifecycle controller deletes Nodes on false.
 */
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import { InstanceNotFoundError } from '../cloud/errors.ts';
import type { InstanceMetadata, InstancesV2 } from '../cloud/instances.ts';
import { CloudMethod, inMethod, type CallContext } from '../cloud/provider.ts';
import { parseProviderId, toProviderId } from './provider-id.ts';

/** The provider's view of a server (converted from the wire shape in `client-adapter.ts`). */
export interface CloudServer {
  readonly id: string;
  readonly name: string;
  /** initializing, starting, running, stopping, off, deleting. */
  readonly status: string;
  readonly serverType: string;
  readonly region: string;
  readonly zone: string;
  readonly publicIPv4: string | undefined;
  readonly privateIPs: readonly string[];
}

/** What instances need from the cloud. `undefined` = the API said not_found; anything else throws. */
export interface ServerLookup {
  getServer(id: string, ctx?: CallContext): Promise<CloudServer | undefined>;
  findServerByName(name: string, ctx?: CallContext): Promise<CloudServer | undefined>;
}

/** InternalIP = private addresses, ExternalIP = public IPv4, Hostname = the server name. */
export function serverAddresses(server: CloudServer): V1NodeAddress[] {
  return [
    ...server.privateIPs.map((address) => ({ type: 'InternalIP', address })),
    ...(server.publicIPv4 ? [{ type: 'ExternalIP', address: server.publicIPv4 }] : []),
    { type: 'Hostname', address: server.name },
  ];
}

export function serverMetadata(server: CloudServer): InstanceMetadata {
  return {
    providerID: toProviderId(server.id),
    instanceType: server.serverType,
    nodeAddresses: serverAddresses(server),
    zone: server.zone,
    region: server.region,
    additionalLabels: {},
  };
}

export class SimcloudInstances implements InstancesV2 {
  readonly #servers: ServerLookup;
  readonly #metadata: ServerLookup;

  /**
   * `metadata` answers InstanceMetadata (static facts: type, zone, addresses), e.g. from a server list
   * cache; existence and power state always come from `servers` (the lifecycle controller acts on them).
   */
  constructor(servers: ServerLookup, metadata: ServerLookup = servers) {
    this.#servers = servers;
    this.#metadata = metadata;
  }

  /** The node's server: by providerID when set, else by name. `undefined` only on a definite not_found. */
  async serverFor(node: V1Node, ctx?: CallContext, lookup: ServerLookup = this.#servers): Promise<CloudServer | undefined> {
    const providerID = node.spec?.providerID ?? '';
    if (providerID !== '') return lookup.getServer(parseProviderId(providerID), ctx);
    return lookup.findServerByName(node.metadata?.name ?? '', ctx);
  }

  async instanceExists(node: V1Node, ctx?: CallContext): Promise<boolean> {
    return (await this.#lookup(CloudMethod.instanceExists, node, ctx)) !== undefined;
  }

  async instanceShutdown(node: V1Node, ctx?: CallContext): Promise<boolean> {
    const server = await this.#lookup(CloudMethod.instanceShutdown, node, ctx);
    return server?.status === 'off';
  }

  async instanceMetadata(node: V1Node, ctx?: CallContext): Promise<InstanceMetadata | undefined> {
    const server = await this.#lookup(CloudMethod.instanceMetadata, node, ctx, this.#metadata);
    if (server === undefined) throw new InstanceNotFoundError();
    return serverMetadata(server);
  }

  async #lookup(method: CloudMethod, node: V1Node, ctx: CallContext | undefined, lookup?: ServerLookup): Promise<CloudServer | undefined> {
    try {
      return await this.serverFor(node, inMethod(ctx, method), lookup);
    } catch (err) {
      throw new Error(`simcloud/Instances.${method}: node ${node.metadata?.name ?? ''}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
