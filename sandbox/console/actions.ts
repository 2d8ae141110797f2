// The console's actions, each with a zod schema for its body: power a server off or on, reboot or delete
// it; add a worker; create or delete an example LoadBalancer Service with annotations from the provider's
// registry (src/simcloud/annotations.ts, each value checked by the registry's own parser); add and clear
// fault rules (latency, error rate, rate limit) on the CCM's API paths; reset to a clean cluster; create and
// delete example pods (a Deployment, optionally pinned to a Node); hold the CCM and let it go (the node tour).
import type { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { z } from 'zod';
import type { FaultRuleInput } from '../../simulator/api/schema/internal.ts';
import { annotationDefinitions, ANNOTATION_PREFIX, loadBalancerAnnotations, type AnnotationDefinition } from '../../src/simcloud/annotations.ts';
import { resetSandbox } from '../reset.ts';
import { CONSOLE_CALLER } from './cloud.ts';
import type { ConsoleSandbox } from './hub.ts';

const opts = { caller: CONSOLE_CALLER };

export const ServerActionBody = z.strictObject({
  serverId: z.string().regex(/^[a-z]{2,5}-[A-Za-z0-9]{1,40}$/, 'must be a simcloud server id like srv-0001'),
  action: z.enum(['poweroff', 'poweron', 'reboot', 'delete']),
});

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KNOWN = new Map<string, AnnotationDefinition<unknown>>(Object.values(loadBalancerAnnotations).map((d) => [d.key, d as AnnotationDefinition<unknown>]));

/** Checks each annotation with the registry's parser, so a bad value is refused here with the same words. */
function checkAnnotations(annotations: Record<string, string>, ctx: z.RefinementCtx): void {
  for (const [key, value] of Object.entries(annotations)) {
    const def = KNOWN.get(key);
    if (!def) {
      ctx.addIssue({
        code: 'custom',
        path: ['annotations', key],
        message: `unknown annotation; known: ${[...KNOWN.keys()].map((k) => k.slice(ANNOTATION_PREFIX.length)).join(', ')}`,
      });
      continue;
    }
    const parsed = def.parse(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['annotations', key], message: parsed.message });
  }
}

export const CreateServiceBody = z
  .strictObject({
    name: z.string().min(1).max(40).regex(DNS_LABEL, 'must be a DNS label: lower-case letters, digits and dashes'),
    port: z.number().int().min(1).max(65535).default(80),
    sourceRanges: z.array(z.cidrv4()).max(8).optional(),
    annotations: z.record(z.string(), z.string().max(256)).default({}),
  })
  .superRefine((b, ctx) => checkAnnotations(b.annotations, ctx));

export const DeleteServiceBody = z.strictObject({
  name: z.string().min(1).max(63).regex(DNS_LABEL, 'must be a DNS label'),
  namespace: z.string().min(1).max(63).regex(DNS_LABEL, 'must be a DNS label').default('default'),
});

export const HoldCcmBody = z.strictObject({ hold: z.boolean() });

/** Example pods: a Deployment `name` (label app=<name>, port 8080, what a console Service selects), optionally pinned to a Node. */
export const CreatePodsBody = z.strictObject({
  name: z.string().min(1).max(40).regex(DNS_LABEL, 'must be a DNS label: lower-case letters, digits and dashes'),
  replicas: z.number().int().min(1).max(5).default(2),
  node: z.string().min(1).max(63).regex(DNS_LABEL, 'must be a Node name').optional(),
});

export const DeletePodsBody = z.strictObject({ name: z.string().min(1).max(40).regex(DNS_LABEL, 'must be a DNS label') });

export const FAULT_SCOPES = { all: '/v1/**', servers: '/v1/servers/**', loadBalancers: '/v1/load_balancers/**', networks: '/v1/networks/**' } as const;

export const FaultBody = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('latency'),
    scope: z.enum(Object.keys(FAULT_SCOPES) as [keyof typeof FAULT_SCOPES]).default('all'),
    latencyMs: z.number().int().min(1).max(10_000),
  }),
  z.strictObject({
    kind: z.literal('error'),
    scope: z.enum(Object.keys(FAULT_SCOPES) as [keyof typeof FAULT_SCOPES]).default('all'),
    probability: z.number().min(0.01).max(1),
    status: z.union([z.literal(500), z.literal(503)]).default(503),
  }),
  z.strictObject({
    kind: z.literal('rate_limit'),
    scope: z.enum(Object.keys(FAULT_SCOPES) as [keyof typeof FAULT_SCOPES]).default('all'),
    limit: z.number().int().min(1).max(100_000),
    windowSeconds: z.number().int().min(1).max(3600),
  }),
]);
export type FaultBody = z.infer<typeof FaultBody>;

/** The annotation form the UI renders: key, type, allowed values, default, description. */
export function annotationChoices(): { key: string; type: string; allowed: string; values: string[] | null; defaultText: string; description: string }[] {
  const fromRegistry = annotationDefinitions().filter((d) => KNOWN.has(d.key));
  return fromRegistry.map((d) => ({
    key: d.key,
    type: d.type,
    allowed: d.allowed,
    defaultText: d.defaultText,
    description: d.description,
    values: d.type === 'enum' || d.type === 'boolean' ? d.allowed.split(',').map((v) => v.trim()) : null,
  }));
}

export function faultRule(b: FaultBody): FaultRuleInput {
  const match = { path: FAULT_SCOPES[b.scope] };
  if (b.kind === 'latency') return { kind: 'latency', match, latency_ms: b.latencyMs };
  if (b.kind === 'error')
    return {
      kind: 'error',
      match,
      probability: b.probability,
      status: b.status,
      code: b.status === 503 ? 'service_unavailable' : 'server_error',
      message: 'injected by the console',
    };
  return { kind: 'rate_limit', match, limit: b.limit, window_seconds: b.windowSeconds };
}

export async function serverAction(sandbox: ConsoleSandbox, b: z.infer<typeof ServerActionBody>): Promise<string> {
  const servers = sandbox.client.servers;
  const run = {
    poweroff: () => servers.poweroff(b.serverId, opts),
    poweron: () => servers.poweron(b.serverId, opts),
    reboot: () => servers.reboot(b.serverId, opts),
    delete: () => servers.delete(b.serverId, opts),
  };
  const action = await run[b.action]();
  return `${b.action} of ${b.serverId} started (action ${action.id})`;
}

export const CREATED_BY_LABEL = 'app.kubernetes.io/created-by';

export async function createService(core: CoreV1Api, b: z.infer<typeof CreateServiceBody>): Promise<string> {
  await core.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name: b.name, labels: { [CREATED_BY_LABEL]: 'ccm-sandbox-console' }, annotations: b.annotations },
      spec: {
        type: 'LoadBalancer',
        selector: { app: b.name },
        ports: [{ name: 'http', port: b.port, targetPort: 8080 }],
        ...(b.sourceRanges ? { loadBalancerSourceRanges: b.sourceRanges } : {}),
      },
    },
  });
  return `Service default/${b.name} created`;
}

export async function createPods(apps: AppsV1Api, b: z.infer<typeof CreatePodsBody>): Promise<string> {
  const labels = { app: b.name, [CREATED_BY_LABEL]: 'ccm-sandbox-console' };
  const pin = b.node ? { nodeSelector: { 'kubernetes.io/hostname': b.node } } : {};
  await apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: b.name, labels },
      spec: {
        replicas: b.replicas,
        selector: { matchLabels: { app: b.name } },
        template: { metadata: { labels }, spec: { ...pin, containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }] }] } },
      },
    },
  });
  return `Deployment default/${b.name}: ${b.replicas} pod(s)${b.node ? ` pinned to Node ${b.node}` : ''}`;
}

/** Clears faults, deletes every LoadBalancer Service (the CCM cleans up the cloud) and powers servers on. */
export async function resetAction(sandbox: ConsoleSandbox, core: CoreV1Api | undefined): Promise<string> {
  const r = await resetSandbox({ client: sandbox.client, admin: sandbox.admin, core, callOptions: opts });
  return `reset: faults cleared, ${r.deletedServices} LoadBalancer Service(s) deleted, ${r.poweredOn} server(s) powered on`;
}
