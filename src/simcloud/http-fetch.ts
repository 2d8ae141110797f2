/**
 * A `fetch` over node:http(s) with one keep-alive pool: what the CCM's simcloud client sends its requests
 * through. Global fetch would load undici's HTTP client and its WebAssembly parser, about 10 MB more resident
 * memory for the same exchanges, measured on Node 24 (docs/adr/0014). It covers what the client uses: a URL,
 * a method, headers, a string body and an AbortSignal; the answer is a standard `Response`.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Statuses whose Response must have no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function headerPairs(res: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '']);
  return pairs;
}

function requestHeaders(headers: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => (out[key] = value));
  return out;
}

function bodyOf(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'string') throw new TypeError('httpFetch sends string bodies only');
  return body;
}

/** Why a signal fired, as fetch reports it (AbortSignal.timeout's is a TimeoutError). */
function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

export function httpFetch(): typeof globalThis.fetch {
  const agents = { http: new HttpAgent({ keepAlive: true, scheduling: 'lifo' }), https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo' }) };
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const https = url.protocol === 'https:';
    const body = bodyOf(init);
    const headers = requestHeaders(init?.headers);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(reasonOf(signal));
        return;
      }
      const req = (https ? httpsRequest : httpRequest)(url, { method: init?.method ?? 'GET', headers, agent: https ? agents.https : agents.http, ...(signal ? { signal } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          try {
            resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: headerPairs(res) }));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
      req.on('error', (err) => reject(signal?.aborted ? reasonOf(signal) : err));
      req.end(body);
    });
  };
}
