// Creates a `--cloud linode` sandbox's machines through simcloud's Linode dialect (/v4), with Linode's
// request and response shapes, as a Linode user would: a booted instance with the cluster's tags. They
// are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { tagsOf } from '../../../simulator/personas/linode/views.ts';
import { numericIdOf } from '../../../simulator/personas/numeric-ids.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, PersonaMachines } from '../descriptor.ts';
import { LINODE_API_PREFIX, linodeRegionOf } from './env.ts';

const Instance = z.object({ id: z.number().int().positive(), label: z.string(), status: z.string() });
const VPCs = z.object({
  data: z.array(z.object({ id: z.number().int(), label: z.string(), subnets: z.array(z.object({ id: z.number().int(), label: z.string() })) })),
});

export class LinodeMachines implements PersonaMachines {
  readonly #r: Requester;
  readonly #bootTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (no prefix). */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /**
   * The subnet to put a machine on: the cluster network is a VPC labelled with its name, and its first subnet
   * is `default`, the one Linode's CCM looks for in VPC mode. Undefined when there is no such VPC.
   */
  async #subnet(network: string): Promise<number | undefined> {
    const { data } = await this.#r.call('linode.vpcs.list', VPCs, {
      method: 'GET',
      path: `${LINODE_API_PREFIX}/vpcs`,
      query: { page_size: 500 },
    });
    const vpc = data.find((v) => v.label === network);
    return (vpc?.subnets.find((s) => s.label === 'default') ?? vpc?.subnets[0])?.id;
  }

  /**
   * Creates a booted instance with the sandbox's labels as tags, on the cluster's VPC with a vpc interface as
   * a Linode user attaches one (so it has its private address from the start, before its Node registers),
   * and waits until Linode reports it running. Without the VPC, the sandbox joins the network through /v1.
   */
  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const subnet = await this.#subnet(spec.network);
    const body = {
      label: spec.name,
      region: linodeRegionOf(spec.zone),
      type: spec.serverType,
      image: `linode/${spec.image}`,
      tags: tagsOf(spec.labels),
      booted: true,
      ...(subnet === undefined ? {} : { interfaces: [{ purpose: 'public' }, { purpose: 'vpc', subnet_id: subnet }] }),
    };
    const created = await this.#r.call('linode.instances.create', Instance, { method: 'POST', path: `${LINODE_API_PREFIX}/linode/instances`, body });
    await waitFor(
      async () => {
        const got = await this.#r.call('linode.instances.get', Instance, { method: 'GET', path: `${LINODE_API_PREFIX}/linode/instances/${created.id}` });
        return got.status === 'running' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `linode instance ${created.id} to be running` },
    );
    return { joinedNetwork: subnet !== undefined, labelled: true };
  }

  /** Deletes the instance as a Linode user does: its vpc interfaces' ip_ranges (routes) go with it. */
  async deleteMachine(serverId: string): Promise<void> {
    await this.#r.call('linode.instances.delete', z.object({}), { method: 'DELETE', path: `${LINODE_API_PREFIX}/linode/instances/${numericIdOf(serverId)}` });
  }
}
