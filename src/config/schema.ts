/**
 * The one zod schema of the CCM's configuration. Inputs are raw: strings from flags, env and defaults, or
 * JSON/YAML values from the cloud-config file; each field coerces its own type (durations like `15s`, `5m`,
 * `1h30m`, `500ms` become milliseconds). Cross-field rules are in `superRefine` so every bad field is named.
 */
import { z } from 'zod';
import { splitHost } from '../../simulator/api/host-check.ts';
import { BearerToken } from '../../simulator/api/schema/projects.ts';

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style duration to milliseconds; `undefined` when malformed. Plain numbers are seconds. */
export function parseDuration(raw: string): number | undefined {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(DURATION_PART)) total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  return total;
}

const fromString =
  (parse: (raw: string) => unknown) =>
  (v: unknown): unknown =>
    typeof v === 'string' ? parse(v) : v;

const boolish = z.preprocess(
  fromString((raw) => {
    const v = raw.trim().toLowerCase();
    if (v === 'true' || v === '1' || v === '') return true;
    if (v === 'false' || v === '0') return false;
    return raw;
  }),
  z.boolean({ error: 'must be true or false' }),
);
const intish = (min: number, max: number): z.ZodType<number, unknown> =>
  z.preprocess(fromString((raw) => (/^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw)), z.number({ error: 'must be an integer' }).int().min(min).max(max));
const floatish = (min: number): z.ZodType<number, unknown> => z.preprocess(fromString((raw) => (Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw)), z.number({ error: 'must be a number' }).min(min));
const duration = (minMs: number): z.ZodType<number, unknown> =>
  z.preprocess(fromString((raw) => parseDuration(raw) ?? raw), z.number({ error: 'must be a duration like 500ms, 15s, 5m or 1h30m' }).min(minMs));
const list = z.preprocess(
  fromString((raw) => raw.split(',').map((x) => x.trim()).filter((x) => x !== '')),
  z.array(z.string().min(1)),
);
const hostList = z.preprocess(
  fromString((raw) => raw.split(',').map((x) => x.trim().toLowerCase()).filter((x) => x !== '')),
  z.array(z.string().refine((h) => splitHost(h) !== undefined, 'must be host names or NAME:PORT, comma-separated (no scheme, no wildcard)')),
);
const text = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string({ error: 'must be a string' }));

const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$|^[0-9a-fA-F:]+\/\d{1,3}$/;

export const ConfigSchema = z
  .object({
    cloudProvider: text.refine((v) => v === 'simcloud', { message: 'must be simcloud (--cloud-provider cannot be empty)' }),
    cloudConfig: text,
    kubeconfig: text,
    clusterName: text.pipe(z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label (a-z, 0-9, -), at most 63 characters')),
    controllers: list,
    leaderElect: boolish,
    leaderElectLeaseDuration: duration(1),
    leaderElectRenewDeadline: duration(1),
    leaderElectRetryPeriod: duration(1),
    leaderElectResourceName: text.pipe(z.string().min(1)),
    leaderElectResourceNamespace: text.pipe(z.string().min(1)),
    concurrentServiceSyncs: intish(1, 100),
    concurrentNodeSyncs: intish(1, 100),
    nodeMonitorPeriod: duration(1),
    nodeStatusUpdateFrequency: duration(1),
    routeReconciliationPeriod: duration(1),
    configureCloudRoutes: boolish,
    clusterCIDR: text.refine((v) => v === '' || v.split(',').every((c) => CIDR.test(c.trim())), 'must be a CIDR or a comma list of CIDRs'),
    kubeApiQps: floatish(0.01),
    kubeApiBurst: intish(1, 100_000),
    bindAddress: text.pipe(z.string().min(1)),
    securePort: intish(0, 65535),
    insecureHttp: boolish,
    allowedHosts: hostList,
    verbosity: intish(0, 10),
    loadBalancerClass: text,
    endpoint: text.pipe(z.string().min(1, 'is required (the simcloud API URL)').pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))),
    token: text.pipe(z.string().min(1, 'is required (the simcloud API token)')).pipe(BearerToken),
    requestTimeout: duration(1),
    network: text,
    routesEnabled: boolish,
    loadBalancersEnabled: boolish,
    loadBalancerStrategy: z.enum(['lb', 'ip-block'], { error: 'must be one of: lb, ip-block' }),
    logFormat: z.enum(['json', 'pretty'], { error: 'must be one of: json, pretty' }),
  })
  .superRefine((c, ctx) => {
    if (c.leaderElect && c.leaderElectRenewDeadline >= c.leaderElectLeaseDuration) {
      ctx.addIssue({ code: 'custom', path: ['leaderElectRenewDeadline'], message: 'must be less than the lease duration' });
    }
  });

export type CcmConfig = z.output<typeof ConfigSchema>;

/** The cloud-config file: known keys only, so a typo is named instead of ignored. */
export const CloudConfigFileSchema = z.strictObject({
  clusterName: z.unknown().optional(),
  endpoint: z.unknown().optional(),
  token: z.unknown().optional(),
  requestTimeout: z.unknown().optional(),
  routes: z.strictObject({ enabled: z.unknown().optional(), network: z.unknown().optional() }).optional(),
  loadBalancer: z.strictObject({ enabled: z.unknown().optional(), strategy: z.unknown().optional() }).optional(),
});
