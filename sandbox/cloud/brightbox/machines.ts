// Creates a `--cloud brightbox` sandbox's machines through simcloud's Brightbox persona (/brightbox/1.0), as a
// Brightbox user would: an access token for the API client, then a server in the zone, waited on until active.
// Brightbox has no network to join at creation and no labels, so the sandbox adds the server to the cluster
// network and labels it through /v1. Servers are simcloud servers (one store).
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { API, zoneHandle } from '../../../simulator/personas/brightbox/common.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, PersonaMachines } from '../descriptor.ts';
import { brightboxAccessToken } from './env.ts';

const Server = z.object({ id: z.string().min(1), status: z.string() });

export class BrightboxMachines implements PersonaMachines {
  readonly #o: { endpoint: string; token: string; caller: string };
  readonly #bootTimeoutMs: number;
  readonly #providerId: (serverId: string) => string;
  #api: Promise<Requester> | undefined;

  /** `endpoint` is simcloud's base URL; `token` the project token, the API client's secret. */
  constructor(o: { endpoint: string; token: string; providerId: (serverId: string) => string; caller?: string; bootTimeoutMs?: number }) {
    this.#o = { endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' };
    this.#providerId = o.providerId;
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  #requester(): Promise<Requester> {
    this.#api ??= brightboxAccessToken(this.#o.endpoint, this.#o.token).then((bearer) =>
      buildRequester({ endpoint: this.#o.endpoint, token: bearer, caller: this.#o.caller }),
    );
    return this.#api;
  }

  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const r = await this.#requester();
    const body = { name: spec.name, image: spec.image, server_type: spec.serverType, zone: zoneHandle(spec.zone) };
    const server = await r.call('brightbox.servers.create', Server, { method: 'POST', path: `${API}/servers`, body });
    await waitFor(
      async () => {
        const got = await r.call('brightbox.servers.get', Server, { method: 'GET', path: `${API}/servers/${server.id}` });
        return got.status === 'active' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `server ${server.id} to be active` },
    );
    return { joinedNetwork: false, labelled: false };
  }

  /**
   * On Brightbox a server's hostname is its id, so a Node's name is the server id, which is how Brightbox's CCM
   * finds the server of a Node without a providerID. A sandbox's Nodes carry the machine's name instead, so their
   * kubelets register with `--provider-id brightbox://srv-…`, which that CCM reads first.
   */
  kubeletProviderId(serverId: string): string {
    return this.#providerId(serverId);
  }
}
