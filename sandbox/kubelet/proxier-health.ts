// kube-proxy's own health server, as every node's stand-in serves it on port 10256 (kube-proxy's
// --healthz-bind-address default): `/healthz` and `/livez` answer 200 with kube-proxy's JSON (its
// ProxyHealth: the times as Go writes them, RFC 3339 with trailing zeros dropped, and the IPv4 proxier's
// last sync), any other path 404 as Go's ServeMux does. Load balancers check it when they send to the
// nodes' own ports rather than to a NodePort (DigitalOcean's CCM points its default health check here).
// The stand-in is healthy as long as it runs: it does not watch the Node, so a node tainted
// ToBeDeletedByClusterAutoscaler still reports nodeEligible (kube-proxy answers 503 there).

/** kube-proxy's health port. */
export const KUBE_PROXY_HEALTH_PORT = 10256;

/** An HTTP answer of the stand-in: status, body as sent, and its media type. */
export interface StandInHttpReply {
  readonly status: 200 | 404 | 503;
  readonly payload: string;
  readonly contentType: 'application/json' | 'text/plain; charset=utf-8';
}

/** kube-proxy's health JSON (its ProxyHealth, single-stack IPv4). */
export interface ProxierHealthReply {
  readonly lastUpdated: string;
  readonly currentTime: string;
  readonly nodeEligible?: boolean;
  readonly healthy: boolean;
  readonly status: { readonly IPv4: { readonly lastUpdated: string; readonly healthy: boolean } };
}

/** A time as Go's encoding/json writes a UTC time.Time: RFC 3339 with its fraction's trailing zeros dropped. */
export function goJsonTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/(\.\d*?)0+Z$/, '$1Z')
    .replace(/\.Z$/, 'Z');
}

/**
 * The answer to `path` (null: a client that sent no HTTP request, answered as /healthz) at `now`, for a
 * stand-in whose rules were last brought up to date at `lastSynced`.
 */
export function proxierHealthReply(path: string | null, now: number, lastSynced: number): StandInHttpReply {
  const route = path === null ? '/healthz' : path.split('?')[0];
  if (route !== '/healthz' && route !== '/livez') return { status: 404, payload: '404 page not found\n', contentType: 'text/plain; charset=utf-8' };
  const current = goJsonTime(now);
  const body: ProxierHealthReply = {
    lastUpdated: current,
    currentTime: current,
    ...(route === '/healthz' ? { nodeEligible: true } : {}),
    healthy: true,
    status: { IPv4: { lastUpdated: goJsonTime(lastSynced), healthy: true } },
  };
  return { status: 200, payload: JSON.stringify(body), contentType: 'application/json' };
}
