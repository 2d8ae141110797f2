/**
 * The CCM's HTTP(S) endpoint (upstream `controller-manager/app/serve.go`): `/healthz` with one sub-check per
 * controller at `/healthz/<name>` plus `leaderElection` when electing, and `/metrics`. HTTPS with a
 * self-signed certificate for `localhost`/`127.0.0.1` generated in memory (upstream does the same when no
 * certificate is given), or plain HTTP when asked. Port 0 picks a free port; `start()` returns the real one.
 * Every request must name an allowed Host (loopback or the bind address with the bound port, plus
 * `--allowed-host` names): a web page re-pointed at 127.0.0.1 by DNS rebinding gets 403, not metrics.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostRefusal } from '../simulator/api/host-check.ts';
import { selfSignedServingCertificate } from './self-signed.ts';

/** A health check: returns undefined when healthy, else the reason. */
export type HealthCheck = () => string | undefined;

export interface ServingOptions {
  readonly bindAddress: string;
  readonly port: number;
  readonly tls: boolean;
  readonly checks: () => ReadonlyMap<string, HealthCheck>;
  readonly metrics: () => Promise<{ contentType: string; body: string }>;
  /** `/configz` body (secrets already redacted), as upstream's `cloudcontrollermanager.config.k8s.io`. */
  readonly configz?: () => unknown;
  /** Host names accepted besides loopback and the bind address. */
  readonly allowedHosts?: readonly string[];
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A self-signed serving certificate named `cloud-controller-manager` for localhost and 127.0.0.1, valid for a year. */
export function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const now = Date.now();
  return Promise.resolve(
    selfSignedServingCertificate({
      commonName: 'cloud-controller-manager',
      dnsNames: ['localhost'],
      ipv4: ['127.0.0.1'],
      validFrom: new Date(now - 60_000),
      validUntil: new Date(now + 365 * 24 * 3600 * 1000),
    }),
  );
}

/** Runs the checks: `name` = one check, undefined = all. Returns the HTTP status and body like upstream healthz. */
export function healthz(checks: ReadonlyMap<string, HealthCheck>, name: string | undefined): { status: number; body: string } {
  if (name !== undefined) {
    const check = checks.get(name);
    if (!check) return { status: 404, body: `no health check named ${name}\n` };
    const reason = check();
    return reason === undefined ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${reason}\n` };
  }
  const lines: string[] = [];
  let failed = false;
  for (const [checkName, check] of checks) {
    const reason = check();
    failed ||= reason !== undefined;
    lines.push(reason === undefined ? `[+]${checkName} ok` : `[-]${checkName} failed: reason withheld`);
  }
  if (!failed) return { status: 200, body: 'ok' };
  return { status: 500, body: `${lines.join('\n')}\nhealthz check failed\n` };
}

function handler(options: ServingOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const refusal = hostRefusal(req, options.allowedHosts ?? []);
    if (refusal !== undefined) {
      const body = JSON.stringify({ error: 'forbidden_host', field: 'host', message: refusal.message, allowed_hosts: refusal.allowed });
      res.writeHead(403, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/metrics') {
      options.metrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    if (path === '/configz' && options.configz) {
      const body = JSON.stringify({ 'cloudcontrollermanager.config.k8s.io': options.configz() });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      const name = path === '/healthz' ? undefined : decodeURIComponent(path.slice('/healthz/'.length));
      const { status, body } = healthz(options.checks(), name);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
  };
}

/** Starts listening; resolves once bound. */
export async function startServing(options: ServingOptions): Promise<RunningServer> {
  const server: Server = options.tls ? createHttpsServer(await selfSignedCertificate(), handler(options)) : createHttpServer(handler(options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.bindAddress === '0.0.0.0' || options.bindAddress === '::' ? '127.0.0.1' : options.bindAddress;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
