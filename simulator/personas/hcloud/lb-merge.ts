/** update_service: the stored service in Hetzner's terms with the request's fields laid over it. */
import { activeCheckView, tcpView, type LoadBalancerService } from '../../api/schema/load-balancers.ts';
import { numericIdOf } from '../numeric-ids.ts';
import type { ServiceAttrs } from './lb-attrs.ts';
import type { HealthCheck, ServiceBody, UpdateServiceBody } from './lb-schemas.ts';

type Defined<T> = { [K in keyof T]?: NonNullable<T[K]> };
/** The fields of `o` that carry a value (null and undefined dropped). */
const defined = <T extends object>(o: T | undefined): Defined<T> =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined && v !== null)) as Defined<T>;

function currentHealthCheck(s: LoadBalancerService, attrs: ServiceAttrs | undefined): HealthCheck {
  const hc = s.health_check;
  const http = attrs?.health_check_http;
  return {
    protocol: attrs?.health_check_protocol ?? activeCheckView(hc.protocol),
    ...(hc.port === null ? {} : { port: hc.port }),
    interval: Math.max(1, Math.round(hc.interval_seconds)),
    timeout: Math.max(1, Math.round(hc.timeout_seconds)),
    retries: Math.min(5, hc.retries),
    ...(hc.protocol === 'tcp' && http == null ? {} : { http: { ...defined(http ?? undefined), path: hc.path } }),
  };
}

function mergeHealthCheck(hc: HealthCheck, patch: UpdateServiceBody['health_check']): HealthCheck {
  const http = hc.http === undefined && patch?.http === undefined ? {} : { http: { ...hc.http, ...defined(patch?.http) } };
  return { ...hc, ...defined(patch), protocol: patch?.protocol ?? hc.protocol, ...http };
}

/** The stored certificate as Hetzner's `http.certificates`. */
const certificates = (s: LoadBalancerService): { certificates?: number[] } =>
  s.certificate_id == null ? {} : { certificates: [numericIdOf(s.certificate_id)] };

export function mergeService(s: LoadBalancerService, attrs: ServiceAttrs | undefined, patch: UpdateServiceBody): ServiceBody {
  const http = attrs?.http ?? undefined;
  return {
    protocol: patch.protocol ?? tcpView(s.protocol),
    listen_port: s.listen_port,
    destination_port: patch.destination_port ?? s.destination_port,
    proxyprotocol: patch.proxyprotocol ?? s.proxy_protocol !== 'none',
    health_check: mergeHealthCheck(currentHealthCheck(s, attrs), patch.health_check),
    ...(http === undefined && patch.http === undefined ? {} : { http: { ...defined(http), ...certificates(s), ...defined(patch.http) } }),
  };
}
