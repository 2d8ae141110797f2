// The HTTPS interception proxy: an HTTP CONNECT proxy on loopback through which a tool with compiled-in API
// URLs (phoenixNAP's CCM, cluster-autoscaler's providers, terraform providers) reaches simcloud's personas
// unmodified, with TLS verified. It accepts CONNECT only to port 443 of the real API hostnames the sandbox has
// personas for (each cloud descriptor's `realHosts`); anything else is answered 403 and never dialled, so
// nothing leaves loopback. An accepted tunnel is terminated with a certificate for that name from the
// sandbox's name-constrained CA (ca.ts), its requests must name that host (the Host check every local surface
// makes) and are forwarded to simcloud with the path mounted under the persona's prefix. The proxy holds no
// credentials: the client's own Authorization reaches simcloud, which checks it (and Origin) as on any request.
// Its access log has no query strings or headers. node:http's 'connect' event and node:tls do the protocol.
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { hostAllowed, hostRefusal, splitHost } from '../../simulator/api/host-check.ts';
import type { InterceptCa } from './ca.ts';

/** A real API hostname and where its paths live in simcloud: `https://NAME/PATH` → `simcloud/MOUNT/PATH`. */
export interface RealHost {
  readonly name: string;
  /** simcloud's path prefix for the host's paths ('' where the persona serves them at the same paths). */
  readonly mount: string;
  /** The host's API roots (`/v4`): a path under none of them is 404, so no tunnel reaches another persona or /_sim. */
  readonly paths: readonly string[];
}

/** Whether `url` (origin form) lies under one of `roots`. */
export function underRoots(url: string, roots: readonly string[]): boolean {
  const path = url.split('?')[0]!;
  return roots.some((r) => path === r || path.startsWith(`${r}/`));
}

export interface InterceptProxyOptions {
  /** simcloud's base URL (http://127.0.0.1:PORT). */
  readonly upstream: string;
  readonly hosts: readonly RealHost[];
  readonly ca: InterceptCa;
  readonly logger: Logger;
  /** Default 127.0.0.1 and a free port. */
  readonly host?: string;
  readonly port?: number;
  /** Extra names the proxy's own port answers to (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
}

export interface InterceptProxy {
  /** The proxy URL a client's HTTPS_PROXY names: http://127.0.0.1:PORT. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own are not forwarded either way.
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = new Set((typeof headers.connection === 'string' ? headers.connection : '').split(',').map((h) => h.trim().toLowerCase()));
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

function json(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** The path without its query (which may carry a token), for the log. */
const logPath = (url: string | undefined): string => (url ?? '').split('?')[0]!.slice(0, 200);

export async function startInterceptProxy(o: InterceptProxyOptions): Promise<InterceptProxy> {
  const upstream = new URL(o.upstream);
  if (upstream.protocol !== 'http:') throw new Error(`the interception proxy forwards to simcloud over http, got ${o.upstream}`);
  const byName = new Map(o.hosts.map((h) => [h.name.toLowerCase(), h]));
  const names = [...byName.keys()].join(', ');
  const agent = new Agent({ keepAlive: true });
  const tunnels = new WeakMap<Socket, RealHost>();
  const sockets = new Set<Socket>();
  const log = o.logger;

  // Requests inside a tunnel: the Host must be the tunnel's name; then simcloud answers.
  const inner = createServer((req, res) => {
    const real = tunnels.get(req.socket);
    const started = Date.now();
    if (real === undefined) return void json(res, 500, { error: 'internal', message: 'a request outside any tunnel' });
    if (!hostAllowed(req.headers.host, [`${real.name}:443`], 443)) {
      log.warn(
        { tunnel: real.name, host: (req.headers.host ?? '').slice(0, 100), method: req.method, path: logPath(req.url), status: 403 },
        'refused: foreign Host inside a tunnel',
      );
      return void json(res, 403, {
        error: 'forbidden_host',
        field: 'host',
        message: `this tunnel is for ${real.name}; Host "${(req.headers.host ?? '').slice(0, 100)}" is not allowed here`,
      });
    }
    if (req.url === undefined || !req.url.startsWith('/'))
      return void json(res, 400, { error: 'bad_request', field: 'path', message: 'a request inside the tunnel names a path (origin form)' });
    // Dot segments would climb out of the roots on simcloud's side: refused before the roots are compared.
    if (/(^|\/)(\.|%2e){1,2}(\/|$|\?)/i.test(req.url.split('?')[0]!) || !underRoots(req.url, real.paths)) {
      log.warn({ tunnel: real.name, method: req.method, path: logPath(req.url), status: 404 }, 'refused: not an API path of the host');
      return void json(res, 404, { error: 'not_found', field: 'path', message: `${real.name} serves ${real.paths.join(', ')} here` });
    }
    const out = request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: `${real.mount}${req.url}`,
        headers: { ...forwardable(req.headers), host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(res);
        log.info({ tunnel: real.name, method: req.method, path: logPath(req.url), status: answer.statusCode, ms: Date.now() - started }, 'forwarded');
      },
    );
    out.on('error', (err) => {
      log.warn({ tunnel: real.name, method: req.method, path: logPath(req.url), err: err.message }, 'simcloud did not answer');
      if (!res.headersSent) json(res, 502, { error: 'bad_gateway', message: `simcloud did not answer: ${err.message}` });
      else res.destroy();
    });
    req.pipe(out);
  });

  // The proxy's own port: CONNECT only; any other request gets the Host check, then 405.
  const server: Server = createServer((req, res) => {
    const refusal = hostRefusal(req, o.allowedHosts ?? []);
    if (refusal !== undefined) return void json(res, 403, { error: 'forbidden_host', field: 'host', message: refusal.message, allowed_hosts: refusal.allowed });
    res.setHeader('allow', 'CONNECT');
    json(res, 405, { error: 'method_not_allowed', message: `an HTTPS CONNECT proxy for ${names}; set HTTPS_PROXY to it` });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = splitHost(req.url ?? '');
    const real = target === undefined ? undefined : byName.get(target.name);
    if (real === undefined || target?.port !== 443) {
      log.warn({ connect: (req.url ?? '').slice(0, 100), status: 403 }, 'refused: not a persona API host');
      const body = JSON.stringify({
        error: 'forbidden',
        field: 'host',
        message: `CONNECT "${(req.url ?? '').slice(0, 100)}" refused: this proxy reaches ${names} on port 443 only`,
      });
      socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    void o.ca.servingPair(real.name).then(
      (pair) => {
        if (socket.destroyed) return;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) socket.unshift(head);
        const tls = new TLSSocket(socket, { isServer: true, secureContext: createSecureContext(pair), ALPNProtocols: ['http/1.1'] });
        tls.on('error', (err: Error) => {
          log.debug({ tunnel: real.name, err: err.message }, 'tunnel TLS error');
          tls.destroy();
        });
        tunnels.set(tls, real);
        log.debug({ connect: real.name }, 'tunnel open');
        inner.emit('connection', tls);
      },
      (err: unknown) => {
        log.error({ connect: real.name, err: err instanceof Error ? err.message : String(err) }, 'no serving certificate');
        socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      },
    );
  });
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) =>
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${o.host ?? '127.0.0.1'}:${port}`;
  log.info({ url, hosts: [...byName.keys()] }, 'interception proxy listening');
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        inner.close();
        agent.destroy();
      }),
  };
}
