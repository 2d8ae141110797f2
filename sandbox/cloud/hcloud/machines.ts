// Creates a `--cloud hcloud` sandbox's cluster network and servers through simcloud's Hetzner persona,
// with Hetzner's request and response shapes, as a Hetzner user would make them. They are the same
// records /v1 shows (one store), so the rest of the sandbox reads them back there.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, NetworkSpec, PersonaMachines } from '../descriptor.ts';
import { HCLOUD_API_PREFIX, hcloudLocationOf } from './env.ts';

const Id = z.number().int().positive();
const NetworkResponse = z.object({ network: z.object({ id: Id, name: z.string() }) });
const NetworkList = z.object({ networks: z.array(z.object({ id: Id, name: z.string() })) });
const ServerCreateResponse = z.object({ server: z.object({ id: Id, name: z.string() }), action: z.object({ id: Id }) });
const ActionResponse = z.object({
  action: z.object({ id: Id, status: z.enum(['running', 'success', 'error']), error: z.object({ code: z.string(), message: z.string() }).nullish() }),
});

export class HcloudMachinesError extends Error {
  override name = 'HcloudDialectError';
}

export class HcloudMachines implements PersonaMachines {
  readonly #r: Requester;
  readonly #actionTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (no prefix). */
  constructor(o: { endpoint: string; token: string; caller?: string; actionTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#actionTimeoutMs = o.actionTimeoutMs ?? 60_000;
  }

  /** Creates the network with one cloud subnet covering its whole range (the network zone of a location has its name). */
  async createNetwork(spec: NetworkSpec): Promise<void> {
    const body = {
      name: spec.name,
      ip_range: spec.ipRange,
      subnets: [{ type: 'cloud', network_zone: hcloudLocationOf(spec.zone), ip_range: spec.ipRange }],
      labels: spec.labels,
    };
    await this.#r.call('hcloud.networks.create', NetworkResponse, { method: 'POST', path: `${HCLOUD_API_PREFIX}/networks`, body });
  }

  /** Creates a running, labelled server attached to the named network and waits for its create action. */
  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const body = {
      name: spec.name,
      server_type: spec.serverType,
      image: spec.image,
      location: hcloudLocationOf(spec.zone),
      labels: spec.labels,
      networks: [await this.#networkId(spec.network)],
      start_after_create: true,
    };
    const res = await this.#r.call('hcloud.servers.create', ServerCreateResponse, { method: 'POST', path: `${HCLOUD_API_PREFIX}/servers`, body });
    await this.#waitForAction(res.action.id);
    return { joinedNetwork: true, labelled: true };
  }

  async #networkId(name: string): Promise<number> {
    const res = await this.#r.call('hcloud.networks.list', NetworkList, { method: 'GET', path: `${HCLOUD_API_PREFIX}/networks`, query: { name } });
    const network = res.networks.find((n) => n.name === name);
    if (!network) throw new HcloudMachinesError(`the hcloud persona has no network named ${name}`);
    return network.id;
  }

  async #waitForAction(id: number): Promise<void> {
    const action = await waitFor(
      async () => {
        const res = await this.#r.call('hcloud.actions.get', ActionResponse, { method: 'GET', path: `${HCLOUD_API_PREFIX}/actions/${id}` });
        return res.action.status === 'running' ? undefined : res.action;
      },
      { timeoutMs: this.#actionTimeoutMs, intervalMs: 50, description: `hcloud action ${id} to finish` },
    );
    if (action.status === 'error')
      throw new HcloudMachinesError(`hcloud action ${id} failed: ${action.error?.code ?? 'error'}: ${action.error?.message ?? ''}`);
  }
}
