// The CCM's simcloud client against an in-process simcloud with injected faults: reads are retried after a
// 500, a create after a 500 is retried under its idempotency key and leaves one server, and every wait is on
// the injected clock (the test drives a FakeClock; nothing sleeps in real time).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { FakeClock } from '../kube/clock.ts';
import { createClient } from './client.ts';

let sc: InProcessSimcloud;
beforeAll(async () => {
  sc = await startSimcloudInProcess();
});
afterEach(async () => {
  await sc.admin.clearFaults();
});
afterAll(async () => {
  await sc?.stop();
});

/** Runs `call` while moving `clock` on, so retry waits pass without real time. */
async function onClock<T>(clock: FakeClock, call: Promise<T>): Promise<T> {
  let settled = false;
  call.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) await clock.advance(1000);
  return call;
}

const ccmClient = (clock: FakeClock) => createClient({ endpoint: sc.url, token: sc.token, requestTimeoutMs: 5000, clock });

describe('the CCM simcloud client', () => {
  it('retries a read after a 500, waiting on the injected clock', async () => {
    await sc.admin.addFault({ kind: 'error', status: 500, code: 'server_error', count: 2, match: { method: 'GET', path: '/v1/regions' } });
    const clock = new FakeClock();
    const start = clock.now();
    const regions = await onClock(clock, ccmClient(clock).catalogue.regions());
    expect(regions.length).toBeGreaterThan(0);
    expect((await sc.admin.listFaults())[0]!.fired).toBe(2);
    expect(clock.now()).toBeGreaterThan(start);
  });

  it('retries a create after a 500 under its idempotency key and leaves exactly one server', async () => {
    await sc.admin.addFault({ kind: 'error', status: 500, code: 'server_error', count: 1, match: { method: 'POST', path: '/v1/servers' } });
    const clock = new FakeClock();
    const name = `idem-${Date.now()}`;
    const { server } = await onClock(clock, ccmClient(clock).servers.create({ name, server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' }));
    expect((await sc.admin.listFaults())[0]!.fired).toBe(1);
    expect((await sc.client.servers.listAll({ name })).map((s) => s.id)).toEqual([server.id]);
  });

  it('does not repeat a request the server refused (4xx)', async () => {
    const clock = new FakeClock();
    const failed = await onClock(
      clock,
      ccmClient(clock)
        .servers.create({ name: 'x', server_type: 'no-such-type', image: 'ubuntu-24.04', zone: 'sim-1a' })
        .catch((e: unknown) => e),
    );
    expect(failed).toMatchObject({ code: 'invalid_input' });
    expect(await sc.client.servers.listAll({ name: 'x' })).toEqual([]);
  });
});
