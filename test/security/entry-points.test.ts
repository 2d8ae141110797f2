// The entry points that start a surface: `simcloud serve` (generated tokens printed once on stdout, never
// in its log; no fixed default token; a non-loopback bind refused without explicit tokens; bad
// --allowed-host and seed names refused with exit 2; data files owner-only; tokens never on the command
// line of a simcloud the launcher starts) and the CCM's /healthz,
// /metrics and /configz server (Host check over HTTP and HTTPS, --allowed-host, bad values refused).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createExec } from '../../sandbox/exec.ts';
import { startSimcloudProcess } from '../../sandbox/processes.ts';
import { loadConfig } from '../../src/config/load.ts';
import { startServing } from '../../src/serving.ts';
import { hostileHosts, loopbackHosts, raw } from './support.ts';

const CLI = fileURLToPath(new URL('../../simulator/cli/main.ts', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const cleanEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env = { ...process.env, ...extra };
  for (const k of ['SIMCLOUD_TOKEN', 'SIMCLOUD_ADMIN_TOKEN', 'SIMCLOUD_ALLOWED_HOSTS', 'SIMCLOUD_URL']) if (!(k in extra)) delete env[k];
  return env;
};

/**
 * Runs the simcloud CLI. With `whileUp`, waits for the whole start-up print (`done` says when it is
 * complete), runs `whileUp` against the URL, then stops the server; otherwise waits for the exit.
 */
async function simcloud(
  args: string[],
  env: Record<string, string> = {},
  up?: { done: RegExp; whileUp: (url: string, stdout: string) => Promise<void> },
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(child, 'exit');
  if (up) {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const m = /listening on (\S+)\n/.exec(stdout);
        if (m && up.done.test(stdout)) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`simcloud exited: ${stderr}`)));
    });
    try {
      await up.whileUp(url, stdout);
    } finally {
      child.kill('SIGTERM');
    }
  }
  const [code] = (await exited) as [number | null];
  return { code, stdout, stderr };
}

const auth = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });

describe('simcloud serve', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('generates random tokens, prints them once on stdout and never in its log; the old fixed defaults get 401', async () => {
    const seen: string[] = [];
    const run = await simcloud(
      ['serve', '--port', '0', '--no-dataplane'],
      {},
      {
        done: /admin token: \S+\n/,
        whileUp: async (url, stdout) => {
          const project = /project token: (simcloud-[\w-]{43})\n/.exec(stdout)?.[1];
          const admin = /admin token: (simcloud-admin-[\w-]{43})\n/.exec(stdout)?.[1];
          expect(project).toBeDefined();
          expect(admin).toBeDefined();
          seen.push(project!, admin!);
          expect((await raw(`${url}/v1/servers`, { headers: auth(project!) })).status).toBe(200);
          expect((await raw(`${url}/_sim/faults`, { headers: auth(admin!) })).status).toBe(200);
          expect((await raw(`${url}/v1/servers`, { headers: auth('simcloud-default-project-token') })).status).toBe(401);
          expect((await raw(`${url}/_sim/faults`, { headers: auth('simcloud-admin-token') })).status).toBe(401);
        },
      },
    );
    expect(run.stdout.match(/token:/g)).toHaveLength(2);
    for (const t of seen) expect(run.stderr).not.toContain(t);
    // A second run gets other tokens.
    const again = await simcloud(['serve', '--port', '0', '--no-dataplane', '--quiet'], {}, { done: /admin token: \S+\n/, whileUp: () => Promise.resolve() });
    for (const t of seen) expect(again.stdout).not.toContain(t);
  });

  it('prints no token it was given (flags or environment), and takes --allowed-host and SIMCLOUD_ALLOWED_HOSTS', async () => {
    const token = `given-${'p'.repeat(24)}`;
    const admin = `given-${'a'.repeat(24)}`;
    const run = await simcloud(
      ['serve', '--port', '0', '--no-dataplane', '--allowed-host', 'one.dev.test', '--admin-token', admin],
      { SIMCLOUD_TOKEN: token, SIMCLOUD_ALLOWED_HOSTS: 'two.dev.test:8443' },
      {
        done: /listening on \S+\n/,
        whileUp: async (url) => {
          const port = new URL(url).port;
          expect((await raw(`${url}/v1/servers`, { headers: auth(token), host: `one.dev.test:${port}` })).status).toBe(200);
          expect((await raw(`${url}/v1/servers`, { headers: auth(token), host: 'two.dev.test:8443' })).status).toBe(200);
          expect((await raw(`${url}/v1/servers`, { headers: auth(token), host: 'two.dev.test:8444' })).status).toBe(403);
        },
      },
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    expect(`${run.stdout}${run.stderr}`).not.toContain(admin);
    expect(run.stdout).not.toContain('token:');
  });

  it('refuses with exit 2 and one line: a non-loopback bind without both tokens, bad --allowed-host values, seed names that are not seeds', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve', '--host', '0.0.0.0'], {}, /--host 0\.0\.0\.0 is reachable from other machines: pass --token and --admin-token/],
      [['serve', '--host', '::'], { SIMCLOUD_TOKEN: `t-${'x'.repeat(20)}` }, /--host :: is reachable from other machines/],
      [['serve', '--host', '192.0.2.1', '--token', `t-${'x'.repeat(20)}`], {}, /reachable from other machines/],
      [['serve', '--allowed-host', '*'], {}, /--allowed-host takes a host name or NAME:PORT \(no scheme, no wildcard\), got "\*"/],
      [['serve', '--allowed-host', 'http://evil.test'], {}, /--allowed-host takes a host name/],
      [['serve'], { SIMCLOUD_ALLOWED_HOSTS: 'ok.test,bad host' }, /got "bad host"/],
      [['serve', '--seed', '../../etc/passwd'], {}, /--seed must be one of empty, demo, ip-pool-nearly-exhausted/],
      [['serve', '--seed', 'constructor'], {}, /--seed must be one of/],
      [['server', 'list', '--url', 'http://127.0.0.1:9'], {}, /no token: pass --token or set SIMCLOUD_TOKEN/],
    ];
    for (const [args, env, message] of cases) {
      const r = await simcloud(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).not.toContain('listening');
    }
  });

  it('creates its data directory 0700 and the data file and journal 0600', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sec-data-'));
    dirs.push(root);
    const data = join(root, 'new', 'db.json');
    await simcloud(['serve', '--port', '0', '--no-dataplane', '--data', data, '--quiet'], {}, { done: /admin token: \S+\n/, whileUp: () => Promise.resolve() });
    expect(statSync(join(root, 'new')).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(root, 'new'));
    expect(files).toEqual(expect.arrayContaining(['db.json', expect.stringMatching(/^db\.json\.wal-/)]));
    for (const f of files) expect(statSync(join(root, 'new', f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('simcloud started by the launcher (sandbox, bench, tests)', () => {
  it('carries its tokens in its environment, which other users cannot read, never on its command line (ps)', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'sec-launch-'));
    const token = `launch-${'p'.repeat(24)}`;
    const adminToken = `launch-${'a'.repeat(24)}`;
    const sim = await startSimcloudProcess({ exec: createExec(), stateDir, token, adminToken, dataPath: null, extraArgs: ['--no-dataplane', '--quiet'] });
    try {
      const argv = readFileSync(`/proc/${sim.process.pid}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${sim.process.pid}/environ`, 'utf8').split('\0');
      expect(argv).toContain('serve');
      expect(argv).not.toContain(token);
      expect(argv).not.toContain(adminToken);
      expect(environ).toEqual(expect.arrayContaining([`SIMCLOUD_TOKEN=${token}`, `SIMCLOUD_ADMIN_TOKEN=${adminToken}`]));
      expect((await raw(`${sim.url}/v1/servers`, { headers: auth(token) })).status).toBe(200);
    } finally {
      await sim.process.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe("the CCM's health and metrics server", () => {
  const checks = (): ReadonlyMap<string, () => string | undefined> => new Map([['cloud-node-controller', () => undefined]]);
  const metrics = (): Promise<{ contentType: string; body: string }> => Promise.resolve({ contentType: 'text/plain', body: 'ccm_up 1\n' });

  for (const tls of [false, true]) {
    it(`refuses rebinding Host headers with 403 JSON and serves loopback and --allowed-host names (${tls ? 'HTTPS' : 'HTTP'})`, async () => {
      const s = await startServing({
        bindAddress: '127.0.0.1',
        port: 0,
        tls,
        checks,
        metrics,
        configz: () => ({ token: '<redacted>' }),
        allowedHosts: ['ccm.dev.test'],
      });
      try {
        for (const path of ['/healthz', '/healthz/cloud-node-controller', '/metrics', '/configz']) {
          for (const host of hostileHosts(s.port)) {
            const r = await raw(`${s.url}${path}`, { host });
            expect(r.status, `${host} ${path}`).toBe(403);
            expect(r.json()).toMatchObject({
              error: 'forbidden_host',
              field: 'host',
              allowed_hosts: [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `[::1]:${s.port}`, 'ccm.dev.test'],
            });
            expect(r.text).not.toContain('ccm_up');
          }
          for (const host of [...loopbackHosts(s.port), 'ccm.dev.test']) expect((await raw(`${s.url}${path}`, { host })).status, `${host} ${path}`).toBe(200);
        }
      } finally {
        await s.close();
      }
    });
  }

  it('takes --allowed-host and CCM_ALLOWED_HOSTS, refusing a wildcard or a URL naming the setting', () => {
    const base = { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:1', SIMCLOUD_TOKEN: 'sbx-0123456789abcdef' };
    expect(loadConfig({ argv: ['--allowed-host=A.test,b.test:81'], env: base }).allowedHosts).toEqual(['a.test', 'b.test:81']);
    expect(loadConfig({ argv: [], env: { ...base, CCM_ALLOWED_HOSTS: 'c.test' } }).allowedHosts).toEqual(['c.test']);
    expect(() => loadConfig({ argv: ['--allowed-host=*'], env: base })).toThrow(/--allowed-host.*must be host names or NAME:PORT/);
    expect(() => loadConfig({ argv: [], env: { ...base, CCM_ALLOWED_HOSTS: 'http://x.test' } })).toThrow(/CCM_ALLOWED_HOSTS.*must be host names/);
  });
});
