// Creates a `--cloud digitalocean` sandbox's machines through simcloud's DigitalOcean dialect (/v2), with
// DigitalOcean's request and response shapes, as a DigitalOcean user would: a droplet, waited on until
// active. Droplets are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { waitFor } from '../../wait.ts';
import type { MachineCreated, MachineCreateSpec, PersonaMachines } from '../descriptor.ts';
import { digitaloceanRegionOf } from './env.ts';

const DropletEnvelope = z.object({ droplet: z.object({ id: z.number().int().positive(), name: z.string(), status: z.string() }) });

export class DigitalOceanMachines implements PersonaMachines {
  readonly #r: Requester;
  readonly #bootTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (the dialect is at /v2 on its root). */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /**
   * Creates a droplet and waits until DigitalOcean reports it active. No tags: a DigitalOcean tag cannot
   * hold the `/` of the sandbox's label keys, so the sandbox labels it, and joins it to the network, through /v1.
   */
  async createMachine(spec: MachineCreateSpec): Promise<MachineCreated> {
    const body = { name: spec.name, region: digitaloceanRegionOf(spec.zone), size: spec.serverType, image: spec.image };
    const { droplet } = await this.#r.call('digitalocean.droplets.create', DropletEnvelope, { method: 'POST', path: '/v2/droplets', body });
    await waitFor(
      async () => {
        const got = await this.#r.call('digitalocean.droplets.get', DropletEnvelope, { method: 'GET', path: `/v2/droplets/${droplet.id}` });
        return got.droplet.status === 'active' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `droplet ${droplet.id} to be active` },
    );
    return { joinedNetwork: false, labelled: false };
  }
}
