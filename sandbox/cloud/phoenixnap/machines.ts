// Creates a `--cloud phoenixnap` sandbox's machines through simcloud's phoenixNAP persona (the BMC API under
// /pnap/bmc/v1), as a phoenixNAP user would: an access token for the client credentials, then a server on the
// cluster's private network (USER_DEFINED), waited on until powered-on, then added to the cluster's public network.
// Servers are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { BMC, NETWORKS } from '../../../simulator/personas/phoenixnap/common.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, PersonaMachines } from '../descriptor.ts';
import { ensurePublicNetwork } from './ccm-config.ts';
import { phoenixnapAccessToken, phoenixnapLocationOf } from './env.ts';

const Server = z.object({ id: z.string().min(1), hostname: z.string(), status: z.string() });
const Networks = z.array(z.object({ id: z.string(), name: z.string() }));
const PublicNetworkMember = z.object({ id: z.string(), ips: z.array(z.string()) });

export class PhoenixnapMachines implements PersonaMachines {
  readonly #o: { endpoint: string; token: string; caller: string };
  readonly #bootTimeoutMs: number;
  #api: Promise<Requester> | undefined;

  /** `endpoint` is simcloud's base URL; `token` the project token, the client secret. */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#o = { endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' };
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /** A requester with an access token (fetched once; the sandbox makes its machines well within its hour). */
  #requester(): Promise<Requester> {
    this.#api ??= phoenixnapAccessToken(this.#o.endpoint, this.#o.token).then((bearer) =>
      buildRequester({ endpoint: this.#o.endpoint, token: bearer, caller: this.#o.caller }),
    );
    return this.#api;
  }

  /**
   * Creates a server on the cluster's private network, waits until it is powered on and adds it to the cluster's
   * public network (made here when the CCM's preparation has not made it yet). No tags: a phoenixNAP
   * tag cannot hold the `/` of the sandbox's label keys, so the sandbox labels it through /v1.
   */
  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const r = await this.#requester();
    const nets = await r.call('phoenixnap.privateNetworks.list', Networks, { method: 'GET', path: `${NETWORKS}/private-networks` });
    const net = nets.find((n) => n.name === spec.network);
    if (net === undefined) throw new Error(`no private network ${spec.network} in GET ${NETWORKS}/private-networks`);
    const body = {
      hostname: spec.name,
      os: spec.image,
      type: spec.serverType,
      location: phoenixnapLocationOf(spec.zone),
      networkConfiguration: { privateNetworkConfiguration: { configurationType: 'USER_DEFINED', privateNetworks: [{ id: net.id }] } },
    };
    const server = await r.call('phoenixnap.servers.create', Server, { method: 'POST', path: `${BMC}/servers`, body });
    await waitFor(
      async () => {
        const got = await r.call('phoenixnap.servers.get', Server, { method: 'GET', path: `${BMC}/servers/${server.id}` });
        return got.status === 'powered-on' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `server ${server.id} to be powered-on` },
    );
    // As on phoenixNAP, where kube-vip announces a Service's address from a node: the node is a member of the
    // cluster's public network. It holds no address yet (the network gets its blocks as Services come).
    const publicNetwork = await ensurePublicNetwork(r, spec.network, body.location);
    await r.call('phoenixnap.servers.publicNetworks.add', PublicNetworkMember, {
      method: 'POST',
      path: `${BMC}/servers/${server.id}/network-configuration/public-network-configuration/public-networks`,
      body: { id: publicNetwork, ips: [] },
    });
    return { joinedNetwork: true, labelled: false };
  }
}
