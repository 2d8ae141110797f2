/**
 * startSimcloud: opens the store, bootstraps the default project and token, builds the app, starts
 * the data plane and listens. The only place (with the CLI) that touches the network and files.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { SeedName } from '../api/schema/internal.ts';
import { createApp, type SimApp } from './app.ts';
import { SimClock } from './clock.ts';
import { parseConfig, type SimConfig, type SimConfigInput } from './config.ts';
import type { Sim } from './context.ts';
import { DataplaneSync } from './dataplane-sync.ts';
import * as internal from './internal/service.ts';
import { createSimLogger } from './logger.ts';
import { LowdbStore } from './store/lowdb-store.ts';
import { emptyState } from './store/state.ts';
import type { EventBus } from './events.ts';
import type { TargetView } from './targets.ts';
import type { Persona } from './persona.ts';

export interface StartOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** State file; absent = in memory. */
  dataPath?: string;
  /** Seed applied when the store has no resources yet. */
  seed?: SeedName;
  config?: SimConfigInput;
  logger?: Logger;
  /** The personas to serve besides /v1 (the entry point passes the registration list); none when absent. */
  personas?: readonly Persona[];
  /** The wall clock (SimClock's wallNow), for tests that move it; Date.now when absent. */
  wallNow?: () => number;
}

export interface RunningSimcloud {
  url: string;
  port: number;
  config: SimConfig;
  sim: Sim;
  app: SimApp['app'];
  /** The bootstrap project's token. */
  token: string;
  close(): Promise<void>;
}

async function bootstrap(sim: Sim): Promise<void> {
  const { project, token } = sim.config.bootstrap;
  let p = sim.store.all('projects').find((x) => x.name === project);
  p ??= await internal.createProject(sim, project);
  if (!sim.store.all('tokens').some((t) => t.secret === token)) await internal.createToken(sim, p.id, { name: 'bootstrap', token });
}

const hasResources = (sim: Sim): boolean =>
  ['servers', 'networks', 'load_balancers', 'ip_blocks', 'server_groups', 'firewall_policies'].some(
    (c) => Object.keys(sim.store.state[c as 'servers']).length > 0,
  );

function listen(app: SimApp['app'], host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.keepAliveTimeout = 65_000;
  });
}

/** The URL clients use: a wildcard bind is reached through loopback. */
function urlFor(bindHost: string, port: number): string {
  const host = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function build(opts: StartOptions): Promise<{ sim: Sim; app: SimApp['app']; sync: DataplaneSync | undefined }> {
  const config = parseConfig(opts.config);
  const logger = opts.logger ?? createSimLogger(process.env.SIMCLOUD_LOG_LEVEL ?? 'info');
  const location = opts.dataPath === undefined ? { kind: 'memory' as const } : { kind: 'file' as const, path: opts.dataPath };
  const store = await LowdbStore.open({ location, initial: () => emptyState(config.pools) });
  let sync: DataplaneSync | undefined;
  const makeSync = ({ targets, events }: { targets: TargetView; events: EventBus }): DataplaneSync =>
    (sync = new DataplaneSync({ store, targets, events, logger }));
  const { app, sim } = createApp({
    store,
    clock: new SimClock({ speed: config.speed, ...(opts.wallNow ? { wallNow: opts.wallNow } : {}) }),
    config,
    logger,
    personas: opts.personas ?? [],
    dataplane: config.dataplane ? makeSync : undefined,
  });
  return { app, sim, sync };
}

export async function startSimcloud(opts: StartOptions = {}): Promise<RunningSimcloud> {
  const { app, sim, sync } = await build(opts);
  await bootstrap(sim);
  // Pools given explicitly win over those stored with the document.
  if (opts.config?.pools !== undefined && JSON.stringify(sim.store.state.pools) !== JSON.stringify(sim.config.pools)) {
    await sim.store.commit([{ op: 'meta', pools: { ...sim.config.pools } }]);
  }
  if (opts.seed !== undefined && !hasResources(sim)) await internal.seed(sim, opts.seed, undefined);
  sim.engine.resumeAll();
  sync?.schedule();
  const host = opts.host ?? '127.0.0.1';
  const server = await listen(app, host, opts.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      sim.engine.stop();
      sim.clock.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sync?.close();
      await sim.store.close();
    })());
  return { url: urlFor(host, port), port, config: sim.config, sim, app, token: sim.config.bootstrap.token, close };
}
