// The sandbox's side of simcloud: the cluster's private network, its machines as servers (labelled with
// the cluster name, so the sandbox, the console and the leak check can tell them apart), and the power
// actions taken on them, derived from the resource-change stream for runtimes that mirror them on real
// machines (kind containers, Vagrant VMs). A persona's sandbox (`--cloud hcloud`, ...) creates its machines
// through that persona's API (the descriptor's PersonaMachines) and reads them back through /v1: one store.
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Network } from '../../simulator/api/schema/networks.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import type { PersonaMachines } from './descriptor.ts';
import type { MachineSpec, PowerAction, PowerEvent, RegisteredServer, SandboxCloud } from '../runtimes/runtime.ts';

export const SANDBOX_LABELS = {
  cluster: 'ccm-sandbox.dev/cluster',
  role: 'ccm-sandbox.dev/role',
} as const;

export const SANDBOX_DEFAULTS = {
  serverType: 'sc-medium',
  image: 'ubuntu-24.04',
  zone: 'sim-1a',
  /** The cluster network: loopback addresses, so node IPs are reachable on this machine. */
  networkRange: '127.10.0.0/16',
} as const;

export interface SimcloudSandboxCloudOptions {
  readonly client: SimcloudClient;
  readonly clusterName: string;
  readonly zone?: string;
  readonly serverType?: string;
  readonly networkRange?: string;
  /** Creates the machines (and the network, where the persona can) through a persona's API instead of /v1. */
  readonly persona?: { readonly kind: string; readonly machines: PersonaMachines };
  /** The `--provider-id` every kubelet registers with where the persona's machines ask for none (`--kubelet-provider-id`). */
  readonly kubeletProviderId?: (serverId: string) => string;
}

export class SimcloudSandboxCloud implements SandboxCloud {
  readonly #opts: SimcloudSandboxCloudOptions;
  readonly #handlers = new Set<(e: PowerEvent) => void>();
  readonly #lastStatus = new Map<string, string>();
  #network: Network | undefined;
  #range: string;

  constructor(options: SimcloudSandboxCloudOptions) {
    this.#opts = options;
    this.#range = options.networkRange ?? SANDBOX_DEFAULTS.networkRange;
  }

  /** Sets the cluster network's range before it is created (runtimes whose machines have real addresses). */
  useNetworkRange(range: string): void {
    if (this.#network) throw new Error('the cluster network exists already');
    this.#range = range;
  }

  /** The `--provider-id` the kubelet of server `serverId` registers with: the persona's machines' own, else the sandbox's choice. */
  kubeletProviderId(serverId: string): string | undefined {
    return this.#opts.persona?.machines.kubeletProviderId?.(serverId) ?? this.#opts.kubeletProviderId?.(serverId);
  }

  get clusterSelector(): string {
    return `${SANDBOX_LABELS.cluster}=${this.#opts.clusterName}`;
  }

  /** The cluster's private network, created on first use (idempotent by name). */
  async ensureNetwork(): Promise<Network> {
    if (this.#network) return this.#network;
    const name = this.#opts.clusterName;
    const existing = (await this.#opts.client.networks.listAll({ name })).find((n) => n.name === name);
    this.#network = existing ?? (await this.#createNetwork(name));
    return this.#network;
  }

  async #createNetwork(name: string): Promise<Network> {
    const range = this.#range;
    const zone = this.#opts.zone ?? SANDBOX_DEFAULTS.zone;
    const labels = { [SANDBOX_LABELS.cluster]: name };
    const client = this.#opts.client;
    const persona = this.#opts.persona;
    if (!persona?.machines.createNetwork) return client.networks.create({ name, ip_range: range, subnets: [{ zone, ip_range: range }], labels });
    await persona.machines.createNetwork({ name, ipRange: range, zone, labels });
    const created = (await client.networks.listAll({ name })).find((n) => n.name === name);
    if (!created) throw new Error(`network ${name}, created through the ${persona.kind} persona, is not in /v1`);
    return created;
  }

  async registerServer(machine: MachineSpec): Promise<RegisteredServer> {
    const client = this.#opts.client;
    const found = (await client.servers.listAll({ name: machine.name })).find((s) => s.name === machine.name);
    if (found) return registered(found);
    const network = await this.ensureNetwork();
    if (this.#opts.persona) return this.#registerThroughPersona(this.#opts.persona, machine, network);
    const { server, action } = await client.servers.create({
      name: machine.name,
      server_type: this.#opts.serverType ?? SANDBOX_DEFAULTS.serverType,
      image: SANDBOX_DEFAULTS.image,
      zone: this.#opts.zone ?? SANDBOX_DEFAULTS.zone,
      labels: { [SANDBOX_LABELS.cluster]: this.#opts.clusterName, [SANDBOX_LABELS.role]: machine.role },
      networks: [network.id],
      ...(machine.publicIPv4 ? { public_ipv4: machine.publicIPv4 } : {}),
      ...(machine.privateIPv4 ? { private_ipv4: machine.privateIPv4 } : {}),
    });
    await client.waitForAction(action.id);
    return registered(await client.servers.get(server.id));
  }

  async #registerThroughPersona(
    persona: NonNullable<SimcloudSandboxCloudOptions['persona']>,
    machine: MachineSpec,
    network: Network,
  ): Promise<RegisteredServer> {
    // A persona's API gives a machine its addresses; it cannot take the ones a kind container or VM has.
    if (machine.publicIPv4 || machine.privateIPv4)
      throw new Error(`--cloud ${persona.kind} cannot register ${machine.name} at its own addresses: use --runtime local`);
    const labels = { [SANDBOX_LABELS.cluster]: this.#opts.clusterName, [SANDBOX_LABELS.role]: machine.role };
    const done = await persona.machines.createMachine({
      name: machine.name,
      zone: this.#opts.zone ?? SANDBOX_DEFAULTS.zone,
      serverType: this.#opts.serverType ?? SANDBOX_DEFAULTS.serverType,
      image: SANDBOX_DEFAULTS.image,
      labels,
      network: network.name,
    });
    const client = this.#opts.client;
    const created = (await client.servers.listAll({ name: machine.name })).find((s) => s.name === machine.name);
    if (!created) throw new Error(`${machine.name}, created through the ${persona.kind} persona, is not in /v1`);
    // What the persona's API had no place for is done through /v1: one store. The network first: the
    // cluster label makes the machine a node (its kubelet starts and registers), and a cloud's machine has
    // its private address before its kubelet runs (a DigitalOcean droplet from creation, in its VPC).
    if (!done.joinedNetwork) await client.waitForAction((await client.servers.attachToNetwork(created.id, { network_id: network.id })).id);
    if (!done.labelled) await client.servers.update(created.id, { labels });
    return registered(await client.servers.get(created.id));
  }

  /** Deletes a server as the cloud's user does: through the persona where that does more (Linode's drops the instance's VPC ranges), else /v1. */
  async deleteServer(serverId: string): Promise<void> {
    const machines = this.#opts.persona?.machines;
    if (machines?.deleteMachine) await machines.deleteMachine(serverId);
    else await this.#opts.client.servers.delete(serverId);
  }

  /** The cluster's servers, as the cloud has them now. */
  async servers(): Promise<Server[]> {
    return this.#opts.client.servers.listAll({ label_selector: this.clusterSelector });
  }

  onPowerEvent(handler: (event: PowerEvent) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Feed from the `/_sim/events` stream: server status transitions become power events. */
  handleSimEvent(event: SimEvent): void {
    const change = this.#serverChange(event);
    if (!change) return;
    const action = powerAction(this.#lastStatus.get(change.id), change.after);
    this.#lastStatus.set(change.id, change.after);
    if (!action) return;
    const power: PowerEvent = { serverId: change.id, name: change.name, action };
    for (const handler of this.#handlers) handler(power);
  }

  /** A change of one of this cluster's servers, as (id, name, status after; 'deleted' when gone). */
  #serverChange(event: SimEvent): { id: string; name: string; after: string } | undefined {
    if (event.type !== 'resource_change' || event.resource_type !== 'server') return undefined;
    const server = event.resource;
    const known = this.#lastStatus.has(event.resource_id);
    if (server?.labels[SANDBOX_LABELS.cluster] !== this.#opts.clusterName && !known) return undefined;
    return { id: event.resource_id, name: server?.name ?? event.resource_id, after: server?.status ?? 'deleted' };
  }
}

/** Status transitions (before -> after) that mean a machine must be stopped, started, restarted or removed. */
const TRANSITIONS: Readonly<Record<string, PowerAction>> = {
  'running->stopping': 'poweroff',
  'running->off': 'poweroff',
  'starting->off': 'poweroff',
  'off->starting': 'poweron',
  'stopping->starting': 'poweron',
  'off->running': 'poweron',
  'running->starting': 'reboot',
};

export function powerAction(before: string | undefined, after: string | undefined): PowerAction | undefined {
  if (!after || before === after) return undefined;
  if (after === 'deleting' || after === 'deleted') return before === 'deleting' || before === 'deleted' ? undefined : 'delete';
  return TRANSITIONS[`${before ?? ''}->${after}`];
}

function registered(s: Server): RegisteredServer {
  return { id: s.id, name: s.name, publicIPv4: s.public_ipv4, privateIPv4: s.private_ipv4 };
}
