/**
 * createApp: the simcloud HTTP application (no listen). The middleware order is fixed:
 *   1. request id          – X-Request-Id in and out
 *   2. access log/metrics  – timing, Prometheus, the api_call event (measured around everything below)
 *   3. host check          – only the Host names simcloud was started for (DNS rebinding); 403 otherwise
 *   4. body parse          – JSON (a form only for a persona's own auth); unreadable bodies become invalid_input
 *   5. auth                – project token for /v1 and the personas' paths, admin token for /_sim
 *   6. rate limit          – per-token budgets (config and rate_limit faults)
 *   7. faults              – latency, injected errors, intermittent not_found
 *   8. idempotency         – a repeated POST/PATCH with the same Idempotency-Key gets the first answer
 *   9. routes              – /v1 resources, the personas' routes (each under its prefix), /_sim, /metrics, /openapi.json (each parses its input)
 *  10. 404                 – not_found for unknown routes
 *  11. error renderer      – the error envelope (a persona's own for its paths); anything unexpected is a logged 500
 * The personas (real clouds' APIs spoken over the same store) come in as a list: the server imports none of
 * them, and the middleware asks the registry built from the list (docs/adr/0012-personas-as-plug-ins.md).
 */
import type { IncomingMessage } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { ActionEngine } from './actions/engine.ts';
import { AddressIndex } from './addresses.ts';
import type { SimClock } from './clock.ts';
import type { SimConfig } from './config.ts';
import type { DataplanePort, Sim } from './context.ts';
import { EventBus, type SimEventInput } from './events.ts';
import { FaultEngine } from './faults.ts';
import { mountRoutes, type RouteDef } from './route-definitions.ts';
import { internalRoutes, mountEvents } from './internal/routes.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { accessLog } from './middleware/access-log.ts';
import { TokenIndex, auth } from './middleware/auth.ts';
import { errorRenderer, notFoundRoute } from './middleware/errors.ts';
import { faults } from './middleware/faults.ts';
import { hostGuard } from './middleware/host-check.ts';
import { idempotency } from './middleware/idempotency.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { currentRequestId, requestId } from './middleware/request-id.ts';
import { buildOpenApi } from './openapi.ts';
import { actionRoutes } from './resources/actions/routes.ts';
import { catalogueRoutes } from './resources/catalogue/routes.ts';
import { certificateRoutes } from './resources/certificates/routes.ts';
import { firewallPolicyRoutes } from './resources/firewall-policies/routes.ts';
import { ipBlockRoutes } from './resources/ip-blocks/routes.ts';
import { loadBalancerRoutes } from './resources/load-balancers/routes.ts';
import { networkRoutes } from './resources/networks/routes.ts';
import { serverGroupRoutes } from './resources/server-groups/routes.ts';
import { serverRoutes } from './resources/servers/routes.ts';
import { RESOURCE_TYPE_OF, type AppliedChange } from './store/state.ts';
import type { Store } from './store/store.ts';
import type { ChangeKind, ResourceChangeEvent } from '../api/schema/events.ts';
import { REDACTED_KEY } from '../api/schema/load-balancers.ts';
import { ListCache } from './resources/list-cache.ts';
import { TargetView } from './targets.ts';
import type { Persona } from './persona.ts';
import { PersonaRegistry } from './persona-registry.ts';

export const API_ROUTES: readonly RouteDef[] = [
  ...catalogueRoutes,
  ...serverRoutes,
  ...networkRoutes,
  ...loadBalancerRoutes,
  ...serverGroupRoutes,
  ...firewallPolicyRoutes,
  ...ipBlockRoutes,
  ...certificateRoutes,
  ...actionRoutes,
];
export const ALL_ROUTES: readonly RouteDef[] = [...API_ROUTES, ...internalRoutes];

export interface AppDeps {
  store: Store;
  clock: SimClock;
  config: SimConfig;
  logger: Logger;
  /** The personas to serve besides /v1, from the entry point's registration list. */
  personas: readonly Persona[];
  /** Built by the caller when the data plane runs (it needs `targets`); null/absent = no data plane. */
  dataplane?: (parts: { targets: TargetView; events: EventBus }) => DataplanePort;
  metrics?: Metrics;
}

export interface SimApp {
  app: Express;
  sim: Sim;
}

function buildSim(deps: AppDeps): Sim {
  const { store, clock, config, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const events = new EventBus({ size: config.eventBuffer, now: () => clock.now() });
  let faultSeq = 0;
  const faultEngine = new FaultEngine({ now: () => clock.now(), newId: () => `flt-${String(++faultSeq).padStart(6, '0')}` });
  for (const rule of config.faults) faultEngine.add(rule);
  const engine = new ActionEngine({
    store,
    clock,
    faults: faultEngine,
    metrics,
    delays: { ...config.delays },
    onError: (err) => logger.error({ err }, 'action engine'),
  });
  const targets = new TargetView(store);
  const dataplane = deps.dataplane?.({ targets, events }) ?? null;
  return {
    store,
    clock,
    config,
    logger,
    events,
    metrics,
    faults: faultEngine,
    engine,
    addresses: new AddressIndex(store),
    targets,
    lists: new ListCache(store),
    dataplane,
    personas: new PersonaRegistry(deps.personas),
    startedAt: Date.now(),
  };
}

function changeKind(c: AppliedChange): ChangeKind {
  if (c.before === undefined) return 'created';
  return c.after === undefined ? 'deleted' : 'updated';
}

/**
 * The event for one committed change. The store's listener sees untyped documents; collection `coll`
 * holds exactly the record type its event carries (a test parses every event a real simcloud sends).
 */
function changeEvent(c: AppliedChange, resourceType: ResourceChangeEvent['resource_type']): SimEventInput {
  const doc = (c.after ?? c.before) as { project_id?: string } | undefined;
  return {
    type: 'resource_change',
    change: changeKind(c),
    resource_type: resourceType,
    resource_id: c.id,
    project_id: doc?.project_id ?? null,
    request_id: currentRequestId() ?? null,
    resource: c.coll === 'certificates' && c.after !== undefined ? { ...c.after, private_key: REDACTED_KEY } : (c.after ?? null),
  } as SimEventInput;
}

/** Publishes a resource_change event for every committed change. */
function watchStore(sim: Sim): void {
  sim.store.onChange((applied) => {
    for (const c of applied) if (c.coll !== 'tokens') sim.events.publish(changeEvent(c, RESOURCE_TYPE_OF[c.coll]));
  });
}

function mountMeta(router: express.Router, sim: Sim): void {
  const openapi = buildOpenApi(API_ROUTES);
  router.get('/openapi.json', (_req, res) => void res.json(openapi));
  router.get('/metrics', async (_req, res) => {
    const stats = sim.store.stats();
    sim.metrics.storeWrites.set(stats.writes);
    sim.metrics.storeFileWrites.set(stats.file_writes);
    for (const type of ['servers', 'load_balancers', 'networks', 'ip_blocks'] as const)
      sim.metrics.resources.set({ type }, Object.keys(sim.store.state[type]).length);
    res.type(sim.metrics.registry.contentType).send(await sim.metrics.registry.metrics());
  });
}

/**
 * JSON bodies. Where a persona authenticates itself: a form too (an OAuth2 token request), and any JSON value,
 * since its SDK sends `null` for a body left unset (go-sdk-bmc's deprovision), which a route reads as none.
 */
function bodyParsers(sim: Sim): express.RequestHandler[] {
  const own = (req: IncomingMessage): boolean => sim.personas.of((req.url ?? '').split('?')[0]!)?.auth !== undefined;
  const form = (req: IncomingMessage): boolean => own(req) && /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
  return [
    express.urlencoded({ extended: false, limit: '16kb', type: form }),
    express.json({ limit: '2mb', strict: false, type: (req) => own(req) && !form(req) }),
    express.json({ limit: '2mb', type: (req) => !own(req) }),
  ];
}

export function createApp(deps: AppDeps): SimApp {
  const sim = buildSim(deps);
  watchStore(sim);
  const app = express();
  app.disable('x-powered-by').set('etag', false).set('query parser', 'simple');
  app.use(requestId());
  app.use(accessLog(sim));
  app.use(hostGuard(sim.config.allowedHosts));
  app.use(...bodyParsers(sim));
  app.use(auth(sim, new TokenIndex(sim)));
  app.use(rateLimit(sim));
  app.use(faults(sim));
  app.use(idempotency(sim));
  const router = express.Router();
  // Personas are views over the same store under their own prefixes.
  mountRoutes(router, sim, [...ALL_ROUTES, ...sim.personas.routes()]);
  mountEvents(router, sim);
  mountMeta(router, sim);
  app.use(router);
  app.use(notFoundRoute());
  app.use(errorRenderer(sim));
  return { app, sim };
}
