// One proxied connection: client <-> target, with the optional PROXY header first, byte counting and
// symmetric teardown. Half-closes pass through (both sockets allow half-open); an error or reset on
// one side resets the other; a clean close lets the other side flush what it still has to write.
import type net from 'node:net';
import { TLSSocket } from 'node:tls';
import type { TargetCounters } from './types.ts';

/** Reset (RST) a connected socket; plain destroy for one still connecting, or a TLS one (its TCP socket is reset apart). */
export function abort(socket: net.Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting || socket instanceof TLSSocket) socket.destroy();
  else socket.resetAndDestroy();
}

export interface SpliceOptions {
  client: net.Socket;
  upstream: net.Socket;
  header: Buffer | null;
  counters: TargetCounters;
  connectTimeoutMs: number;
}

export function splice(opts: SpliceOptions): void {
  const { client, upstream, counters } = opts;
  counters.connections += 1;
  counters.activeConnections += 1;
  let open = 2;
  const onClose =
    (other: net.Socket) =>
    (hadError: boolean): void => {
      open -= 1;
      if (open === 0) counters.activeConnections -= 1;
      if (hadError) abort(other);
      else if (!other.destroyed) other.destroySoon();
    };
  client.once('close', onClose(upstream));
  upstream.once('close', onClose(client));
  client.on('error', () => abort(upstream));
  upstream.on('error', () => abort(client));
  upstream.setTimeout(opts.connectTimeoutMs, () => {
    abort(upstream);
    abort(client);
  });
  upstream.once('connect', () => {
    upstream.setTimeout(0);
    upstream.setNoDelay(true);
    if (opts.header !== null) upstream.write(opts.header);
    client.on('data', (chunk: Buffer) => {
      counters.bytesIn += chunk.length;
    });
    upstream.on('data', (chunk: Buffer) => {
      counters.bytesOut += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
}
