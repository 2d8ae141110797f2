// Test-only helpers for the data plane: loopback backends that share one port on several 127.x
// addresses (targets share the listener's destination port), free VIPs, a one-shot TCP client and
// a poller. Everything stays on 127.0.0.0/8.
import http from 'node:http';
import net from 'node:net';

export const rnd = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));

export interface Backend {
  name: string;
  ip: string;
  port: number;
  /** Raw bytes of every connection that sent something, in arrival order. */
  received: Buffer[];
  /** Connections accepted (including health-check probes). */
  accepted: number;
  open: Set<net.Socket>;
  server: net.Server | http.Server;
  stop(): Promise<void>;
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Replies `<name>:<bytes received>` once the client half-closes. */
function tcpHandler(b: Backend): (s: net.Socket) => void {
  return (s) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('end', () => {
      const all = Buffer.concat(chunks);
      if (all.length > 0) b.received.push(all);
      s.end(Buffer.concat([Buffer.from(`${b.name}:`), all]));
    });
  };
}

export type BackendKind = 'tcp' | 'http';

function makeServer(b: Backend, kind: BackendKind): net.Server {
  if (kind === 'tcp') return net.createServer({ allowHalfOpen: true }, tcpHandler(b));
  return http.createServer((req, res) => {
    res.statusCode = req.url === '/healthz' ? 200 : 500;
    res.end(b.name);
  });
}

export async function startBackend(name: string, ip: string, port: number, kind: BackendKind = 'tcp'): Promise<Backend> {
  const b = { name, ip, port, received: [], accepted: 0, open: new Set<net.Socket>() } as unknown as Backend;
  const server = makeServer(b, kind);
  server.on('connection', (s: net.Socket) => {
    b.accepted += 1;
    b.open.add(s);
    s.once('close', () => b.open.delete(s));
  });
  b.server = server;
  b.port = await listen(server, ip, port);
  b.stop = () => new Promise((resolve) => {
    server.close(() => resolve());
    for (const s of b.open) s.destroy();
  });
  return b;
}

/** `count` backends on 127.2.x.1.. sharing one port (the first picks it with port 0). */
export async function startBackends(count: number, kind: BackendKind = 'tcp'): Promise<Backend[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const net3 = `127.2.${rnd(0, 255)}`;
    const first = await startBackend('b0', `${net3}.1`, 0, kind);
    const rest: Backend[] = [];
    try {
      for (let i = 1; i < count; i++) rest.push(await startBackend(`b${i}`, `${net3}.${i + 1}`, first.port, kind));
      return [first, ...rest];
    } catch {
      await Promise.all([first, ...rest].map((b) => b.stop()));
    }
  }
  throw new Error('no free backend port');
}

/** A random 127.1.x.y VIP and a port that is free on it right now. */
export async function freeVip(): Promise<{ vip: string; port: number }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const vip = `127.1.${rnd(0, 255)}.${rnd(1, 254)}`;
    const port = rnd(20_000, 60_000);
    const probe = net.createServer();
    try {
      await listen(probe, vip, port);
      await new Promise((r) => probe.close(r));
      return { vip, port };
    } catch {
      probe.close();
    }
  }
  throw new Error('no free VIP');
}

export interface RequestResult {
  ok: boolean;
  data: string;
  error?: string;
}

/** Connects, sends `payload`, half-closes and collects the reply until the connection ends. */
export function request(host: string, port: number, payload: string, localAddress?: string): Promise<RequestResult> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, localAddress, allowHalfOpen: false });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    s.on('connect', () => s.end(payload));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
    s.on('close', () => {
      const data = Buffer.concat(chunks).toString('latin1');
      resolve(error === undefined ? { ok: data.length > 0, data } : { ok: false, data, error });
    });
  });
}

/** Opens a connection and keeps it; resolves once connected. */
export function hold(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port, allowHalfOpen: true });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

