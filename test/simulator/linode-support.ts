// What the Linode persona's simulator tests share: a call to /v4 with the project token.
import type { InProcessSimcloud } from '../helpers/simcloud.ts';

/** `linode(method, path, body?)` against `sim()`'s /v4, answering the status and the parsed body. */
export function linodeCaller(sim: () => InProcessSimcloud) {
  return async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const sc = sim();
    const r = await fetch(`${sc.url}/v4${path}`, {
      method, headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as T };
  };
}
