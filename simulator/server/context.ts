/** The simulation's runtime, shared by middleware, routes and services (built once in `createApp`). */
import type { Logger } from 'pino';
import type { ActionEngine } from './actions/engine.ts';
import type { AddressIndex } from './addresses.ts';
import type { SimClock } from './clock.ts';
import type { SimConfig } from './config.ts';
import type { EventBus } from './events.ts';
import type { FaultEngine } from './faults.ts';
import type { Metrics } from './metrics.ts';
import type { Change } from './store/state.ts';
import type { Store } from './store/store.ts';
import type { PersonaRegistry } from './persona-registry.ts';
import type { ListCache } from './resources/list-cache.ts';
import type { TargetView } from './targets.ts';

/** Health and counters per LB, fed by the data plane (absent when it is disabled). */
export interface DataplanePort {
  health(lbId: string, targetId: string, listenPort: number): 'healthy' | 'unhealthy' | 'unknown';
  counters(lbId: string): Map<string, { connections: number; activeConnections: number; bytesIn: number; bytesOut: number }>;
}

export interface Sim {
  store: Store;
  clock: SimClock;
  config: SimConfig;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  faults: FaultEngine;
  engine: ActionEngine;
  addresses: AddressIndex;
  targets: TargetView;
  lists: ListCache;
  dataplane: DataplanePort | null;
  /** The personas this simcloud speaks besides /v1 (given to createApp). */
  personas: PersonaRegistry;
  startedAt: number;
}

/** Who is calling: resolved by the auth middleware from the bearer token. */
export interface Caller {
  projectId: string;
  tokenId: string;
}

export const nowIso = (sim: Sim): string => new Date(sim.clock.now()).toISOString();

/** The id the store's sequence gives number `n` of a type prefix (`srv`, 42 -> `srv-00000042`). */
export const sequentialId = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(8, '0')}`;

/**
 * Fresh sequential ids (`srv-00000042`) and the change that records the counter; commit both in the
 * same tick as the records that use them.
 */
export function newIds(sim: Sim, ...prefixes: string[]): { ids: string[]; change: Change } {
  let n = sim.store.state.next_id;
  const ids = prefixes.map((p) => sequentialId(p, n++));
  return { ids, change: { op: 'meta', next_id: n } };
}
