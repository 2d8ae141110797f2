// simcloud's own cloud: its /v1 API, the CCM environment our TypeScript CCM and the upstream Go CCM's
// simcloud provider read, and how the conformance run reads a load balancer back through /v1.
import { z } from 'zod';
import { CertificateResponse } from '../../../simulator/api/schema/certificates.ts';
import { LoadBalancer } from '../../../simulator/api/schema/load-balancers.ts';
import { upstreamCcmEnv } from '../../ccm/upstream.ts';
import { defineCloud, type CloudLoadBalancerView, type CloudReadContext } from '../descriptor.ts';

const LoadBalancerList = z.object({ load_balancers: z.array(LoadBalancer) });

async function readLoadBalancer(ctx: CloudReadContext, vip: string): Promise<CloudLoadBalancerView | undefined> {
  const { load_balancers: lbs } = await ctx.api.call('conformance.loadBalancers.list', LoadBalancerList, {
    method: 'GET',
    path: '/v1/load_balancers',
    query: { per_page: 200 },
  });
  const lb = lbs.find((x) => x.public_ipv4 === vip);
  if (lb === undefined) return undefined;
  return {
    id: lb.id,
    ports: lb.services.map((s) => s.listen_port),
    serverIds: lb.resolved_targets.flatMap((t) => (t.server_id === null ? [] : [t.server_id])),
    raw: lb,
    healthChecks: lb.services.map((s) => ({ listenPort: s.listen_port, port: s.health_check.port ?? s.destination_port, protocol: s.health_check.protocol })),
  };
}

export const simcloudCloud = defineCloud({
  kind: 'simcloud',
  title: 'simcloud',
  apiUrl: (simcloudUrl) => simcloudUrl,
  tokenVariable: 'SIMCLOUD_TOKEN',
  clients: 'the simcloud CLI (`npm run simcloud`)',
  providerId: (serverId) => `simcloud://${serverId}`,
  ccmEnv: (i) => upstreamCcmEnv({ endpoint: i.simcloudUrl, token: i.token, network: i.network, loadBalancerStrategy: i.lbStrategy }),
  upstream: { provider: 'simcloud', routes: true, extraArgs: [] },
  builtinCcm: true,
  conformance: {
    nodeLabels: {},
    lookupSecondary: { none: 'our CCMs read addresses from the server record (src/simcloud/client.ts, go/provider/simcloud/instances.go)' },
    zones: true,
    sourceRanges: true,
    healthChecks: {
      fast: {
        'loadbalancer.simcloud.dev/health-check-interval': '1',
        'loadbalancer.simcloud.dev/health-check-timeout': '1',
        'loadbalancer.simcloud.dev/health-check-retries': '1',
      },
    },
    proxyProtocol: { annotations: { 'loadbalancer.simcloud.dev/proxy-protocol': 'v1' } },
    annotations: {
      prefix: 'loadbalancer.simcloud.dev/',
      values: {
        'proxy-protocol': 'v1',
        'health-check-protocol': 'http',
        'health-check-path': '/unhealthy',
        'health-check-interval': '1',
        'health-check-retries': '1',
      },
      healthPathKey: 'health-check-path',
    },
    // A certificate uploaded to /v1/certificates, named on the https port by the builtin CCM's certificate-id.
    tls: {
      async upload(ctx, c) {
        const { certificate } = await ctx.api.call('conformance.certificates.create', CertificateResponse, {
          method: 'POST',
          path: '/v1/certificates',
          body: { name: c.name, certificate: c.chain, private_key: c.key },
        });
        return {
          'loadbalancer.simcloud.dev/protocol': 'http',
          'loadbalancer.simcloud.dev/port-443': '{"protocol":"https"}',
          'loadbalancer.simcloud.dev/certificate-id': certificate.id,
          'loadbalancer.simcloud.dev/redirect-http-to-https': 'true',
        };
      },
      servicePorts: [80, 443],
      redirect: true,
    },
    readLoadBalancer,
  },
});
