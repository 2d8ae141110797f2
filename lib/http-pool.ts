/**
 * The one seam between the CCM's two clients (the Kubernetes API, simcloud) and the HTTP client under them:
 * `createHttpPool(origin, transport)` gives a keep-alive pool for one origin, whichever implementation the
 * `httpTransport` setting (`CCM_HTTP_TRANSPORT`) names:
 * - `http1`: lib/http1.ts, our own HTTP/1.1 client (ADR 0015);
 * - `undici`: undici's `Pool` (lib/undici-pool.ts; it needs WebAssembly, so not under `--jitless`);
 * - `http2`: one `node:http2` session per https origin (lib/http2-pool.ts: kube-apiserver speaks h2 over TLS,
 *   as client-go uses it); a plain-http origin (simcloud) goes through undici.
 * Every implementation takes the same request, answers the same response and rejects with an `Http1Error`
 * of the same kinds. The other two are loaded only when chosen, so the default carries none of their code.
 */
import { Http1Pool, type BodySink, type Http1Origin, type Http1Request, type Http1Response } from './http1.ts';

export const HttpTransports = ['http1', 'undici', 'http2'] as const;
export type HttpTransport = (typeof HttpTransports)[number];

/** A keep-alive client for one origin. */
export interface HttpPool {
  /** One exchange; with a `sink`, the body goes to it as it arrives. Rejects with an `Http1Error`. */
  request(req: Http1Request, sink?: BodySink): Promise<Http1Response>;
  /** Closes idle connections now and busy ones when their exchanges end; later requests fail. */
  close(): void;
}

export function createHttpPool(origin: Http1Origin, transport: HttpTransport = 'http1'): HttpPool {
  if (transport === 'http1') return new Http1Pool(origin);
  if (transport === 'http2' && origin.protocol === 'https:') return new LazyPool(import('./http2-pool.ts').then((m) => new m.Http2Pool(origin)));
  return new LazyPool(Promise.all([import('undici'), import('./undici-pool.ts')]).then(([u, m]) => new m.UndiciPool(origin, u.Pool)));
}

/** A pool whose module is still loading: requests wait for it. */
class LazyPool implements HttpPool {
  readonly #pool: Promise<HttpPool>;

  constructor(pool: Promise<HttpPool>) {
    this.#pool = pool;
  }

  async request(req: Http1Request, sink?: BodySink): Promise<Http1Response> {
    return (await this.#pool).request(req, sink);
  }

  close(): void {
    void this.#pool.then((p) => p.close());
  }
}
