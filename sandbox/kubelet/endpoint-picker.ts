// Endpoint choice for the kube-proxy stand-in: round robin over a Service port's usable endpoints,
// and ClientIP session affinity as kube-proxy keeps it: a client address is pinned to the endpoint it
// last used, the pin lasting `timeout` after the client's latest connection (kube-proxy's "recent"
// table refreshes on every new connection), and dropped when that endpoint is no longer usable.
import type { Clock } from '../../src/kube/clock.ts';
import type { ProxyEndpoint } from './proxy-table.ts';

interface Pin {
  readonly endpoint: string;
  lastSeen: number;
}

const endpointKey = (e: ProxyEndpoint): string => `${e.address}:${e.port}`;

export class EndpointPicker {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #next = new Map<string, number>();
  readonly #pins = new Map<string, Map<string, Pin>>();

  constructor(clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
  }

  /**
   * Picks for one connection to `portKey` (a Service port) from `client`; undefined when there is
   * nothing to pick from. `affinityTimeoutMs` null means no session affinity.
   */
  pick(portKey: string, endpoints: readonly ProxyEndpoint[], client: string, affinityTimeoutMs: number | null): ProxyEndpoint | undefined {
    if (endpoints.length === 0) return undefined;
    const now = this.#clock.now();
    const pins = affinityTimeoutMs === null ? undefined : this.#pinsOf(portKey, now, affinityTimeoutMs);
    const pin = pins?.get(client);
    const pinned = pin && endpoints.find((e) => endpointKey(e) === pin.endpoint);
    const chosen = pinned ?? this.#roundRobin(portKey, endpoints);
    pins?.set(client, { endpoint: endpointKey(chosen), lastSeen: now });
    return chosen;
  }

  /** Forgets the state of Service ports no longer proxied. */
  retain(portKeys: ReadonlySet<string>): void {
    for (const map of [this.#next, this.#pins]) for (const key of [...map.keys()]) if (!portKeys.has(key)) map.delete(key);
  }

  #roundRobin(portKey: string, endpoints: readonly ProxyEndpoint[]): ProxyEndpoint {
    const i = (this.#next.get(portKey) ?? 0) % endpoints.length;
    this.#next.set(portKey, i + 1);
    return endpoints[i]!;
  }

  /** The port's pins with expired ones swept out (the sweep keeps the table bounded by live clients). */
  #pinsOf(portKey: string, now: number, timeoutMs: number): Map<string, Pin> {
    let pins = this.#pins.get(portKey);
    if (!pins) {
      pins = new Map();
      this.#pins.set(portKey, pins);
    }
    for (const [client, pin] of pins) if (now - pin.lastSeen >= timeoutMs) pins.delete(client);
    return pins;
  }
}
