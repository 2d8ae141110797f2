// Creates a `--cloud linode` sandbox's machines through simcloud's Linode dialect (/v4), with Linode's
// request and response shapes, as a Linode user would: a booted instance with the cluster's tags. They
// are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { tagsOf } from '../../../simulator/personas/linode/views.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, PersonaMachines } from '../descriptor.ts';
import { LINODE_API_PREFIX, linodeRegionOf } from './env.ts';

const Instance = z.object({ id: z.number().int().positive(), label: z.string(), status: z.string() });

export class LinodeMachines implements PersonaMachines {
  readonly #r: Requester;
  readonly #bootTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (no prefix). */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /**
   * Creates a booted instance with the sandbox's labels as tags and waits until Linode reports it running.
   * Linode has no network to join at creation: the sandbox joins it through /v1.
   */
  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const body = {
      label: spec.name,
      region: linodeRegionOf(spec.zone),
      type: spec.serverType,
      image: `linode/${spec.image}`,
      tags: tagsOf(spec.labels),
      booted: true,
    };
    const created = await this.#r.call('linode.instances.create', Instance, { method: 'POST', path: `${LINODE_API_PREFIX}/linode/instances`, body });
    await waitFor(
      async () => {
        const got = await this.#r.call('linode.instances.get', Instance, { method: 'GET', path: `${LINODE_API_PREFIX}/linode/instances/${created.id}` });
        return got.status === 'running' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `linode instance ${created.id} to be running` },
    );
    return { joinedNetwork: false, labelled: true };
  }
}
