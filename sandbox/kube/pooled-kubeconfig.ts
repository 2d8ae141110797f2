/**
 * A client-node `KubeConfig` whose API calls and watches share one connection pool per cluster and
 * credentials, as client-go shares one transport per rest config.
 *
 * Why: client-node 2.0.1's `applySecurityAuthentication` builds a new undici Agent for every request
 * (`createDispatcher` is not cached, unlike `createAgent`), so every call opened its own TLS connection
 * (an HTTP/2 session when the apiserver offers h2) that lingered until keep-alive expiry. In the CCM's
 * first minute at 1 000 nodes + 1 000 Services that was ~4 000 sessions, ~150 MB of native memory
 * (heaptrack: OpenSSL, nghttp2 and TLS buffers) and a TLS handshake per call on both ends (benchmark S12).
 *
 * The pool key includes the client certificate and key (inline data, or the files' size and mtime),
 * so a rotated certificate gets a fresh pool on the next request while the old one drains and closes.
 */
import { statSync } from 'node:fs';
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

function fileStamp(path: string | undefined): string {
  if (!path) return '';
  try {
    const st = statSync(path);
    return `${path}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${path}:missing`;
  }
}

export class PooledKubeConfig extends KubeConfig {
  readonly #pools = new Map<string, Dispatcher>();

  /** Which endpoint and credentials a dispatcher was built for. */
  #poolKey(): string {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    const c = { server: '', caData: undefined, caFile: undefined, skipTLSVerify: false, tlsServerName: undefined, ...cluster };
    const u = { name: '', certData: undefined, certFile: undefined, keyData: undefined, keyFile: undefined, ...user };
    const parts = [
      c.server,
      c.caData ?? fileStamp(c.caFile),
      String(c.skipTLSVerify),
      c.tlsServerName,
      u.name,
      u.certData ?? fileStamp(u.certFile),
      u.keyData ?? fileStamp(u.keyFile),
    ];
    return parts.join('\n');
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    if (fresh === undefined) return;
    const key = this.#poolKey();
    const pooled = this.#pools.get(key);
    if (pooled) {
      // The per-request Agent never connected; it holds no socket or timer.
      context.setDispatcher(pooled);
      return;
    }
    for (const [oldKey, old] of this.#pools) {
      this.#pools.delete(oldKey);
      void old.close().catch(() => undefined);
    }
    this.#pools.set(key, fresh);
  }

  /** Closes the pooled connections (after in-flight requests finish). */
  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((d) => d.close().catch(() => undefined)));
  }
}

/** Loads a kubeconfig file (or the default chain: $KUBECONFIG, ~/.kube/config, in-cluster) into a pooled config. */
export function loadKubeConfig(path = ''): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  if (path !== '') kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}
