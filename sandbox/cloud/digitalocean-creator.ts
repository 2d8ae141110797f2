// Creates a `--cloud digitalocean` sandbox's machines through simcloud's DigitalOcean dialect (/v2), with
// DigitalOcean's request and response shapes, as a DigitalOcean user would: a droplet, waited on until
// active. Droplets are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../simulator/api/client/client.ts';
import type { Requester } from '../../simulator/api/client/requester.ts';
import { waitFor } from '../wait.ts';

const DropletEnvelope = z.object({ droplet: z.object({ id: z.number().int().positive(), name: z.string(), status: z.string() }) });

export interface DropletSpec {
  readonly name: string;
  readonly region: string;
  readonly size: string;
  readonly image: string;
}

export class DigitalOceanDialectCreator {
  readonly #r: Requester;
  readonly #bootTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (the dialect is at /v2 on its root). */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /**
   * Creates a droplet and waits until DigitalOcean reports it active; returns its id. No tags: a
   * DigitalOcean tag cannot hold the `/` of the sandbox's label keys, so the caller labels through /v1.
   */
  async createDroplet(spec: DropletSpec): Promise<number> {
    const body = { name: spec.name, region: spec.region, size: spec.size, image: spec.image };
    const { droplet } = await this.#r.call('digitalocean.droplets.create', DropletEnvelope, { method: 'POST', path: '/v2/droplets', body });
    await waitFor(
      async () => {
        const got = await this.#r.call('digitalocean.droplets.get', DropletEnvelope, { method: 'GET', path: `/v2/droplets/${droplet.id}` });
        return got.droplet.status === 'active' ? got : undefined;
      },
      { timeoutMs: this.#bootTimeoutMs, intervalMs: 50, description: `droplet ${droplet.id} to be active` },
    );
    return droplet.id;
  }
}
