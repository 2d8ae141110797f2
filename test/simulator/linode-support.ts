// What the Linode persona's simulator tests share: a simcloud for the file and a call to /v4 with the project token.
import { afterAll, beforeAll } from 'vitest';
import { startSimcloudOnOwnPlan, type InProcessSimcloud } from '../helpers/simcloud.ts';

/** A simcloud on its own plan for the file (no client retries), stopped after it with every `stops` entry run first. */
export function linodeSimcloud(): { sim: () => InProcessSimcloud; stops: (() => void)[] } {
  let sc: InProcessSimcloud | undefined;
  const stops: (() => void)[] = [];
  beforeAll(async () => {
    sc = await startSimcloudOnOwnPlan({ clientOptions: { retry: { maxRetries: 0 } } });
  });
  afterAll(async () => {
    for (const stop of stops) stop();
    await sc?.stop();
  });
  return { sim: () => sc!, stops };
}

/** `linode(method, path, body?)` against `sim()`'s /v4 (or `mount`, e.g. /v4beta), answering the status and the parsed body. */
export function linodeCaller(sim: () => InProcessSimcloud, mount = '/v4') {
  return async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const sc = sim();
    const r = await fetch(`${sc.url}${mount}${path}`, {
      method,
      headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as T };
  };
}
