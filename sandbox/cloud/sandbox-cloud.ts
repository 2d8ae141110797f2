// The sandbox's side of simcloud: the cluster's private network, its machines as servers (labelled with
// the cluster name, so the sandbox, the console and the leak check can tell them apart), and the power
// actions taken on them, derived from the resource-change stream for runtimes that mirror them on real
// machines (kind containers, Vagrant VMs). A `--cloud hcloud` sandbox creates the network and servers
// through simcloud's Hetzner dialect (hcloud-creator.ts), a `--cloud linode` one its machines through the
// Linode dialect (linode-creator.ts), a `--cloud digitalocean` one its machines as droplets through the
// DigitalOcean dialect (digitalocean-creator.ts), and all read them back through /v1: one store.
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { Network } from '../../simulator/api/schema/networks.ts';
import type { Server } from '../../simulator/api/schema/servers.ts';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import { digitaloceanRegionOf, hcloudLocationOf, linodeRegionOf } from './clouds.ts';
import type { HcloudDialectCreator } from './hcloud-creator.ts';
import type { LinodeDialectCreator } from './linode-creator.ts';
import type { DigitalOceanDialectCreator } from './digitalocean-creator.ts';
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
  /** Creates the network and servers through the Hetzner dialect instead of /v1. */
  readonly hcloud?: HcloudDialectCreator;
  /** Creates the servers as instances through the Linode dialect instead of /v1. */
  readonly linode?: LinodeDialectCreator;
  /** Creates the servers as droplets through the DigitalOcean dialect instead of /v1. */
  readonly digitalocean?: DigitalOceanDialectCreator;
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
    if (!this.#opts.hcloud) return client.networks.create({ name, ip_range: range, subnets: [{ zone, ip_range: range }], labels });
    await this.#opts.hcloud.createNetwork({ name, ipRange: range, networkZone: hcloudLocationOf(zone), labels });
    const created = (await client.networks.listAll({ name })).find((n) => n.name === name);
    if (!created) throw new Error(`network ${name}, created through the hcloud dialect, is not in /v1`);
    return created;
  }

  async registerServer(machine: MachineSpec): Promise<RegisteredServer> {
    const client = this.#opts.client;
    const found = (await client.servers.listAll({ name: machine.name })).find((s) => s.name === machine.name);
    if (found) return registered(found);
    const network = await this.ensureNetwork();
    if (this.#opts.hcloud) return this.#registerThroughHcloud(machine, network);
    if (this.#opts.linode) return this.#registerThroughLinode(machine, network);
    if (this.#opts.digitalocean) return this.#registerThroughDigitalOcean(machine, network);
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

  async #registerThroughHcloud(machine: MachineSpec, network: Network): Promise<RegisteredServer> {
    // Hetzner's API gives a server its addresses; it cannot take the ones a kind container or VM has.
    if (machine.publicIPv4 || machine.privateIPv4) throw new Error(`--cloud hcloud cannot register ${machine.name} at its own addresses: use --runtime local`);
    await this.#opts.hcloud?.createServer({
      name: machine.name,
      serverType: this.#opts.serverType ?? SANDBOX_DEFAULTS.serverType,
      image: SANDBOX_DEFAULTS.image,
      location: hcloudLocationOf(this.#opts.zone ?? SANDBOX_DEFAULTS.zone),
      network: network.name,
      labels: { [SANDBOX_LABELS.cluster]: this.#opts.clusterName, [SANDBOX_LABELS.role]: machine.role },
    });
    const created = (await this.#opts.client.servers.listAll({ name: machine.name })).find((s) => s.name === machine.name);
    if (!created) throw new Error(`server ${machine.name}, created through the hcloud dialect, is not in /v1`);
    return registered(created);
  }

  async #registerThroughLinode(machine: MachineSpec, network: Network): Promise<RegisteredServer> {
    if (machine.publicIPv4 || machine.privateIPv4) throw new Error(`--cloud linode cannot register ${machine.name} at its own addresses: use --runtime local`);
    const zone = this.#opts.zone ?? SANDBOX_DEFAULTS.zone;
    await this.#opts.linode?.createInstance({
      label: machine.name,
      region: linodeRegionOf(zone),
      type: this.#opts.serverType ?? SANDBOX_DEFAULTS.serverType,
      image: SANDBOX_DEFAULTS.image,
      labels: { [SANDBOX_LABELS.cluster]: this.#opts.clusterName, [SANDBOX_LABELS.role]: machine.role },
    });
    return this.#joinThroughV1(machine.name, network, 'linode instance');
  }

  async #registerThroughDigitalOcean(machine: MachineSpec, network: Network): Promise<RegisteredServer> {
    if (machine.publicIPv4 || machine.privateIPv4) throw new Error(`--cloud digitalocean cannot register ${machine.name} at its own addresses: use --runtime local`);
    await this.#opts.digitalocean?.createDroplet({
      name: machine.name,
      region: digitaloceanRegionOf(this.#opts.zone ?? SANDBOX_DEFAULTS.zone),
      size: this.#opts.serverType ?? SANDBOX_DEFAULTS.serverType,
      image: SANDBOX_DEFAULTS.image,
    });
    // A DigitalOcean tag cannot hold the `/` of the sandbox's label keys: the droplet is labelled through /v1.
    return this.#joinThroughV1(machine.name, network, 'digitalocean droplet', {
      [SANDBOX_LABELS.cluster]: this.#opts.clusterName, [SANDBOX_LABELS.role]: machine.role,
    });
  }

  /**
   * Reads a machine a dialect created back through /v1 and joins it to the cluster network there (Linode
   * and DigitalOcean have no network to join at creation; the address on it is the machine's private
   * IPv4 in the dialect), labelling it first when the dialect could not.
   */
  async #joinThroughV1(name: string, network: Network, what: string, labels?: Record<string, string>): Promise<RegisteredServer> {
    const client = this.#opts.client;
    const created = (await client.servers.listAll({ name })).find((s) => s.name === name);
    if (!created) throw new Error(`${what} ${name}, created through its dialect, is not in /v1`);
    if (labels) await client.servers.update(created.id, { labels });
    await client.waitForAction((await client.servers.attachToNetwork(created.id, { network_id: network.id })).id);
    return registered(await client.servers.get(created.id));
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
