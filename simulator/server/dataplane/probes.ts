// Health probes over real sockets: a TCP connect, or an HTTP GET whose 2xx/3xx status means up (or none at all).
// They resolve false on any error and stop as soon as `signal` aborts (the caller owns the timeout).
// Sockets are unref'd so an in-flight probe never keeps the process alive.
import http from 'node:http';
import net from 'node:net';
import type { DataPlaneHealthCheck } from './types.ts';

export interface ProbeTarget {
  host: string;
  port: number;
}

export type Probe = (target: ProbeTarget, check: DataPlaneHealthCheck, signal: AbortSignal) => Promise<boolean>;

export const tcpProbe: Probe = (target, _check, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const socket = net.connect({ host: target.host, port: target.port });
    socket.unref();
    const done = (ok: boolean): void => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(ok);
    };
    const onAbort = (): void => done(false);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

export function hostHeader(target: ProbeTarget): string {
  return net.isIPv6(target.host) ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

export const httpProbe: Probe = (target, check, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const path = check.path.startsWith('/') ? check.path : `/${check.path}`;
    const req = http.request({
      host: target.host,
      port: target.port,
      path,
      method: 'GET',
      agent: false,
      signal,
      headers: { host: hostHeader(target), 'user-agent': 'simcloud-healthcheck', connection: 'close' },
    });
    req.once('socket', (s) => s.unref());
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      req.destroy();
      resolve(status >= 200 && status < 400);
    });
    req.once('error', () => resolve(false));
    req.end();
  });

/** No active check (a UDP listener whose provider checks nothing): the target is up. */
export const noProbe: Probe = () => Promise.resolve(true);

export function probeFor(check: DataPlaneHealthCheck): Probe {
  return check.protocol === 'http' ? httpProbe : check.protocol === 'none' ? noProbe : tcpProbe;
}
