// The console hub fed by a real simcloud's event stream (in this process, data plane on): the timeline
// says what happened to a load balancer and its target in words, with no empty statuses.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { recordSimEvents, runCloudScenario, type CloudScenario, type SimEventRecorder } from '../../test/helpers/sim-events.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../../test/helpers/simcloud.ts';
import { followSimEvents } from '../cloud/events.ts';
import { waitFor } from '../wait.ts';
import { ConsoleHub } from './hub.ts';
import { EntrySource } from './timeline.ts';

const octet = randomInt(20, 250);
let sc: InProcessSimcloud;
let rec: SimEventRecorder;
let hub: ConsoleHub;
let scenario: CloudScenario;

function subscribe(handler: (e: SimEvent) => void): () => void {
  const abort = new AbortController();
  void followSimEvents({ endpoint: sc.url, adminToken: sc.adminToken, signal: abort.signal, onEvent: handler });
  return () => abort.abort();
}

beforeAll(async () => {
  sc = await startSimcloudInProcess({ config: { dataplane: true, pools: { lb_vip: `127.${octet}.5.0/24`, server_public: `127.${octet}.6.0/24` } } });
  hub = new ConsoleHub(
    {
      client: sc.client,
      admin: sc.admin,
      subscribe,
      cluster: undefined,
      options: { name: 'hub-test', runtime: 'local', lbStrategy: 'lb' },
      addWorker: () => Promise.reject(new Error('no workers in this test')),
    },
    { cloudIntervalMs: 60_000 },
  );
  await hub.start();
  rec = await recordSimEvents(sc);
  scenario = await runCloudScenario(sc, rec, {});
  // The hub has seen the whole run once its timeline holds the run's last server change.
  const last = `server ${scenario.serverName} deleted`;
  await waitFor(() => hub.timeline.list().some((e) => e.title === last), {
    description: `the hub's timeline to say "${last}"`,
    timeoutMs: 15_000,
    intervalMs: 20,
  });
}, 60_000);
afterAll(async () => {
  hub?.stop();
  rec?.stop();
  await sc?.stop();
});

describe('ConsoleHub on a real event stream', () => {
  it('puts the target health changes on the timeline under the Service, as cloud changes', () => {
    const health = hub.timeline.list().filter((e) => e.title.includes(`target ${scenario.serverId}`));
    expect(health.map((e) => [e.source, e.group, e.title.split(' ').at(-1)])).toEqual([
      [EntrySource.cloudChange, 'Service/default/web', 'healthy'],
      [EntrySource.cloudChange, 'Service/default/web', 'unhealthy'],
    ]);
  });

  it('explains the load balancer becoming active with its VIP, and groups its calls under the Service', () => {
    const entries = hub.timeline.list();
    const active = entries.find((e) => e.title.startsWith(`load balancer ${scenario.loadBalancerId}:`) && e.title.endsWith('→ active'));
    expect(active?.explanation).toMatch(/is active: its VIP 127\.\d+\.\d+\.\d+ accepts traffic/);
    expect(entries.every((e) => !/ is \.|→\s*$/.test(`${e.title} ${e.explanation}`))).toBe(true);
  });
});
