// The Host (and Origin) check shared by every local HTTP surface of the project: simcloud's API, the
// teaching console and the CCM's health/metrics endpoint. A DNS-rebinding page reaches a loopback port
// under its own name (Host: attacker.example:PORT); browsers cannot forge Host, so accepting only the
// names a surface was started for closes that door. Allowed: 127.0.0.1, localhost and [::1] with the
// port the connection actually arrived on, the address the connection arrived at (a server bound to a
// LAN or wildcard address is reached by it), and names the user adds (`--allowed-host NAME` for any
// port, or `NAME:PORT`). Also the constant-time token comparison those surfaces share. Node built-ins
// only, so simulator/, src/ and sandbox/ can all import it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

export class AllowedHostError extends Error {}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Compares a presented token with the expected one in constant time (hashing makes the lengths equal). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

const NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Splits `name`, `name:port`, `[v6]:port` (lower-cased); undefined when it is not a host at all. */
export function splitHost(value: string): { name: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (m === null) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const name = m[1]!;
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  if (name.startsWith('[') ? isIP(bare) !== 6 : isIP(bare) !== 4 && !NAME.test(bare)) return undefined;
  return { name, port };
}

/**
 * Validates the user's extra names (flags and the comma-separated env value); throws AllowedHostError
 * naming the bad one. A wildcard is refused: turning the check off is what rebinding needs.
 */
export function parseAllowedHosts(values: readonly string[], flag = '--allowed-host'): string[] {
  const out: string[] = [];
  for (const raw of values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')) {
    const host = splitHost(raw);
    if (host === undefined) throw new AllowedHostError(`${flag} takes a host name or NAME:PORT (no scheme, no wildcard), got "${raw}"`);
    out.push(host.port === undefined ? host.name : `${host.name}:${host.port}`);
  }
  return out;
}

/** The extra names from flags plus an environment variable (comma-separated). */
export function allowedHostsFrom(flags: readonly string[] | undefined, env: string | undefined, flag: string): string[] {
  return parseAllowedHosts([...(flags ?? []), ...(env === undefined ? [] : [env])], flag);
}

const bracket = (address: string): string => (isIP(address) === 6 ? `[${address.replace(/^::ffff:(?=\d+\.)/, '')}]` : address);

/** The hosts a connection arriving at `localAddress:port` may name, in the order an error lists them. */
export function allowedHostsFor(localAddress: string | undefined, port: number, extra: readonly string[]): string[] {
  const local = localAddress === undefined ? [] : [`${bracket(localAddress).replace(/^\[(\d+\.\d+\.\d+\.\d+)\]$/, '$1')}:${port}`];
  return [...new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...local, ...extra])];
}

/** True when `hostHeader` is one of `allowed` (an entry without a port allows that name on any port). */
export function hostAllowed(hostHeader: string | undefined, allowed: readonly string[], defaultPort: number): boolean {
  if (hostHeader === undefined) return false;
  const host = splitHost(hostHeader);
  if (host === undefined) return false;
  const withPort = `${host.name}:${host.port ?? defaultPort}`;
  return allowed.some((a) => a === withPort || a === host.name);
}

/**
 * True when a browser's Origin names an allowed host over `scheme`. `null` (sandboxed frames, file://)
 * and any other scheme are refused.
 */
export function originAllowed(origin: string, allowed: readonly string[], scheme: 'http' | 'https'): boolean {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@]+)$/i.exec(origin);
  if (m === null || m[1]!.toLowerCase() !== scheme) return false;
  return hostAllowed(m[2], allowed, scheme === 'https' ? 443 : 80);
}

export interface HostRefusal {
  readonly host: string | undefined;
  readonly allowed: readonly string[];
  readonly message: string;
}

export interface HostCheckOptions {
  /** Extra names from `--allowed-host` and its environment variable. */
  readonly extra: readonly string[];
  /** Renders the 403 in the surface's own error shape; default a JSON `{ error, message, allowed_hosts }`. */
  readonly refuse?: (res: ServerResponse, refusal: HostRefusal) => void;
}

/** The hosts allowed for this request's connection. */
export function allowedHostsOf(req: IncomingMessage, extra: readonly string[]): string[] {
  return allowedHostsFor(req.socket.localAddress, req.socket.localPort ?? 0, extra);
}

function defaultRefuse(res: ServerResponse, r: HostRefusal): void {
  const body = JSON.stringify({ error: 'forbidden_host', field: 'host', message: r.message, allowed_hosts: r.allowed });
  res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(body);
}

export function hostRefusal(req: IncomingMessage, extra: readonly string[]): HostRefusal | undefined {
  const allowed = allowedHostsOf(req, extra);
  const socket = req.socket as { encrypted?: boolean };
  if (hostAllowed(req.headers.host, allowed, socket.encrypted === true ? 443 : 80)) return undefined;
  const host = req.headers.host;
  const shown = host === undefined ? 'a request without a Host header' : `Host "${host.slice(0, 100)}"`;
  const message = `${shown} is not allowed here (DNS rebinding protection); allowed hosts: ${allowed.join(', ')}; add a name with --allowed-host`;
  return { host, allowed, message };
}

/** A connect/express-style middleware: refuses a request whose Host is not allowed with 403. */
export function hostCheck(options: HostCheckOptions): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const refuse = options.refuse ?? defaultRefuse;
  return (req, res, next) => {
    const refusal = hostRefusal(req, options.extra);
    if (refusal === undefined) next();
    else refuse(res, refusal);
  };
}
