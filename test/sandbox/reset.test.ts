// The reset shared by `npm run sandbox:reset` and the console, against a real simcloud process with its
// default (second-long) transitions: a server still shutting down when Reset is pressed is powered on too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetSandbox } from '../../sandbox/reset.ts';
import { startSimcloudProcess, type SimcloudProcess } from '../helpers/simcloud.ts';
import { serverBody } from '../simulator/support.ts';

let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startSimcloudProcess({ args: ['--no-dataplane'] });
});
afterAll(async () => {
  await sc?.stop();
});

describe('sandbox reset', () => {
  it('clears faults and powers on every server, waiting for one that is still shutting down', async () => {
    const created = await Promise.all([sc.client.servers.create(serverBody()), sc.client.servers.create(serverBody())]);
    await Promise.all(created.map((c) => sc.client.waitForAction(c.action.id)));
    const [off, stopping] = created.map((c) => c.server.id) as [string, string];
    await sc.client.waitForAction((await sc.client.servers.poweroff(off)).id);
    await sc.client.servers.shutdown(stopping);
    expect((await sc.client.servers.get(stopping)).status).toBe('stopping');
    await sc.admin.addFault({ kind: 'latency', latency_ms: 5, match: { path: '/v1/networks/**' } });

    const result = await resetSandbox({ client: sc.client, admin: sc.admin, core: undefined });

    expect(result).toEqual({ deletedServices: 0, poweredOn: 2 });
    expect(await sc.admin.listFaults()).toEqual([]);
    for (const id of [off, stopping]) expect(['starting', 'running']).toContain((await sc.client.servers.get(id)).status);
  });
});
