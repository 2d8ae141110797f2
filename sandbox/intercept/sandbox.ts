// The interception proxy as one sandbox runs it: a new CA in <stateDir>/intercept (key 0600), the proxy in the
// sandbox's daemon in front of its simcloud, its access log in logs/intercept.log; and the environment that
// points a program at it (HTTPS_PROXY, SSL_CERT_FILE, NO_PROXY covering loopback), which a CCM in the slot for a
// cloud with real hostnames gets and `sandbox:env` prints for any tool.
import { join } from 'node:path';
import pino from 'pino';
import { createSimLogger } from '../../simulator/server/logger.ts';
import { REAL_HOSTS } from '../cloud/registry.ts';
import { createInterceptCa } from './ca.ts';
import { startInterceptProxy, type InterceptProxy } from './proxy.ts';

/** Where a sandbox's proxy listens and its CA's certificate file (state.json's `intercept`). */
export interface InterceptInfo {
  readonly url: string;
  readonly caFile: string;
}

/** Loopback in the spellings Go, curl and Python each read from NO_PROXY (Go never proxies loopback anyway). */
export const NO_PROXY_LOOPBACK = '127.0.0.1,127.0.0.0/8,localhost,::1';

/** The environment that sends a program's HTTPS to the API hostnames through the proxy, trusting its CA. */
export function interceptEnv(i: InterceptInfo): Record<string, string> {
  return { HTTPS_PROXY: i.url, SSL_CERT_FILE: i.caFile, NO_PROXY: NO_PROXY_LOOPBACK };
}

/** Starts the sandbox's proxy in front of simcloud at `simcloudUrl`, with a new CA. */
export async function startSandboxIntercept(o: {
  stateDir: string;
  simcloudUrl: string;
  allowedHosts: readonly string[];
}): Promise<{ info: InterceptInfo; proxy: InterceptProxy }> {
  const ca = await createInterceptCa(
    REAL_HOSTS.map((h) => h.name),
    join(o.stateDir, 'intercept'),
  );
  const logger = createSimLogger('info', pino.destination({ dest: join(o.stateDir, 'logs', 'intercept.log'), mkdir: true, sync: true, mode: 0o600 }));
  const proxy = await startInterceptProxy({ upstream: o.simcloudUrl, hosts: REAL_HOSTS, ca, logger, allowedHosts: o.allowedHosts });
  return { info: { url: proxy.url, caFile: ca.certFile! }, proxy };
}
