// The teaching console's server: an express app on 127.0.0.1 serving the static UI
// (simulator/console/static, plain ES modules, no build step) and a small API the UI uses:
//   GET  /api/state         cloud snapshot, cluster snapshot and the links between them
//   GET  /api/timeline      the timeline so far (?after=<id>)
//   GET  /api/stream        one Server-Sent Events stream: `state` and `timeline` messages
//   GET  /api/annotations   the annotation registry, for the example-Service form
//   POST /api/actions/...   server power/reboot/delete, worker, service create/delete, faults, reset
// Every action body is validated with zod (400 JSON naming the field). The browser never sees a cloud
// token: the sandbox's clients stay on this side. It sees only the console's own token, in the
// index.html it is served (guard.ts says what each request must carry).
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { z } from 'zod';
import {
  annotationChoices,
  CreatePodsBody,
  createPods,
  CreateServiceBody,
  createService,
  DeletePodsBody,
  DeleteServiceBody,
  FaultBody,
  faultRule,
  HoldCcmBody,
  resetAction,
  ServerActionBody,
  serverAction,
} from './actions.ts';
import { CONSOLE_CALLER } from './cloud.ts';
import { consoleHostGuard, consoleWriteGuard, newConsoleToken, type GuardOptions } from './guard.ts';
import { ConsoleHub, type ConsoleSandbox, type HubOptions } from './hub.ts';

export const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));

export interface ConsoleServer {
  readonly url: string;
  /** The per-sandbox token state changes need (X-Console-Token). */
  readonly token: string;
  readonly hub: ConsoleHub;
  close(): Promise<void>;
}

export interface ConsoleServerOptions extends HubOptions {
  readonly port?: number;
  /** Default: a new random token. */
  readonly token?: string;
  /** Host names accepted besides loopback (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
}

class BadRequest extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  // An unknown key is named by the issue's keys, not its path (the object holding it).
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const field = path.map(String).join('.') || '(body)';
  throw new BadRequest(field, `${field}: ${issue.message}`);
}

type Handler = (req: Request) => Promise<string>;

/** Wraps an action: 202 `{ ok, message }`, 400 `{ error, field, message }`, 502 when the cloud or cluster refuses. */
function action(fn: Handler): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    try {
      res.status(202).json({ ok: true, message: await fn(req) });
    } catch (err) {
      if (err instanceof BadRequest) {
        res.status(400).json({ error: 'invalid_request', field: err.field, message: err.message });
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      res.status(502).json({ error: 'upstream_failed', message });
    }
  };
}

function stream(hub: ConsoleHub): (req: Request, res: Response) => void {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (type: string, data: unknown): void => void res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    send('state', hub.state());
    send('timeline-batch', hub.timeline.list());
    const offState = hub.onState((s) => send('state', s));
    const offTimeline = hub.onTimeline((e) => send('timeline', e));
    const ping = setInterval(() => void res.write(': ping\n\n'), 15_000);
    req.on('close', () => {
      offState();
      offTimeline();
      clearInterval(ping);
    });
  };
}

function actionRoutes(sandbox: ConsoleSandbox, hub: ConsoleHub): express.Router {
  const r = express.Router();
  const core = (): NonNullable<ConsoleHub['cluster']['core']> => {
    const c = hub.cluster.core;
    if (!c) throw new Error('the cluster is not running');
    return c;
  };
  const after = <T>(p: Promise<T>): Promise<T> => p.finally(() => void hub.refreshCloud());
  r.post(
    '/server',
    action(async (req) => after(serverAction(sandbox, parse(ServerActionBody, req.body)))),
  );
  r.post(
    '/worker',
    action(async () => `worker ${await sandbox.addWorker()} added: its server boots and its kubelet registers the Node`),
  );
  r.post(
    '/service',
    action(async (req) => {
      const body = parse(CreateServiceBody, req.body);
      return createService(core(), body);
    }),
  );
  r.post(
    '/service/delete',
    action(async (req) => {
      const b = parse(DeleteServiceBody, req.body);
      await core().deleteNamespacedService({ name: b.name, namespace: b.namespace });
      return `Service ${b.namespace}/${b.name} deleted: the CCM now runs EnsureLoadBalancerDeleted`;
    }),
  );
  r.post(
    '/pods',
    action(async (req) => {
      const apps = hub.cluster.apps;
      if (!apps) throw new Error('the cluster is not running');
      return createPods(apps, parse(CreatePodsBody, req.body));
    }),
  );
  r.post(
    '/pods/delete',
    action(async (req) => {
      const b = parse(DeletePodsBody, req.body);
      await hub.cluster.apps?.deleteNamespacedDeployment({ name: b.name, namespace: 'default' });
      return `Deployment default/${b.name} deleted`;
    }),
  );
  r.post(
    '/ccm',
    action(async (req) => {
      const b = parse(HoldCcmBody, req.body);
      if (!sandbox.holdCcm) throw new Error('this sandbox cannot hold its CCM');
      const held = sandbox.holdCcm(b.hold);
      await hub.refreshCloud();
      return held ? 'the CCM is held (its process is stopped): nothing initialises new Nodes until you let it go' : 'the CCM runs again';
    }),
  );
  r.post(
    '/fault',
    action(async (req) => {
      const rule = await sandbox.admin.addFault(faultRule(parse(FaultBody, req.body)), { caller: CONSOLE_CALLER });
      await hub.refreshCloud();
      return `fault ${rule.id} (${rule.kind}) added`;
    }),
  );
  r.post(
    '/faults/clear',
    action(async () => {
      await sandbox.admin.clearFaults({ caller: CONSOLE_CALLER });
      await hub.refreshCloud();
      return 'every fault rule cleared';
    }),
  );
  r.post(
    '/reset',
    action(async () => after(resetAction(sandbox, hub.cluster.core))),
  );
  return r;
}

/** index.html with the console token in a meta tag the page's fetch calls read. */
function indexPage(token: string): (req: Request, res: Response) => void {
  const html = readFileSync(`${STATIC_DIR}index.html`, 'utf8').replace('<head>', `<head>\n  <meta name="console-token" content="${token}">`);
  return (_req, res) => void res.type('html').set('cache-control', 'no-store').send(html);
}

export function createConsoleApp(sandbox: ConsoleSandbox, hub: ConsoleHub, guard: GuardOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(consoleHostGuard(guard));
  app.use(consoleWriteGuard(guard));
  app.use(express.json({ limit: '64kb' }));
  app.get('/api/state', (_req, res) => void res.json(hub.state()));
  app.get('/api/timeline', (req, res) => void res.json(hub.timeline.list(Number(req.query.after ?? 0) || 0)));
  app.get('/api/stream', stream(hub));
  app.get('/api/annotations', (_req, res) => void res.json(annotationChoices()));
  app.use('/api/actions', actionRoutes(sandbox, hub));
  app.use('/api', (_req, res) => void res.status(404).json({ error: 'not_found', message: 'no such console API route' }));
  if (existsSync(STATIC_DIR)) {
    app.get(['/', '/index.html'], indexPage(guard.token));
    app.use(express.static(STATIC_DIR, { index: false }));
  }
  // Malformed JSON and other body errors: JSON, never an HTML page.
  app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ error: err.status === 400 ? 'invalid_request' : 'internal', field: '(body)', message: err.message });
  });
  return app;
}

/** Starts the console for a running sandbox on 127.0.0.1 (port 0 = any free port). */
export async function startConsoleServer(sandbox: ConsoleSandbox, opts: ConsoleServerOptions = {}): Promise<ConsoleServer> {
  const hub = new ConsoleHub(sandbox, opts);
  await hub.start();
  const token = opts.token ?? newConsoleToken();
  const app = createConsoleApp(sandbox, hub, { token, allowedHosts: opts.allowedHosts ?? [] });
  const server = app.listen(opts.port ?? 0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    token,
    hub,
    async close() {
      hub.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
