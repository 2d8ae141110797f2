// The Hetzner Cloud persona as the sandbox presents it: servers and the network made through /hcloud/v1,
// Hetzner's CCM environment, and a load balancer read back as Hetzner's API shows it.
import { z } from 'zod';
import { numericIdOf, simcloudId } from '../../../simulator/personas/numeric-ids.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';
import { HCLOUD_API_PREFIX, HCLOUD_CCM_BINARY, hcloudCcmCommand, hcloudCcmEnv, hcloudEndpoint } from './env.ts';
import { HcloudMachines } from './machines.ts';

const ServerRef = z.object({ type: z.literal('server'), server: z.object({ id: z.number() }) });
const Target = z.union([ServerRef, z.object({ type: z.literal('label_selector'), targets: z.array(ServerRef).nullish() }), z.object({ type: z.string() })]);
const LoadBalancers = z.object({
  load_balancers: z.array(z.object({
    id: z.number(),
    public_net: z.object({ ipv4: z.object({ ip: z.string().nullable() }) }),
    services: z.array(z.object({ listen_port: z.number() })),
    targets: z.array(Target),
  })),
});

type HcloudTarget = z.infer<typeof Target>;
const serversOf = (t: HcloudTarget): number[] => {
  if ('server' in t) return [t.server.id];
  if ('targets' in t) return (t.targets ?? []).map((x) => x.server.id);
  return [];
};

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const res = await ctx.api.call('conformance.hcloud.loadBalancers.list', LoadBalancers, { method: 'GET', path: `${HCLOUD_API_PREFIX}/load_balancers`, query: { per_page: 50 } });
  const lb = res.load_balancers.find((x) => x.public_net.ipv4.ip === vip);
  if (lb === undefined) return undefined;
  return { id: String(lb.id), ports: lb.services.map((s) => s.listen_port), serverIds: lb.targets.flatMap(serversOf).map((n) => simcloudId('srv', n)) };
}

export const hcloudCloud = defineCloud({
  kind: 'hcloud',
  title: 'Hetzner Cloud',
  apiUrl: hcloudEndpoint,
  tokenVariable: 'HCLOUD_TOKEN',
  clients: "any hcloud-go program (the hcloud CLI, Hetzner's CCM)",
  providerId: (serverId) => `hcloud://${numericIdOf(serverId)}`,
  ccmEnv: hcloudCcmEnv,
  upstream: { provider: 'hcloud', routes: true, extraArgs: ['--allow-untagged-cloud'] },
  builtinCcm: false,
  ownCcm: {
    binary: HCLOUD_CCM_BINARY,
    command: hcloudCcmCommand,
    note: 'the slot passes the HCLOUD_* variables above, its kubeconfig and the pod network',
  },
  machines: (o) => new HcloudMachines(o),
  conformance: {
    nodeLabels: { 'instance.hetzner.cloud/provided-by': 'cloud' },
    zones: true,
    sourceRanges: false,
    annotations: {
      prefix: 'load-balancer.hetzner.cloud/',
      values: {
        'uses-proxyprotocol': 'true', 'health-check-protocol': 'http', 'health-check-http-path': '/unhealthy', 'health-check-interval': '1s', 'health-check-timeout': '1s',
        'health-check-retries': '1', type: 'lb21', 'algorithm-type': 'least_connections',
      },
      healthPathKey: 'health-check-http-path',
    },
    readLoadBalancer,
  },
});
