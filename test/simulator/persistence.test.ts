// Persistence of a real simcloud process: kill -9 during a burst of writes, restart on the same file:
// every acknowledged write is there, nothing that was never sent appears, and the file parses.
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { crashKit } from './support.ts';

const kit = crashKit('simcloud-persist-');
afterAll(() => kit.cleanUp());

describe('persistence', () => {
  for (const round of [1, 2, 3]) {
    it(`keeps every acknowledged write across kill -9 during a burst (round ${round})`, async () => {
      const dataPath = await kit.stateFile();
      const first = await kit.start(dataPath);
      const acked = new Set<string>();
      const attempted = new Set<string>();
      let stop = false;
      let n = 0;
      const worker = async () => {
        while (!stop) {
          const name = `g-${round}-${n++}`;
          attempted.add(name);
          try {
            await first.client.serverGroups.create({ name, labels: { burst: String(round) } });
            acked.add(name);
          } catch {
            return; // the process died under us
          }
        }
      };
      const workers = Array.from({ length: 32 }, () => worker());
      // Kill once enough writes were acknowledged (however loaded the machine is), mid-burst.
      const deadline = Date.now() + 20_000;
      while (acked.size < 100 * round && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await first.kill9();
      stop = true;
      await Promise.all(workers);
      expect(acked.size).toBeGreaterThan(50);

      const raw = await readFile(dataPath, 'utf8');
      expect(() => void JSON.parse(raw)).not.toThrow();
      // The new process must accept the old project's token: pass the same one.
      const second = await kit.start(dataPath, first.token);
      const present = new Set((await second.client.serverGroups.listAll({ label_selector: `burst=${round}` })).map((g) => g.name));
      const lost = [...acked].filter((a) => !present.has(a));
      const invented = [...present].filter((p) => !attempted.has(p));
      expect(lost).toEqual([]);
      expect(invented).toEqual([]);
      await second.stop();
      const after = JSON.parse(await readFile(dataPath, 'utf8')) as { server_groups: Record<string, unknown> };
      expect(Object.keys(after.server_groups).length).toBe(present.size);
    }, 60_000);
  }

  it('keeps state across a clean restart, including running actions', async () => {
    const dataPath = await kit.stateFile();
    const first = await kit.start(dataPath);
    const net = await first.client.networks.create({ name: 'kept' });
    const { server, action } = await first.client.servers.create({
      name: 'kept',
      server_type: 'sc-small',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      networks: [net.id],
    });
    await first.stop();
    const second = await kit.start(dataPath, first.token);
    expect((await second.client.networks.get(net.id)).servers).toEqual([server.id]);
    expect((await second.client.waitForAction(action.id)).status).toBe('success');
    expect((await second.client.servers.get(server.id)).status).toBe('running');
  }, 60_000);
});
