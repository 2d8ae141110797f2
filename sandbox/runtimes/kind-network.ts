// Where kind node containers and load-balancer VIPs live, decided before the cluster exists so simcloud's
// private network (and its VIP pool) can be configured up front.
//
// Linux: the nodes join a dedicated docker bridge network with a fixed subnet (kind is pointed at it with
// KIND_EXPERIMENTAL_DOCKER_NETWORK). Docker hands node containers addresses from the lower half
// (--ip-range); the VIP range at the top of the subnet is never given to a container. simcloud's VIP pool
// must be that range, and the host needs each VIP on the bridge interface (ip addr add) so simcloud's data
// plane can bind it and containers on the network reach it.
//
// macOS (and anywhere container IPs are unreachable from the host): port mapping to loopback. Node i
// publishes the chosen NodePorts on its own loopback address, and that address is what simcloud knows as
// the server's private IP, so LB traffic from simcloud's data plane reaches the node's NodePort.
import ipaddr from 'ipaddr.js';
import type { Exec } from '../exec.ts';

export interface KindNetworkPlan {
  readonly mode: 'bridge' | 'port-mapping';
  /** Docker network the node containers join. */
  readonly dockerNetwork: string;
  /** bridge: the docker subnet = simcloud's network range; port-mapping: the loopback range. */
  readonly subnet: string;
  readonly gateway: string;
  /** Addresses docker may hand to containers (bridge mode). */
  readonly containerRange: string;
  /** simcloud's LB VIP pool for this cluster. */
  readonly vipRange: string;
  /** Host interface of the docker network (bridge mode). */
  readonly bridge: string;
  /** NodePorts published per node (port-mapping mode). */
  readonly mappedPorts: readonly number[];
}

export interface KindNetworkOptions {
  readonly mode?: 'bridge' | 'port-mapping';
  readonly dockerNetwork?: string;
  readonly subnet?: string;
  readonly bridge?: string;
  readonly mappedPorts?: readonly number[];
}

export const KIND_NETWORK_DEFAULTS = {
  dockerNetwork: 'ccm-sandbox-kind',
  subnet: '172.30.0.0/16',
  bridge: 'ccmsbx0',
  loopbackSubnet: '127.10.0.0/16',
  loopbackVips: '127.1.0.0/16',
  mappedPorts: [30080, 30081, 30082, 30443],
} as const;

function offset(cidr: string, n: number): string {
  const [base] = ipaddr.parseCIDR(cidr);
  const bytes = base.toByteArray();
  let carry = n;
  for (let i = bytes.length - 1; i >= 0 && carry > 0; i--) {
    const sum = (bytes[i] ?? 0) + carry;
    bytes[i] = sum % 256;
    carry = Math.floor(sum / 256);
  }
  return ipaddr.fromByteArray(bytes).toString();
}

function checkedSubnet(subnet: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const [base, prefix] = ipaddr.parseCIDR(subnet);
  if (base.kind() !== 'ipv4' || prefix > 23)
    throw new Error(`kind network subnet must be an IPv4 /23 or larger (containers below, VIPs in the top /24), got ${subnet}`);
  return [base, prefix];
}

function portMappingPlan(options: KindNetworkOptions): KindNetworkPlan {
  const subnet = KIND_NETWORK_DEFAULTS.loopbackSubnet;
  return {
    mode: 'port-mapping',
    // kind's own network; nothing on it needs to be reachable from the host.
    dockerNetwork: options.dockerNetwork ?? 'kind',
    subnet,
    gateway: offset(subnet, 1),
    containerRange: subnet,
    vipRange: KIND_NETWORK_DEFAULTS.loopbackVips,
    bridge: options.bridge ?? KIND_NETWORK_DEFAULTS.bridge,
    mappedPorts: options.mappedPorts ?? KIND_NETWORK_DEFAULTS.mappedPorts,
  };
}

export function kindNetworkPlan(options: KindNetworkOptions = {}, platform: NodeJS.Platform = process.platform): KindNetworkPlan {
  const mode = options.mode ?? (platform === 'linux' ? 'bridge' : 'port-mapping');
  if (mode === 'port-mapping') return portMappingPlan(options);
  const subnet = options.subnet ?? KIND_NETWORK_DEFAULTS.subnet;
  const [base, prefix] = checkedSubnet(subnet);
  const size = 2 ** (32 - prefix);
  return {
    mode,
    dockerNetwork: options.dockerNetwork ?? KIND_NETWORK_DEFAULTS.dockerNetwork,
    subnet,
    gateway: offset(subnet, 1),
    containerRange: `${base.toString()}/${prefix + 1}`,
    vipRange: `${offset(subnet, size - 256)}/24`,
    bridge: options.bridge ?? KIND_NETWORK_DEFAULTS.bridge,
    mappedPorts: [],
  };
}

/** Loopback address of node i in port-mapping mode (.10, .11, ...). */
export function loopbackNodeAddress(plan: KindNetworkPlan, i: number): string {
  return offset(plan.subnet, 10 + i);
}

interface RawNetwork {
  IPAM?: { Config?: { Subnet?: string }[] | null };
}

/** Creates the docker network of a bridge plan unless it exists; fails if it exists with another subnet. */
export async function ensureDockerNetwork(exec: Exec, plan: KindNetworkPlan): Promise<'created' | 'exists'> {
  const found = await exec.run('docker', ['network', 'inspect', plan.dockerNetwork], { allowFailure: true });
  if (found.exitCode === 0) {
    const raw = JSON.parse(found.stdout || '[]') as RawNetwork[];
    const subnets = (raw[0]?.IPAM?.Config ?? []).map((c) => c.Subnet).filter((s): s is string => typeof s === 'string');
    if (!exec.dryRun && !subnets.includes(plan.subnet)) {
      throw new Error(
        `docker network ${plan.dockerNetwork} exists with subnet(s) ${subnets.join(', ') || 'none'}, not ${plan.subnet}; remove it (docker network rm ${plan.dockerNetwork}) or choose another subnet`,
      );
    }
    return 'exists';
  }
  await exec.run('docker', [
    'network',
    'create',
    '--driver',
    'bridge',
    '--subnet',
    plan.subnet,
    '--gateway',
    plan.gateway,
    '--ip-range',
    plan.containerRange,
    '--opt',
    `com.docker.network.bridge.name=${plan.bridge}`,
    '--opt',
    'com.docker.network.bridge.enable_ip_masquerade=true',
    '--label',
    'ccm-sandbox.dev/network=kind',
    plan.dockerNetwork,
  ]);
  return 'created';
}

/** The host commands that make LB VIPs work, one per line, for the summary and docs. */
export function lbHostInstructions(plan: KindNetworkPlan): string[] {
  if (plan.mode === 'bridge') {
    return [
      `LB VIPs: simcloud's VIP pool must be ${plan.vipRange} (on docker network ${plan.dockerNetwork}, bridge ${plan.bridge}); add each VIP to the bridge when its LB gets it:`,
      `  sudo ip addr add <VIP>/32 dev ${plan.bridge}`,
      `  or once for the whole pool: sudo ip route add local ${plan.vipRange} dev ${plan.bridge}`,
      `  undo: sudo ip addr del <VIP>/32 dev ${plan.bridge} (or sudo ip route del local ${plan.vipRange} dev ${plan.bridge})`,
    ];
  }
  return [
    `LB traffic uses port mapping to loopback: node i publishes NodePorts ${plan.mappedPorts.join(', ')} on ${loopbackNodeAddress(plan, 0)}, ${loopbackNodeAddress(plan, 1)}, ...`,
    `  give Services one of these nodePorts; on macOS add the loopback aliases first: sudo ifconfig lo0 alias ${loopbackNodeAddress(plan, 0)} (one per node)`,
    `  VIPs stay on loopback (${plan.vipRange}); on macOS each VIP also needs: sudo ifconfig lo0 alias <VIP>`,
  ];
}
