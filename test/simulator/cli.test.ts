// The simcloud CLI against a real process: table and JSON output, usage errors exit 2 with one line.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { startContractProcess } from './support.ts';

const CLI = fileURLToPath(new URL('../../simulator/cli/main.ts', import.meta.url));
let sc: SimcloudProcess;
beforeAll(async () => {
  sc = await startContractProcess(['--seed', 'demo']);
});
afterAll(async () => {
  await sc?.stop();
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, SIMCLOUD_URL: sc.url, SIMCLOUD_TOKEN: sc.token, SIMCLOUD_ADMIN_TOKEN: sc.adminToken };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('simcloud CLI', () => {
  it('lists servers as a table and as JSON', async () => {
    const table = await cli('server', 'list');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(table.stdout).toContain('node-1');
    const json = JSON.parse((await cli('server', 'list', '--json')).stdout) as { name: string }[];
    expect(json.map((s) => s.name)).toEqual(['node-1', 'node-2', 'node-3']);
  });

  it('creates a server, runs every power verb and deletes it; manages faults; shows routes', async () => {
    const created = JSON.parse((await cli('server', 'create', '--name', 'cli-1', '--label', 'a=b', '--json')).stdout) as {
      server: { id: string };
      action: { id: string };
    };
    await sc.client.waitForAction(created.action.id);
    for (const [verb, status] of [
      ['shutdown', 'off'],
      ['poweron', 'running'],
      ['reboot', 'running'],
      ['poweroff', 'off'],
    ] as const) {
      const r = await cli('server', verb, created.server.id, '--json');
      expect(r.code, verb).toBe(0);
      await sc.client.waitForAction((JSON.parse(r.stdout) as { id: string }).id);
      expect((await sc.client.servers.get(created.server.id)).status, verb).toBe(status);
    }
    expect((await cli('server', 'delete', created.server.id)).code).toBe(0);
    expect((await cli('faults', 'add', '--kind', 'latency', '--latency-ms', '1', '--path', '/v1/zones')).code).toBe(0);
    expect((await cli('faults', 'list')).stdout).toContain('latency');
    expect((await cli('faults', 'clear')).code).toBe(0);
    const [net] = await sc.client.networks.listAll();
    expect((await cli('network', 'routes', net!.id)).stdout.split('\n')[0]).toMatch(/^ID\s+DESTINATION/);
    expect((await cli('ipblock', 'list')).code).toBe(0);
    expect((await cli('lb', 'list')).code).toBe(0);
  });

  it('serve --pool moves an address pool', async () => {
    const other = await startContractProcess(['--pool', 'lb_vip=127.55.0.0/24', '--pool', 'server_public=127.56.0.0/24']);
    try {
      const { server } = await other.client.servers.create({ name: 'p1', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' });
      expect(server.public_ipv4).toBe('127.56.0.1');
      const { load_balancer: lb } = await other.client.loadBalancers.create({ name: 'p1' });
      expect(lb.public_ipv4).toBe('127.55.0.1');
    } finally {
      await other.stop();
    }
  });

  it("serve --faults holds the file's rules from the first request", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simcloud-faults-'));
    try {
      const file = join(dir, 'faults.json');
      await writeFile(
        file,
        JSON.stringify({ faults: [{ kind: 'error', match: { method: 'GET', path: '/v1/zones' }, status: 503, code: 'service_unavailable' }] }),
      );
      const other = await startContractProcess(['--faults', file]);
      try {
        await expect(other.client.catalogue.zones()).rejects.toMatchObject({ status: 503 });
        expect((await other.admin.listFaults()).map((f) => [f.kind, f.fired])).toEqual([['error', 1]]);
      } finally {
        await other.stop();
      }
      await writeFile(file, JSON.stringify({ faults: [{ kind: 'latency' }] }));
      const bad = await cli('serve', '--port', '0', '--faults', file);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toContain('faults.0.latency_ms');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 with one line on usage errors and 1 on API errors', async () => {
    for (const args of [
      ['server', 'bogus'],
      ['nothing'],
      ['server', 'list', '--nope'],
      ['faults', 'add', '--kind', 'weird'],
      ['lb', 'show'],
      ['serve', '--port', 'x'],
      ['serve', '--pool', 'lb_vip=bad'],
      ['server', 'list', '--token', 'sbx-1\nsbx-1'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const missing = await cli('lb', 'show', 'lb-00000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not_found');
  });
});
