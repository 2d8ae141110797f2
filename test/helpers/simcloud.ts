/**
 * Start simcloud for tests: `startSimcloudProcess` spawns the real CLI (`simcloud serve --port 0`) and
 * parses the URL it prints; `startSimcloudInProcess` runs the same server inside the test process
 * (faster, memory store by default). Both return typed clients for the project and the admin surface.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { SimcloudAdminClient, SimcloudClient, type SimcloudClientOptions } from '../../simulator/api/client/index.ts';
import type { SeedName } from '../../simulator/api/schema/internal.ts';
import type { SimConfigInput } from '../../simulator/server/config.ts';
import type { Sim } from '../../simulator/server/context.ts';
import { startSimcloud } from '../../simulator/server/server.ts';

const CLI = fileURLToPath(new URL('../../simulator/cli/main.ts', import.meta.url));

export interface SimcloudHandle {
  url: string;
  token: string;
  adminToken: string;
  client: SimcloudClient;
  admin: SimcloudAdminClient;
  /** A client for another token (e.g. of a second project). */
  clientFor(token: string, opts?: Partial<SimcloudClientOptions>): SimcloudClient;
  stop(): Promise<void>;
}

export interface SimcloudProcess extends SimcloudHandle {
  child: ChildProcess;
  /** Everything the process wrote to stderr so far (logs). */
  output(): string;
  /** SIGKILL, no clean-up: for crash tests. */
  kill9(): Promise<void>;
}

export interface ProcessOptions {
  dataPath?: string;
  /** Project and admin tokens (random when absent); reuse them to restart on the same data file. */
  token?: string;
  adminToken?: string;
  seed?: string;
  env?: Record<string, string>;
  /** Extra `serve` flags. */
  args?: string[];
  /** Client options (retry, timeout) for the returned clients. */
  clientOptions?: Partial<SimcloudClientOptions>;
}

function clients(url: string, token: string, adminToken: string, extra: Partial<SimcloudClientOptions> = {}): Pick<SimcloudHandle, 'client' | 'admin' | 'clientFor'> {
  const base = { endpoint: url, caller: 'test', ...extra };
  return {
    client: new SimcloudClient({ ...base, token }),
    admin: new SimcloudAdminClient({ ...base, token: adminToken }),
    clientFor: (t, opts) => new SimcloudClient({ ...base, ...opts, token: t }),
  };
}

const secret = (prefix: string): string => `${prefix}-${randomBytes(12).toString('hex')}`;

function waitForUrl(child: ChildProcess, errors: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`simcloud did not start within 30 s:\n${errors()}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /simcloud listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`simcloud exited with ${code} before listening:\n${errors()}`));
    });
  });
}

export async function startSimcloudProcess(opts: ProcessOptions = {}): Promise<SimcloudProcess> {
  const token = opts.token ?? secret('test-token');
  const adminToken = opts.adminToken ?? secret('test-admin');
  const args = [CLI, 'serve', '--port', '0', '--token', token, '--admin-token', adminToken, '--quiet'];
  if (opts.dataPath !== undefined) args.push('--data', opts.dataPath);
  if (opts.seed !== undefined) args.push('--seed', opts.seed);
  args.push(...(opts.args ?? []));
  const child = spawn(process.execPath, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await waitForUrl(child, () => stderr);
  const exited = once(child, 'exit');
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return {
    url, token, adminToken, child, ...clients(url, token, adminToken, opts.clientOptions),
    output: () => stderr,
    stop: () => stopWith('SIGTERM'),
    kill9: () => stopWith('SIGKILL'),
  };
}

export interface InProcessOptions {
  dataPath?: string;
  seed?: SeedName;
  /** Server configuration; defaults here: no data plane, short transition delays, no access log. */
  config?: SimConfigInput;
  clientOptions?: Partial<SimcloudClientOptions>;
}

export interface InProcessSimcloud extends SimcloudHandle {
  sim: Sim;
}

/** Short transitions so actions finish within tens of milliseconds. */
export const FAST_DELAYS = {
  server: { delay_ms: 20, jitter_ms: 0 }, load_balancer: { delay_ms: 20, jitter_ms: 0 }, network: { delay_ms: 5, jitter_ms: 0 },
};

export async function startSimcloudInProcess(opts: InProcessOptions = {}): Promise<InProcessSimcloud> {
  const token = secret('test-token');
  const adminToken = secret('test-admin');
  const pino = (await import('pino')).default;
  const running = await startSimcloud({
    port: 0, dataPath: opts.dataPath, seed: opts.seed, logger: pino({ level: process.env.SIMCLOUD_LOG_LEVEL ?? 'silent' }),
    config: { dataplane: false, accessLog: false, delays: FAST_DELAYS, ...opts.config, adminToken, bootstrap: { token } },
  });
  return { url: running.url, token, adminToken, sim: running.sim, ...clients(running.url, token, adminToken, opts.clientOptions), stop: () => running.close() };
}
