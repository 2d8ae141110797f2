// Creates a `--cloud linode` sandbox's machines through simcloud's Linode dialect (/v4), with Linode's
// request and response shapes, as a Linode user would: a booted instance with the cluster's tags. They
// are simcloud servers (one store), so the rest of the sandbox reads them back through /v1.
import { z } from 'zod';
import { buildRequester } from '../../simulator/api/client/client.ts';
import type { Requester } from '../../simulator/api/client/requester.ts';
import { tagsOf } from '../../simulator/personas/linode/views.ts';
import { waitFor } from '../wait.ts';
import { LINODE_API_PREFIX } from './clouds.ts';

const Instance = z.object({ id: z.number().int().positive(), label: z.string(), status: z.string() });

export interface LinodeInstanceSpec {
  readonly label: string;
  readonly region: string;
  readonly type: string;
  readonly image: string;
  /** simcloud labels, written as Linode tags (`key=value`). */
  readonly labels: Record<string, string>;
}

export class LinodeDialectCreator {
  readonly #r: Requester;
  readonly #bootTimeoutMs: number;

  /** `endpoint` is simcloud's base URL (no prefix). */
  constructor(o: { endpoint: string; token: string; caller?: string; bootTimeoutMs?: number }) {
    this.#r = buildRequester({ endpoint: o.endpoint, token: o.token, caller: o.caller ?? 'ccm-sandbox' });
    this.#bootTimeoutMs = o.bootTimeoutMs ?? 60_000;
  }

  /** Creates a booted instance and waits until Linode reports it running; returns its id. */
  async createInstance(spec: LinodeInstanceSpec): Promise<number> {
    const body = {
      label: spec.label,
      region: spec.region,
      type: spec.type,
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
    return created.id;
  }
}
