// `status`, `logs` and `reset`: read-only views of a running sandbox (nodes, LoadBalancer Services, cloud
// resources, process health) and the one mutating convenience (`reset`: back to a clean cluster).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../kube/pooled-kubeconfig.ts';
import { SimcloudAdminClient, SimcloudClient } from '../../simulator/api/client/index.ts';
import { UNINITIALIZED_TAINT } from '../kubelet/node-object.ts';
import { readyOf } from '../console/node-changes.ts';
import { getUpstreamCcm } from '../ccm/upstream.ts';
import { upstreamCertDir } from '../ccm/launch.ts';
import { commandLine, type CcmState } from '../ccm/slot.ts';
import { tail } from '../processes.ts';
import { resetSandbox, waitForLoadBalancerCleanup } from '../reset.ts';
import { processAlive, stateDir, type SandboxState } from '../state.ts';
import { cloudOf, DEFAULT_CLOUD } from '../cloud/registry.ts';
import { inCloudWords } from '../cloud/descriptor.ts';
import { ownsLoadBalancer } from '../console/links.ts';
import type { FirewallPolicy } from '../../simulator/api/schema/firewall-policies.ts';
import type { IpBlock } from '../../simulator/api/schema/ip-blocks.ts';
import type { LoadBalancer } from '../../simulator/api/schema/load-balancers.ts';
import type { ServerGroup } from '../../simulator/api/schema/server-groups.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import { UsageError, type CliOptions } from './args.ts';
import { runningState } from './env.ts';

function requireState(o: CliOptions): SandboxState {
  return runningState(o.name);
}

function core(state: SandboxState): CoreV1Api {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(state.kubeconfig ?? '');
  return kc.makeApiClient(CoreV1Api);
}

function cloud(state: SandboxState): SimcloudClient {
  return new SimcloudClient({ endpoint: state.simcloud?.url ?? '', token: state.simcloud?.token ?? '', caller: 'ccm-sandbox status' });
}

async function health(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok ? 'ok' : `unhealthy (HTTP ${res.status})`;
  } catch (err) {
    return `unreachable (${err instanceof Error ? err.message : String(err)})`;
  }
}

async function ccmHealth(name: string, ccm: CcmState): Promise<string> {
  if (!ccm.url) return ccm.pid !== null && processAlive(ccm.pid) ? 'running' : 'not running';
  if (!ccm.url.startsWith('https:')) return health(`${ccm.url}/healthz`);
  const port = Number(new URL(ccm.url).port);
  return getUpstreamCcm(port, upstreamCertDir(stateDir(name))).then(
    (r) => (r.status === 200 ? 'ok' : `unhealthy (HTTP ${r.status})`),
    (err: unknown) => `unreachable (${String(err)})`,
  );
}

/** The slot's kind, the process, its health and how often it was restarted (upstream serves HTTPS with its own certificate). */
export async function ccmStatus(state: SandboxState): Promise<string> {
  const ccm = state.ccm;
  if (!ccm) return '-';
  if (ccm.kind === 'none') return 'none: the slot is empty (`npm run sandbox:up -- --ccm none` printed how to run yours)';
  const probe = await ccmHealth(state.name, ccm);
  const exit = ccm.lastExit ? `, last exit ${ccm.lastExit.signal ? `signal ${ccm.lastExit.signal}` : `code ${ccm.lastExit.code}`} at ${ccm.lastExit.at}` : '';
  return `${ccm.kind}${ccm.command ? ` \`${commandLine(ccm.command)}\`` : ''} pid ${ccm.pid ?? '-'}  ${probe}  restarts ${ccm.restarts}${exit}`;
}

function nodeFacts(n: V1Node): { name?: string; taints?: { key: string }[]; providerID?: string; addrs?: string } {
  return {
    name: n.metadata?.name,
    taints: n.spec?.taints,
    providerID: n.spec?.providerID,
    addrs: n.status?.addresses?.map((a) => `${a.type}=${a.address}`).join(' '),
  };
}

function nodeLine(n: V1Node): string {
  const { name = '', taints = [], providerID = '-', addrs = '' } = nodeFacts(n);
  const init = taints.some((t) => t.key === UNINITIALIZED_TAINT) ? 'uninitialized' : 'initialized';
  return `  ${name.padEnd(28)} Ready=${readyOf(n).padEnd(8)} ${init.padEnd(14)} ${providerID.padEnd(22)} taints=${taints.map((t) => t.key).join(',') || '-'}  ${addrs}`;
}

function serviceLine(s: V1Service): string {
  const ingress = (s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname).join(',') || '<pending>';
  return `  ${`${s.metadata?.namespace}/${s.metadata?.name}`.padEnd(36)} ${ingress.padEnd(18)} ports=${(s.spec?.ports ?? []).map((p) => `${p.port}:${p.nodePort}`).join(',')}`;
}

export async function status(o: CliOptions): Promise<number> {
  const state = requireState(o);
  const api = core(state);
  const client = cloud(state);
  const [nodes, services, servers, lbs, blocks, groups, policies] = await Promise.all([
    api.listNode(),
    api.listServiceForAllNamespaces(),
    client.servers.listAll(),
    client.loadBalancers.listAll(),
    client.ipBlocks.listAll(),
    client.serverGroups.listAll(),
    client.firewallPolicies.listAll(),
  ]);
  const lbServices = services.items.filter((s) => s.spec?.type === 'LoadBalancer');
  if (o.json) {
    console.log(
      JSON.stringify(
        {
          state,
          nodes: nodes.items.map((n) => n.metadata?.name),
          services: lbServices.map((s) => s.metadata?.name),
          servers,
          loadBalancers: lbs,
          ipBlocks: blocks,
          serverGroups: groups,
          firewallPolicies: policies,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const processes = [
    `  simcloud  pid ${state.simcloud?.pid ?? '-'}  ${await health(`${state.simcloud?.url}/_sim/health`)}`,
    `  ccm       ${await ccmStatus(state)}`,
    `  daemon    pid ${state.pid}  ${processAlive(state.pid) ? 'running' : 'gone'}`,
  ];
  const out = [
    `sandbox "${state.name}": ${state.status} (${state.runtime}), kubeconfig ${state.kubeconfig}`,
    'Processes:',
    ...processes,
    `Nodes (${nodes.items.length}):`,
    ...nodes.items.map(nodeLine),
    `LoadBalancer Services (${lbServices.length}):`,
    ...lbServices.map(serviceLine),
    ...cloudLines(state, { servers, lbs, blocks, groups, policies }, lbServices),
  ];
  console.log(out.join('\n'));
  return 0;
}

/** A simcloud id with the same resource in the cloud's words beside it (`lb-00000010 = Linode: NodeBalancer 10`). */
function ids(state: SandboxState, id: string): string {
  const spelled = state.cloud === DEFAULT_CLOUD ? undefined : inCloudWords(cloudOf(state.cloud), id);
  return spelled === undefined ? id : `${id} = ${spelled}`;
}

export interface CloudListing {
  readonly servers: readonly Server[];
  readonly lbs: readonly LoadBalancer[];
  readonly blocks: readonly IpBlock[];
  readonly groups: readonly ServerGroup[];
  readonly policies: readonly FirewallPolicy[];
}

/** The cloud's resources, each beside its own name in the persona's API; a load balancer with the Service it belongs to (whichever CCM made it). */
export function cloudLines(state: SandboxState, cloud: CloudListing, services: readonly V1Service[]): string[] {
  const { servers, lbs, blocks, groups, policies } = cloud;
  const owner = (lb: LoadBalancer): string => {
    const s = services.find((x) =>
      ownsLoadBalancer(
        {
          uid: x.metadata?.uid ?? '',
          ingress: (x.status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip ? [i.ip] : [])),
          annotations: x.metadata?.annotations ?? {},
        },
        lb,
      ),
    );
    return s ? `Service ${s.metadata?.namespace}/${s.metadata?.name}` : 'no Service';
  };
  const row = (kind: string, [name, what]: readonly [string, string], id: string, rest = ''): string =>
    `  ${kind.padEnd(15)} ${name.padEnd(28)} ${what.padEnd(10)} ${ids(state, id)}${rest}`;
  return [
    `Cloud: ${servers.length} servers, ${lbs.length} load balancers, ${groups.length} server groups, ${policies.length} firewall policies, ${blocks.length} IP blocks`,
    ...servers.map((s) => row('server', [s.name, s.status], s.id)),
    ...lbs.map((lb) => row('load balancer', [lb.name, lb.public_ipv4 ?? '-'], lb.id, `  ${owner(lb)}`)),
    ...groups.map((g) => row('server group', [g.name, `${g.servers.length} member${g.servers.length === 1 ? '' : 's'}`], g.id)),
    ...policies.map((p) => row('firewall policy', [p.name, `${p.rules.length} rule${p.rules.length === 1 ? '' : 's'}`], p.id)),
    ...blocks.map((b) => row('IP block', [b.cidr, b.status], b.id)),
  ];
}

export function logs(o: CliOptions): number {
  const dir = stateDir(o.name);
  const files = [join(dir, 'daemon.log'), ...listLogs(join(dir, 'logs')), ...listLogs(join(dir, 'control-plane', 'logs'))];
  const wanted = o.component ? files.filter((f) => f.endsWith(`/${o.component}.log`)) : files;
  if (wanted.length === 0)
    throw new UsageError(
      `no log named "${o.component ?? ''}" in ${dir}: choose from ${files
        .map((f) =>
          f
            .split('/')
            .pop()
            ?.replace(/\.log$/, ''),
        )
        .join(', ')}`,
    );
  for (const f of wanted.filter(existsSync)) console.log(`==> ${f} <==\n${tail(f, o.lines)}\n`);
  return 0;
}

function listLogs(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .map((f) => join(dir, f))
    : [];
}

/** Clears faults, deletes every LoadBalancer Service (waiting for the CCM to remove their cloud resources) and powers every server on. */
export async function reset(o: CliOptions): Promise<number> {
  const state = requireState(o);
  const api = core(state);
  const admin = new SimcloudAdminClient({ endpoint: state.simcloud?.url ?? '', token: state.simcloud?.adminToken ?? '' });
  const r = await resetSandbox({ client: cloud(state), admin, core: api });
  await waitForLoadBalancerCleanup(api);
  console.log(`reset: faults cleared, ${r.deletedServices} LoadBalancer Service(s) deleted and cleaned up by the CCM, ${r.poweredOn} server(s) powered on`);
  return 0;
}
