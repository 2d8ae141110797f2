// Two named sandboxes side by side, brought up the way a user does (`sandbox:up --name a` and `--name b` at
// once, each a detached daemon): each claims a loopback address plan of its own, so their nodes' addresses
// are disjoint, no process of either logs "address already in use", and both initialise their nodes.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimcloudClient } from '../../simulator/api/client/client.ts';
import { createExec } from '../../sandbox/exec.ts';
import { readState, REPO_ROOT, stateDir } from '../../sandbox/state.ts';

const root = mkdtempSync(join(tmpdir(), 'ccm-two-sandboxes-'));
const env = { ...process.env, CCM_SANDBOX_STATE_DIR: root };
const exec = createExec();
const cli = (...args: string[]) =>
  exec.run(process.execPath, [join(REPO_ROOT, 'sandbox/cli/main.ts'), ...args], { cwd: REPO_ROOT, env, allowFailure: true, timeoutMs: 300_000 });
const NAMES = ['a', 'b'] as const;

afterAll(async () => {
  for (const name of NAMES) await cli('down', `--name=${name}`);
  rmSync(root, { recursive: true, force: true });
});

/** Every log line of a sandbox (its daemon's and each process's) that reports a port taken. */
function addressInUse(name: string): string[] {
  const dir = stateDir(name, env);
  const logs = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log'));
  return logs.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => /address already in use|EADDRINUSE/i.test(l))
      .map((l) => `${f}: ${l}`),
  );
}

/** The public addresses of a sandbox's servers, through its simcloud. */
async function serverAddresses(name: string): Promise<string[]> {
  const sim = readState(stateDir(name, env))?.simcloud;
  if (!sim) throw new Error(`sandbox ${name} has no simcloud in its state`);
  const servers = await new SimcloudClient({ endpoint: sim.url, token: sim.token, caller: 'ccm-sandbox test' }).servers.listAll();
  return servers.map((s) => s.public_ipv4 ?? '').filter((ip) => ip !== '');
}

describe('sandbox:up --name a and --name b at once', () => {
  it('gives each its own addresses, logs no "address already in use", and brings both up', async () => {
    const ups = await Promise.all(NAMES.map((name) => cli('up', `--name=${name}`, '--workers=1', '--runtime=local')));
    ups.forEach((r, i) => expect(r.exitCode, `${NAMES[i]}: ${r.stdout}${r.stderr}`).toBe(0));
    for (const r of ups) expect(r.stdout).toMatch(/ready|kubeconfig/i);
    const [a, b] = await Promise.all(NAMES.map(serverAddresses));
    expect(a!.length).toBeGreaterThan(0);
    expect(b!.length).toBeGreaterThan(0);
    expect(a!.filter((ip) => b!.includes(ip))).toEqual([]);
    expect(NAMES.flatMap(addressInUse)).toEqual([]);
  }, 600_000);
});
