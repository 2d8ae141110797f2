/**
 * Start simcloud for tests: `startSimcloudProcess` runs the real CLI (`simcloud serve --port 0`) through the
 * sandbox's one launcher (tokens in the environment, log in a temp dir, reaped if the test process dies);
 * `startSimcloudInProcess` runs the same server inside the test process (faster, memory store by default).
 * Both return typed clients for the project and the admin surface.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExec, type ManagedProcess } from '../../sandbox/exec.ts';
import { startSimcloudProcess as launchSimcloud } from '../../sandbox/processes.ts';
import { claimLoopbackAddressPlan, type AddressPlan } from '../../sandbox/cloud/address-plan.ts';
import { SimcloudAdminClient, SimcloudClient, type SimcloudClientOptions } from '../../simulator/api/client/index.ts';
import type { V1Node } from '@kubernetes/client-node';
import type { Server } from '../../simulator/api/schema/index.ts';
import type { SeedName } from '../../simulator/api/schema/internal.ts';
import { toProviderId } from '../../src/simcloud/provider-id.ts';
import type { SimConfigInput } from '../../simulator/server/config.ts';
import type { Sim } from '../../simulator/server/context.ts';
import { startSimcloud } from '../../simulator/server/server.ts';
import { PERSONAS } from '../../simulator/personas/registry.ts';

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
  readonly process: ManagedProcess;
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

function clients(
  url: string,
  token: string,
  adminToken: string,
  extra: Partial<SimcloudClientOptions> = {},
): Pick<SimcloudHandle, 'client' | 'admin' | 'clientFor'> {
  const base = { endpoint: url, caller: 'test', ...extra };
  return {
    client: new SimcloudClient({ ...base, token }),
    admin: new SimcloudAdminClient({ ...base, token: adminToken }),
    clientFor: (t, opts) => new SimcloudClient({ ...base, ...opts, token: t }),
  };
}

const secret = (prefix: string): string => `${prefix}-${randomBytes(12).toString('hex')}`;

export async function startSimcloudProcess(opts: ProcessOptions = {}): Promise<SimcloudProcess> {
  const token = opts.token ?? secret('test-token');
  const adminToken = opts.adminToken ?? secret('test-admin');
  const stateDir = mkdtempSync(join(tmpdir(), 'simcloud-test-'));
  const extraArgs = ['--quiet', ...(opts.seed === undefined ? [] : [`--seed=${opts.seed}`]), ...(opts.args ?? [])];
  try {
    const sim = await launchSimcloud({
      exec: createExec(),
      stateDir,
      token,
      adminToken,
      extraArgs,
      dataPath: opts.dataPath ?? null,
      ...(opts.env ? { env: opts.env } : {}),
    });
    const end = async (how: () => Promise<void>): Promise<void> => {
      await how();
      rmSync(stateDir, { recursive: true, force: true });
    };
    return {
      url: sim.url,
      token,
      adminToken,
      process: sim.process,
      ...clients(sim.url, token, adminToken, opts.clientOptions),
      stop: () => end(() => sim.process.stop()),
      kill9: () =>
        end(async () => {
          sim.process.kill('SIGKILL');
          await sim.process.exited;
        }),
    };
  } catch (err) {
    rmSync(stateDir, { recursive: true, force: true });
    throw err;
  }
}

export interface InProcessOptions {
  dataPath?: string;
  seed?: SeedName;
  /** Server configuration; defaults here: no data plane, short transition delays, no access log. */
  config?: SimConfigInput;
  clientOptions?: Partial<SimcloudClientOptions>;
  /** The wall clock OAuth2 access tokens expire on (simcloud's time control leaves it alone). */
  wallNow?: () => number;
}

export interface InProcessSimcloud extends SimcloudHandle {
  sim: Sim;
}

/** Short transitions so actions finish within tens of milliseconds. */
export const FAST_DELAYS = {
  server: { delay_ms: 20, jitter_ms: 0 },
  load_balancer: { delay_ms: 20, jitter_ms: 0 },
  network: { delay_ms: 5, jitter_ms: 0 },
};

export interface OwnPlanSimcloud extends InProcessSimcloud {
  /** The loopback pools this simcloud hands out (a claimed address plan: no other sandbox or test uses them). */
  readonly pools: AddressPlan['pools'];
}

/**
 * An in-process simcloud with its data plane on, on a loopback address plan claimed for it (released at
 * stop), so its VIPs and node addresses never meet a sandbox or another test file running beside it.
 */
export async function startSimcloudOnOwnPlan(opts: InProcessOptions = {}): Promise<OwnPlanSimcloud> {
  const lease = claimLoopbackAddressPlan();
  try {
    const sc = await startSimcloudInProcess({ ...opts, config: { dataplane: true, ...opts.config, pools: lease.plan.pools } });
    return { ...sc, pools: lease.plan.pools, stop: () => sc.stop().finally(lease.release) };
  } catch (err) {
    lease.release();
    throw err;
  }
}

export async function startSimcloudInProcess(opts: InProcessOptions = {}): Promise<InProcessSimcloud> {
  const token = secret('test-token');
  const adminToken = secret('test-admin');
  const pino = (await import('pino')).default;
  const running = await startSimcloud({
    port: 0,
    dataPath: opts.dataPath,
    seed: opts.seed,
    ...(opts.wallNow ? { wallNow: opts.wallNow } : {}),
    logger: pino({ level: process.env.SIMCLOUD_LOG_LEVEL ?? 'silent' }),
    personas: PERSONAS,
    config: { dataplane: false, accessLog: false, delays: FAST_DELAYS, ...opts.config, adminToken, bootstrap: { token } },
  });
  return { url: running.url, token, adminToken, sim: running.sim, ...clients(running.url, token, adminToken, opts.clientOptions), stop: () => running.close() };
}

/**
 * Running servers named `names` (sc-small in sim-1a, attached to `networks`), each with the Node that would
 * register for it (providerID set).
 */
export async function runningServersAsNodes(
  client: SimcloudClient,
  names: readonly string[],
  opts: { networks?: string[] } = {},
): Promise<{ servers: Server[]; nodes: V1Node[] }> {
  const servers: Server[] = [];
  for (const name of names) {
    const { server, action } = await client.servers.create({
      name,
      server_type: 'sc-small',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      ...(opts.networks ? { networks: opts.networks } : {}),
    });
    await client.waitForAction(action.id);
    servers.push(server);
  }
  return { servers, nodes: servers.map((s) => ({ metadata: { name: s.name }, spec: { providerID: toProviderId(s.id) } })) };
}
