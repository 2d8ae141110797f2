// Shared set-up of the simcloud contract tests: a real `simcloud serve` process on port 0 with short
// transitions and no data plane, plus request builders with unique names.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimcloudApiError } from '../../simulator/api/client/index.ts';
import type { CreateLoadBalancerRequest, LoadBalancerService } from '../../simulator/api/schema/load-balancers.ts';
import type { CreateServerRequest } from '../../simulator/api/schema/servers.ts';
import { startSimcloudProcess, type SimcloudProcess } from '../helpers/simcloud.ts';

/**
 * A name no other test run makes: the prefix and 8 hex digits, at least one a letter. Eight decimal digits would
 * make it a simcloud id's shape (`tg-69475008`), which personas rewrite in messages into their own ids.
 */
export const unique = (prefix: string): string => {
  const hex = randomBytes(4).toString('hex');
  return `${prefix}-${/^\d+$/.test(hex) ? `a${hex.slice(1)}` : hex}`;
};

export function startContractProcess(extra: string[] = []): Promise<SimcloudProcess> {
  return startSimcloudProcess({ args: ['--delay-ms', '15', '--no-dataplane', ...extra], clientOptions: { retry: { maxRetries: 0 } } });
}

/** Crash tests' processes on a state file in a temp dir: `start` (again with the first one's token to restart), `cleanUp` in afterAll. */
export interface CrashKit {
  stateFile(): Promise<string>;
  start(dataPath: string, token?: string): Promise<SimcloudProcess>;
  cleanUp(): Promise<void>;
}

export function crashKit(prefix: string): CrashKit {
  const dirs: string[] = [];
  const procs: SimcloudProcess[] = [];
  return {
    stateFile: async () => {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return join(dir, 'state.json');
    },
    start: async (dataPath, token) => {
      const p = await startSimcloudProcess({
        dataPath,
        token,
        args: ['--delay-ms', '5', '--no-dataplane'],
        clientOptions: { retry: { maxRetries: 0 }, timeoutMs: 5000 },
      });
      procs.push(p);
      return p;
    },
    cleanUp: async () => {
      for (const p of procs) await p.stop().catch(() => undefined);
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    },
  };
}

export const serverBody = (over: Partial<CreateServerRequest> = {}): CreateServerRequest => ({
  name: unique('srv'),
  server_type: 'sc-small',
  image: 'ubuntu-24.04',
  zone: 'sim-1a',
  ...over,
});

export const tcpService = (listen: number, dest: number, over: Partial<LoadBalancerService> = {}): LoadBalancerService => ({
  protocol: 'tcp',
  listen_port: listen,
  destination_port: dest,
  proxy_protocol: 'none',
  health_check: { protocol: 'tcp', port: null, path: '/', interval_seconds: 0.1, timeout_seconds: 0.5, retries: 1 },
  ...over,
});

export const lbBody = (over: Partial<CreateLoadBalancerRequest> = {}): CreateLoadBalancerRequest => ({
  name: unique('lb'),
  services: [tcpService(80, 8080)],
  ...over,
});

/** Runs `fn`, expecting a SimcloudApiError; returns it. */
export async function apiError(fn: () => Promise<unknown>): Promise<SimcloudApiError> {
  try {
    await fn();
  } catch (err) {
    if ((err as { name?: string }).name === 'SimcloudApiError') return err as SimcloudApiError;
    throw err;
  }
  throw new Error('expected a SimcloudApiError');
}

/** A TCP server on ip:port answering `name` to every connection, recording the first bytes of each; `stop` closes it. */
export function tcpBackend(ip: string, port: number, name: string): Promise<{ received: string[]; stop: () => void }> {
  const received: string[] = [];
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', (d: Buffer) => {
      received.push(d.toString());
      s.end(`${name}\n`);
    });
  });
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, ip, () => resolve({ received, stop: () => server.close() })));
}

/** Sends a line to ip:port and resolves with the trimmed reply ('' when refused, reset or silent for 3 s). */
export function tcpAsk(ip: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const s = net.connect({ host: ip, port }, () => s.write('hello\n'));
    s.on('data', (d) => (data += d.toString()));
    s.on('close', () => resolve(data.trim()));
    s.on('error', () => resolve(data.trim()));
    s.setTimeout(3000, () => s.destroy());
  });
}
