/**
 * The one registry of Service annotations the simcloud provider reads (prefix `loadbalancer.simcloud.dev/`).
 * Each entry carries its type, default, allowed values and description; `scripts/generate-docs.ts` renders
 * `docs/reference/annotations.md` from it. `parseLoadBalancerAnnotations` turns a Service's annotations into a
 * typed config or a list of errors naming each bad annotation and its allowed values, so an invalid value is
 * reported before any cloud call is made.
 */
import { z } from 'zod';

export const ANNOTATION_PREFIX = 'loadbalancer.simcloud.dev/';

/** Upstream fallback for `spec.loadBalancerSourceRanges` (`cp service/helpers`). */
export const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

export const LISTENER_PROTOCOLS = ['tcp', 'http', 'https'] as const;
export type ListenerProtocol = (typeof LISTENER_PROTOCOLS)[number];
export const PROXY_PROTOCOLS = ['none', 'v1', 'v2'] as const;
export type ProxyProtocol = (typeof PROXY_PROTOCOLS)[number];
export const HEALTH_CHECK_PROTOCOLS = ['tcp', 'http'] as const;
export type HealthCheckProtocol = (typeof HEALTH_CHECK_PROTOCOLS)[number];
export const ALGORITHMS = ['round_robin', 'least_connections'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const AnnotationType = {
  String: 'string',
  Enum: 'enum',
  Integer: 'integer',
  Boolean: 'boolean',
  Json: 'json',
} as const;
export type AnnotationType = (typeof AnnotationType)[keyof typeof AnnotationType];

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export interface AnnotationDefinition<T> {
  /** Full annotation key, e.g. `loadbalancer.simcloud.dev/protocol`. */
  readonly key: string;
  readonly type: AnnotationType;
  /** The value used when the annotation is absent, as documented ('' = none). */
  readonly defaultText: string;
  /** Allowed values as shown in errors and docs, e.g. `tcp, http, https` or `1..65535`. */
  readonly allowed: string;
  readonly description: string;
  readonly defaultValue: T;
  readonly parse: (raw: string) => Parsed<T>;
}

interface Described {
  readonly name: string;
  readonly description: string;
}

function enumAnnotation<const V extends readonly string[]>(
  d: Described & { readonly values: V; readonly default: V[number] },
): AnnotationDefinition<V[number]> {
  const allowed = d.values.join(', ');
  return {
    key: ANNOTATION_PREFIX + d.name,
    type: AnnotationType.Enum,
    defaultText: d.default,
    allowed,
    description: d.description,
    defaultValue: d.default,
    parse: (raw) => {
      const value = d.values.find((v) => v === raw.trim());
      return value === undefined ? { ok: false, message: `must be one of: ${allowed}` } : { ok: true, value };
    },
  };
}

function intAnnotation<D extends number | undefined>(
  d: Described & { readonly min: number; readonly max: number; readonly default: D; readonly defaultText?: string },
): AnnotationDefinition<number | D> {
  const allowed = `integer ${d.min}..${d.max}`;
  return {
    key: ANNOTATION_PREFIX + d.name,
    type: AnnotationType.Integer,
    defaultText: d.defaultText ?? String(d.default),
    allowed,
    description: d.description,
    defaultValue: d.default,
    parse: (raw) => {
      const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
      const ok = Number.isInteger(value) && value >= d.min && value <= d.max;
      return ok ? { ok: true, value } : { ok: false, message: `must be an ${allowed}` };
    },
  };
}

function boolAnnotation(d: Described & { readonly default: boolean }): AnnotationDefinition<boolean> {
  return {
    key: ANNOTATION_PREFIX + d.name,
    type: AnnotationType.Boolean,
    defaultText: String(d.default),
    allowed: 'true, false',
    description: d.description,
    defaultValue: d.default,
    parse: (raw) => {
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === 'false') return { ok: true, value: v === 'true' };
      return { ok: false, message: 'must be one of: true, false' };
    },
  };
}

function stringAnnotation<D extends string | undefined>(
  d: Described & { readonly pattern: RegExp; readonly allowed: string; readonly default: D; readonly defaultText?: string },
): AnnotationDefinition<string | D> {
  return {
    key: ANNOTATION_PREFIX + d.name,
    type: AnnotationType.String,
    defaultText: d.defaultText ?? d.default ?? '',
    allowed: d.allowed,
    description: d.description,
    defaultValue: d.default,
    parse: (raw) => (d.pattern.test(raw.trim()) ? { ok: true, value: raw.trim() } : { ok: false, message: `must be ${d.allowed}` }),
  };
}

/** The per-port override object of a `port-<n>` annotation. */
export const PortOverrideSchema = z.strictObject({
  protocol: z.enum(LISTENER_PROTOCOLS).optional(),
  'proxy-protocol': z.enum(PROXY_PROTOCOLS).optional(),
  'health-check-protocol': z.enum(HEALTH_CHECK_PROTOCOLS).optional(),
  'health-check-port': z.number().int().min(1).max(65535).optional(),
  'health-check-path': z
    .string()
    .regex(/^\/\S*$/)
    .optional(),
});
export type PortOverride = z.infer<typeof PortOverrideSchema>;

const PORT_OVERRIDE_ALLOWED =
  'JSON object with optional keys protocol (tcp, http, https), proxy-protocol (none, v1, v2), ' +
  'health-check-protocol (tcp, http), health-check-port (1..65535), health-check-path (/...)';

/** `port-<n>`: one definition for a family of keys; `<n>` is the Service port number. */
export const PORT_OVERRIDE_PREFIX = `${ANNOTATION_PREFIX}port-`;
export const portOverrideAnnotation: AnnotationDefinition<PortOverride | undefined> = {
  key: `${PORT_OVERRIDE_PREFIX}<n>`,
  type: AnnotationType.Json,
  defaultText: '',
  allowed: PORT_OVERRIDE_ALLOWED,
  description:
    "Overrides for the listener of Service port <n> (the `port`, not the nodePort), like Linode's `port-*`: " +
    'e.g. `{"protocol":"http","health-check-path":"/ready"}`. Keys not given fall back to the Service-wide annotations.',
  defaultValue: undefined,
  parse: (raw) => {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { ok: false, message: `must be a ${PORT_OVERRIDE_ALLOWED}` };
    }
    const result = PortOverrideSchema.safeParse(json);
    return result.success ? { ok: true, value: result.data } : { ok: false, message: `must be a ${PORT_OVERRIDE_ALLOWED}` };
  },
};

/** Every scalar annotation, keyed by the config field it fills. */
export const loadBalancerAnnotations = {
  protocol: enumAnnotation({
    name: 'protocol',
    values: LISTENER_PROTOCOLS,
    default: 'tcp',
    description:
      'Protocol of the listener of every TCP port (overridable per port). A UDP Service port is always a udp listener, without a PROXY header, checked only through `spec.healthCheckNodePort` (else not at all), its node port opened over UDP.',
  }),
  proxyProtocol: enumAnnotation({
    name: 'proxy-protocol',
    values: PROXY_PROTOCOLS,
    default: 'none',
    description: 'PROXY protocol header version sent to the backends (overridable per port).',
  }),
  algorithm: enumAnnotation({
    name: 'algorithm',
    values: ALGORITHMS,
    default: 'round_robin',
    description: 'How the load balancer picks a backend node.',
  }),
  healthCheckProtocol: enumAnnotation({
    name: 'health-check-protocol',
    values: HEALTH_CHECK_PROTOCOLS,
    default: 'tcp',
    description:
      'Health check protocol. With `externalTrafficPolicy: Local` and no health-check annotations the check is ' +
      'http on `spec.healthCheckNodePort` path `/healthz`, as upstream.',
  }),
  healthCheckPort: intAnnotation({
    name: 'health-check-port',
    min: 1,
    max: 65535,
    default: undefined,
    defaultText: "the listener's nodePort",
    description: 'Node port the health check connects to.',
  }),
  healthCheckPath: stringAnnotation({
    name: 'health-check-path',
    pattern: /^\/\S*$/,
    allowed: 'an absolute path starting with /',
    default: '/',
    description: 'HTTP path of an http health check.',
  }),
  healthCheckInterval: intAnnotation({
    name: 'health-check-interval',
    min: 1,
    max: 3600,
    default: 10,
    description: 'Seconds between two health checks of a backend.',
  }),
  healthCheckTimeout: intAnnotation({
    name: 'health-check-timeout',
    min: 1,
    max: 300,
    default: 5,
    description: 'Seconds before one health check counts as failed.',
  }),
  healthCheckRetries: intAnnotation({
    name: 'health-check-retries',
    min: 1,
    max: 10,
    default: 3,
    description: 'Consecutive results needed to flip a backend between healthy and unhealthy.',
  }),
  hostnameOnlyIngress: boolAnnotation({
    name: 'hostname-only-ingress',
    default: false,
    description: "Report only the load balancer's hostname in `status.loadBalancer.ingress`, no IP.",
  }),
  preserve: boolAnnotation({
    name: 'preserve',
    default: false,
    description: 'Keep the cloud resources when the Service is deleted (the finalizer is still removed).',
  }),
  certificateId: stringAnnotation({
    name: 'certificate-id',
    pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
    allowed: 'a simcloud certificate id (letters, digits, `_.-`)',
    default: undefined,
    description:
      'A certificate uploaded to simcloud (`POST /v1/certificates`): every https listener terminates TLS with it on the VIP ' +
      'and forwards plain HTTP to the node port. Without it an https listener passes TLS through as TCP.',
  }),
  redirectHttpToHttps: boolAnnotation({
    name: 'redirect-http-to-https',
    default: false,
    description: "Every http listener answers each request with a 301 to the same path on the first https listener's port.",
  }),
  loadBalancerId: stringAnnotation({
    name: 'load-balancer-id',
    pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
    allowed: 'a simcloud resource id (letters, digits, `_.-`)',
    default: undefined,
    description:
      'Adopt an existing load balancer (strategy `lb`) or IP block (strategy `ip-block`) by id instead of creating ' +
      'one. It is relabelled as owned by this Service and managed from then on.',
  }),
} as const;

type Registry = typeof loadBalancerAnnotations;
type ValueOf<D> = D extends AnnotationDefinition<infer T> ? T : never;

/** The typed result of parsing a Service's annotations. */
export type LoadBalancerAnnotationConfig = { readonly [K in keyof Registry]: ValueOf<Registry[K]> } & {
  /** Per-port overrides keyed by Service port number. */
  readonly portOverrides: ReadonlyMap<number, PortOverride>;
};

/** One bad annotation: its key, the value found, and what is allowed. */
export interface AnnotationIssue {
  readonly annotation: string;
  readonly value: string;
  readonly allowed: string;
  readonly message: string;
}

export type AnnotationParseResult =
  { readonly ok: true; readonly config: LoadBalancerAnnotationConfig } | { readonly ok: false; readonly errors: readonly AnnotationIssue[] };

/** Every definition, in registry order, for docs and error messages. */
export function annotationDefinitions(): readonly AnnotationDefinition<unknown>[] {
  return [...Object.values(loadBalancerAnnotations), portOverrideAnnotation];
}

function issue(key: string, value: string, def: AnnotationDefinition<unknown>, message: string): AnnotationIssue {
  return { annotation: key, value, allowed: def.allowed, message: `annotation ${key}="${value}" ${message}` };
}

function parsePortOverrides(annotations: Readonly<Record<string, string>>, errors: AnnotationIssue[]): Map<number, PortOverride> {
  const overrides = new Map<number, PortOverride>();
  for (const [key, raw] of Object.entries(annotations)) {
    if (!key.startsWith(PORT_OVERRIDE_PREFIX)) continue;
    const port = Number(key.slice(PORT_OVERRIDE_PREFIX.length));
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      errors.push(issue(key, raw, portOverrideAnnotation, 'names no valid port: use port-<n> with n in 1..65535'));
      continue;
    }
    const parsed = portOverrideAnnotation.parse(raw);
    if (parsed.ok && parsed.value) overrides.set(port, parsed.value);
    else if (!parsed.ok) errors.push(issue(key, raw, portOverrideAnnotation, parsed.message));
  }
  return overrides;
}

function unknownKeys(annotations: Readonly<Record<string, string>>): AnnotationIssue[] {
  const known = new Set(Object.values(loadBalancerAnnotations).map((d) => d.key));
  const allowed = annotationDefinitions()
    .map((d) => d.key.slice(ANNOTATION_PREFIX.length))
    .join(', ');
  return Object.entries(annotations)
    .filter(([key]) => key.startsWith(ANNOTATION_PREFIX) && !key.startsWith(PORT_OVERRIDE_PREFIX) && !known.has(key))
    .map(([key, value]) => ({
      annotation: key,
      value,
      allowed,
      message: `annotation ${key} is not known; known ${ANNOTATION_PREFIX} annotations: ${allowed}`,
    }));
}

/**
 * Parses every `loadbalancer.simcloud.dev/` annotation. Unknown keys under the prefix are errors too, so a
 * typo is reported rather than silently ignored.
 */
export function parseLoadBalancerAnnotations(annotations: Readonly<Record<string, string>> | undefined): AnnotationParseResult {
  const source = annotations ?? {};
  const errors: AnnotationIssue[] = unknownKeys(source);
  const values: Record<string, unknown> = {};
  for (const [field, def] of Object.entries(loadBalancerAnnotations) as [string, AnnotationDefinition<unknown>][]) {
    const raw = source[def.key];
    if (raw === undefined) {
      values[field] = def.defaultValue;
      continue;
    }
    const parsed = def.parse(raw);
    if (parsed.ok) values[field] = parsed.value;
    else errors.push(issue(def.key, raw, def, parsed.message));
  }
  const portOverrides = parsePortOverrides(source, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, config: { ...(values as { [K in keyof Registry]: ValueOf<Registry[K]> }), portOverrides } };
}

/** Thrown before any cloud call when a Service carries invalid annotations; the message names each one. */
export class InvalidAnnotationError extends Error {
  readonly issues: readonly AnnotationIssue[];
  constructor(issues: readonly AnnotationIssue[]) {
    super(`invalid service annotations: ${issues.map((i) => i.message).join('; ')}`);
    this.name = 'InvalidAnnotationError';
    this.issues = issues;
  }
}

/** The parsed config, or throws `InvalidAnnotationError` listing every problem. */
export function loadBalancerConfigOf(annotations: Readonly<Record<string, string>> | undefined): LoadBalancerAnnotationConfig {
  const result = parseLoadBalancerAnnotations(annotations);
  if (!result.ok) throw new InvalidAnnotationError(result.errors);
  return result.config;
}
