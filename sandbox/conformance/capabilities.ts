// The capabilities the conformance run checks, in the order it checks them on one sandbox: each later
// one builds on what the earlier ones left (the LB Service, a joined node, a deleted one), so no second
// sandbox is needed.
export const CAPABILITIES = [
  'node-init',
  'lb-basic',
  'lb-update',
  'lb-annotations',
  'lb-tls',
  'traffic-policy',
  'in-cluster',
  'idle-budget',
  'api-faults',
  'rate-limit',
  'node-churn',
  'lb-delete',
  'lifecycle',
  'routes',
  'restart',
  'upgrade',
  'down-delete',
  'neighbours',
  'leak',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface CapabilityInfo {
  readonly title: string;
  /** What must have passed first; when it did not, this one is skipped (or not offered, with it). */
  readonly needs: Capability | null;
  /**
   * Checked only when `--only` names it: it stops and starts the CCM, brings up a second cluster, or (lb-tls)
   * needs what not every CCM run here does yet (our Go CCM's linode provider reads no TLS Secrets).
   */
  readonly optIn?: true;
}

export const CAPABILITY_INFO: Readonly<Record<Capability, CapabilityInfo>> = {
  'node-init': { title: 'node initialisation: providerID, region/zone/type labels, addresses, taint removed', needs: null },
  'lb-basic': { title: 'LoadBalancer Service: ingress, a pod answers through the VIP, the cloud LB targets the nodes', needs: 'node-init' },
  'lb-update': { title: 'LB update: a second port, a node joining', needs: 'lb-basic' },
  'lb-annotations': { title: "LB annotations: PROXY protocol, HTTP health check, the cloud's own settings", needs: 'lb-basic' },
  'lb-tls': {
    title:
      "TLS termination: a user's certificate, put where the cloud's CCM reads it and named by annotations, ends TLS on the VIP (verified against its CA), a pod answers behind it, http redirects to https",
    needs: 'lb-basic',
    optIn: true,
  },
  'traffic-policy': {
    title:
      "traffic policy: Cluster → Local → Cluster on a live Service; health checks follow healthCheckNodePort, under Local only the pod's node takes traffic, the VIP kept",
    needs: 'lb-basic',
  },
  'in-cluster': {
    title: "in-cluster clients: a node reaches a PROXY-protocol LB's address and the backend gets its header (ipMode Proxy, KEP-1860)",
    needs: 'lb-basic',
  },
  'idle-budget': { title: "idle budget: a settled CCM's calls per endpoint over a quiet window, within the budget", needs: 'node-init' },
  'api-faults': {
    title: 'API faults: lookups failing (500, 503, 403 or 401, timeout, secondary call) delete no Node and taint none; converges after',
    needs: 'node-init',
  },
  'rate-limit': {
    title: "rate limit: 429s with the provider's own headers for a window; no request before the announced time, converges after",
    needs: 'node-init',
  },
  'node-churn': {
    title: 'node churn: five nodes joining at once all targeted, an excluded node and a deleted server dropped, the LB consistent',
    needs: 'lb-basic',
  },
  'lb-delete': { title: 'LB delete: finalizer gone, cloud LB gone', needs: 'lb-basic' },
  lifecycle: { title: "node lifecycle: shutdown taint on power-off, cleared on power-on, a vanished server's Node deleted", needs: 'node-init' },
  routes: { title: 'routes: one per podCIDR via the node, NetworkUnavailable=False, stale routes removed', needs: 'node-init' },
  restart: {
    title: 'CCM restart: every load balancer, target, firewall and route keeps its identity and settings; writes listed with their effect',
    needs: 'node-init',
    optIn: true,
  },
  upgrade: {
    title: 'CCM upgrade from --upgrade-from: nothing the previous CCM built is recreated or renamed; then an LB update',
    needs: 'node-init',
    optIn: true,
  },
  'down-delete': {
    title: 'CCM down: a Service deleted, a server deleted and a node joined meanwhile are handled once it is back',
    needs: 'node-init',
    optIn: true,
  },
  neighbours: {
    title: "two clusters on one cloud account: neither CCM touches the other's load balancers or routes, nor resources made by hand",
    needs: 'node-init',
    optIn: true,
  },
  leak: { title: 'leak check: no cloud resource left that no Service or Node explains', needs: null },
};

/** What a run without `--only` checks: every capability but the opt-in ones. */
export const DEFAULT_CAPABILITIES: readonly Capability[] = CAPABILITIES.filter((c) => !CAPABILITY_INFO[c].optIn);

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/** The capabilities `only` names, with what they need, in run order. */
export function withNeeds(only: readonly Capability[]): Capability[] {
  const wanted = new Set<Capability>();
  const add = (c: Capability): void => {
    if (wanted.has(c)) return;
    wanted.add(c);
    const need = CAPABILITY_INFO[c].needs;
    if (need) add(need);
  };
  only.forEach(add);
  return CAPABILITIES.filter((c) => wanted.has(c));
}

/** The adversity capabilities (issue 46): they hold windows of time, so suites that check the others leave them out. */
export const ADVERSITY_CAPABILITIES: readonly Capability[] = ['traffic-policy', 'in-cluster', 'idle-budget', 'api-faults', 'rate-limit', 'node-churn'];
