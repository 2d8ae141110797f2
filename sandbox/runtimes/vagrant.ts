// The `vagrant` runtime: drives the top-level Vagrantfile (kubeadm VMs, kubelets on
// --cloud-provider=external, a host-only network) through exec.ts. Vagrant's machine state goes to
// <stateDir>/vagrant (VAGRANT_DOTFILE_PATH), so sandboxes with different names never share VMs. After
// `vagrant up` the machines are discovered (`vagrant status --machine-readable`, then each machine's
// host-only address), registered as simcloud servers, and power actions in the cloud become
// vagrant halt/up/reload/destroy of the VM.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import type { Exec } from '../exec.ts';
import {
  NODE_ROLES,
  POWER_ACTIONS,
  type Availability,
  type CloudNetwork,
  type ClusterInfo,
  type PowerEvent,
  type RegisteredServer,
  type Runtime,
  type RuntimeContext,
} from './runtime.ts';

export const VAGRANT_PROVIDERS = ['virtualbox', 'libvirt'] as const;
export type VagrantProvider = (typeof VAGRANT_PROVIDERS)[number];

export const VAGRANT_DEFAULTS = {
  /** First three octets of the host-only /24 (the Vagrantfile's CCM_SANDBOX_NETWORK). */
  network: '192.168.56',
  podCidr: '10.244.0.0/16',
} as const;

/** The repository root, where the Vagrantfile is. */
export const VAGRANT_CWD = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface VagrantRuntimeOptions {
  /** Default: $VAGRANT_DEFAULT_PROVIDER, else virtualbox when VBoxManage works, else libvirt. */
  readonly provider?: VagrantProvider;
  readonly network?: string;
  readonly podCidr?: string;
  /** Directory holding the Vagrantfile (default: the repository root). */
  readonly vagrantCwd?: string;
}

export interface VagrantMachineState {
  readonly name: string;
  readonly state: string;
  readonly provider: string | null;
}

/** Parses `vagrant status --machine-readable` (timestamp,target,type,data...). */
export function parseMachineReadableStatus(stdout: string): VagrantMachineState[] {
  const machines = new Map<string, { state: string; provider: string | null }>();
  for (const line of stdout.split('\n')) {
    const [, target, type, ...data] = line.trim().split(',');
    if (!target || (type !== 'state' && type !== 'provider-name')) continue;
    const m = machines.get(target) ?? { state: 'unknown', provider: null };
    if (type === 'state') m.state = data.join(',');
    else m.provider = data.join(',');
    machines.set(target, m);
  }
  return [...machines].map(([name, m]) => ({ name, ...m }));
}

/** The address of `hostname -I` output inside the host-only /24, if any. */
export function hostOnlyAddress(hostnameI: string, network: string): string | undefined {
  const range = ipaddr.parseCIDR(`${network}.0/24`);
  return hostnameI.split(/\s+/).find((a) => ipaddr.IPv4.isValid(a) && ipaddr.parse(a).kind() === 'ipv4' && ipaddr.parse(a).match(range));
}

export function vagrantMachineNames(name: string, workers: number): string[] {
  return [`${name}-control-plane`, ...Array.from({ length: workers }, (_, i) => `${name}-worker-${i + 1}`)];
}

/** The vagrant command that does to a VM what the cloud did to its server. */
export function vagrantPowerArgs(action: PowerEvent['action'], machine: string, provider: VagrantProvider): string[] {
  switch (action) {
    case POWER_ACTIONS.powerOff:
      return ['halt', machine];
    case POWER_ACTIONS.powerOn:
      return ['up', machine, '--provider', provider, '--no-provision'];
    case POWER_ACTIONS.reboot:
      return ['reload', machine, '--no-provision'];
    case POWER_ACTIONS.delete:
      return ['destroy', '-f', machine];
  }
}

async function succeeds(exec: Exec, command: string, args: string[]): Promise<boolean> {
  return (await exec.run(command, args, { allowFailure: true, timeoutMs: 30_000 })).exitCode === 0;
}

/** Which provider to use: the option, $VAGRANT_DEFAULT_PROVIDER, VirtualBox if installed, else libvirt if usable. */
export async function detectVagrantProvider(exec: Exec, preferred?: string): Promise<VagrantProvider | undefined> {
  const wanted = preferred ?? process.env.VAGRANT_DEFAULT_PROVIDER;
  if (wanted === 'virtualbox' || wanted === 'libvirt') return wanted;
  if (await succeeds(exec, 'VBoxManage', ['--version'])) return 'virtualbox';
  if (await succeeds(exec, 'virsh', ['--version'])) return 'libvirt';
  return undefined;
}

export async function vagrantAvailable(exec: Exec, preferred?: VagrantProvider): Promise<Availability> {
  if (!(await succeeds(exec, 'vagrant', ['--version'])))
    return { ok: false, reason: 'vagrant is not installed (https://developer.hashicorp.com/vagrant/install, or apt-get install vagrant)' };
  const provider = await detectVagrantProvider(exec, preferred);
  if (provider === 'virtualbox' && (await succeeds(exec, 'VBoxManage', ['--version']))) return { ok: true };
  if (provider === 'libvirt' && (await succeeds(exec, 'virsh', ['--version']))) {
    const plugins = await exec.run('vagrant', ['plugin', 'list'], { allowFailure: true, timeoutMs: 30_000 });
    return plugins.stdout.includes('vagrant-libvirt')
      ? { ok: true }
      : { ok: false, reason: 'libvirt needs the vagrant-libvirt plugin (vagrant plugin install vagrant-libvirt)' };
  }
  return { ok: false, reason: 'no Vagrant provider: install VirtualBox (VBoxManage) or libvirt (virsh) with the vagrant-libvirt plugin' };
}

export class VagrantRuntime implements Runtime {
  readonly name = 'vagrant' as const;
  readonly #opts: VagrantRuntimeOptions;
  #provider: VagrantProvider | undefined;
  #workers = 0;
  #machines = new Map<string, RegisteredServer>();
  #unsubscribe: () => void = () => undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: VagrantRuntimeOptions = {}) {
    this.#opts = options;
  }

  get network(): string {
    return this.#opts.network ?? VAGRANT_DEFAULTS.network;
  }

  /** The host-only /24 (VIPs stay on the host's loopback; the host reaches the VMs' NodePorts). */
  cloudNetwork(): CloudNetwork {
    return { range: `${this.network}.0/24` };
  }

  available(ctx: Pick<RuntimeContext, 'exec'>): Promise<Availability> {
    return vagrantAvailable(ctx.exec, this.#opts.provider);
  }

  kubeconfigPath(ctx: Pick<RuntimeContext, 'stateDir'>): string {
    return join(ctx.stateDir, 'kubeconfig');
  }

  /** The environment every vagrant command of this sandbox runs with (the Vagrantfile's settings). */
  vagrantEnv(ctx: Pick<RuntimeContext, 'stateDir' | 'name' | 'cloudEndpoint'>, workers = this.#workers): Record<string, string> {
    return {
      VAGRANT_CWD: this.#opts.vagrantCwd ?? VAGRANT_CWD,
      VAGRANT_DOTFILE_PATH: join(ctx.stateDir, 'vagrant'),
      CCM_SANDBOX_NAME: ctx.name,
      CCM_SANDBOX_WORKERS: String(workers),
      CCM_SANDBOX_NETWORK: this.network,
      CCM_SANDBOX_POD_CIDR: this.#opts.podCidr ?? VAGRANT_DEFAULTS.podCidr,
      SIMCLOUD_ENDPOINT: vmReachableEndpoint(ctx.cloudEndpoint, this.network),
    };
  }

  async up(ctx: RuntimeContext): Promise<ClusterInfo> {
    this.#workers = ctx.workers;
    const provider = await this.#providerFor(ctx.exec);
    ctx.progress(`vagrant up (${provider}, 1 control plane + ${ctx.workers} workers on ${this.network}.0/24); the first run downloads the box and packages`);
    await this.#vagrant(ctx, ['up', '--provider', provider], 60 * 60_000);
    const running = await this.#running(ctx);
    const machines: RegisteredServer[] = [];
    for (const name of vagrantMachineNames(ctx.name, ctx.workers)) {
      if (!running.includes(name)) throw new Error(`vagrant machine ${name} is not running after vagrant up`);
      machines.push(await this.#registerMachine(ctx, name));
    }
    await this.#fetchKubeconfig(ctx);
    this.#mirrorPowerActions(ctx);
    return { kubeconfigPath: this.kubeconfigPath(ctx), machines, clusterCidr: this.#opts.podCidr ?? VAGRANT_DEFAULTS.podCidr };
  }

  /** One more worker VM: raises CCM_SANDBOX_WORKERS, `vagrant up` just that machine, registers it. */
  async addWorker(ctx: RuntimeContext): Promise<RegisteredServer> {
    const provider = await this.#providerFor(ctx.exec);
    this.#workers += 1;
    const name = `${ctx.name}-worker-${this.#workers}`;
    await this.#vagrant(ctx, ['up', name, '--provider', provider], 30 * 60_000);
    return this.#registerMachine(ctx, name);
  }

  async down(ctx: RuntimeContext): Promise<void> {
    this.#unsubscribe();
    this.#unsubscribe = () => undefined;
    await this.#queue;
    // Destroying machines that were never created is a no-op for vagrant, so this is idempotent.
    const env = this.vagrantEnv(ctx, Math.max(this.#workers, ctx.workers));
    const out = await ctx.exec.run('vagrant', ['destroy', '-f'], { env, allowFailure: true, timeoutMs: 30 * 60_000, onLine: (l) => vagrantProgress(ctx, l) });
    if (out.exitCode !== 0) {
      // Without a working vagrant nothing can have been created; otherwise VMs may be left: say so loudly.
      if (await succeeds(ctx.exec, 'vagrant', ['--version'])) throw new Error(`vagrant destroy -f failed: ${out.stderr.trim().split('\n').at(-1) ?? ''}`);
      ctx.progress('warning: vagrant is not available; there are no VMs of this sandbox to destroy');
    }
    this.#machines.clear();
  }

  async collectLogs(ctx: RuntimeContext, dir: string): Promise<void> {
    if (!ctx.exec.dryRun) mkdirSync(dir, { recursive: true });
    const names = this.#machines.size > 0 ? [...this.#machines.keys()] : vagrantMachineNames(ctx.name, ctx.workers);
    for (const name of names) {
      const out = await ctx.exec.run('vagrant', ['ssh', name, '-c', 'sudo journalctl -u kubelet --no-pager'], {
        env: this.vagrantEnv(ctx),
        allowFailure: true,
        timeoutMs: 120_000,
      });
      if (!ctx.exec.dryRun)
        writeFileSync(join(dir, `${name}-kubelet.log`), out.exitCode === 0 ? out.stdout : `vagrant ssh failed (${out.exitCode}): ${out.stderr}`);
    }
  }

  whenIdle(): Promise<void> {
    return this.#queue;
  }

  async #providerFor(exec: Exec): Promise<VagrantProvider> {
    this.#provider ??= await detectVagrantProvider(exec, this.#opts.provider);
    if (!this.#provider)
      throw new Error('no Vagrant provider found: install VirtualBox, or libvirt with the vagrant-libvirt plugin, or set VAGRANT_DEFAULT_PROVIDER');
    return this.#provider;
  }

  async #vagrant(ctx: RuntimeContext, args: string[], timeoutMs: number, workers = this.#workers): Promise<string> {
    const out = await ctx.exec.run('vagrant', args, { env: this.vagrantEnv(ctx, workers), timeoutMs, onLine: (l) => vagrantProgress(ctx, l) });
    return out.stdout;
  }

  async #running(ctx: RuntimeContext): Promise<string[]> {
    const status = parseMachineReadableStatus(await this.#vagrant(ctx, ['status', '--machine-readable'], 120_000));
    return status.filter((m) => m.state === 'running').map((m) => m.name);
  }

  async #registerMachine(ctx: RuntimeContext, name: string): Promise<RegisteredServer> {
    const out = await ctx.exec.run('vagrant', ['ssh', name, '-c', 'hostname -I'], { env: this.vagrantEnv(ctx), timeoutMs: 120_000 });
    const ip = hostOnlyAddress(out.stdout, this.network);
    if (!ip) throw new Error(`vagrant machine ${name} has no address on the host-only network ${this.network}.0/24 (hostname -I: ${out.stdout.trim()})`);
    const role = name.endsWith('-control-plane') ? NODE_ROLES.controlPlane : NODE_ROLES.worker;
    const server = await ctx.cloud.registerServer({ name, role, privateIPv4: ip });
    this.#machines.set(name, server);
    ctx.progress(`server ${name} registered (${ip})`);
    return server;
  }

  async #fetchKubeconfig(ctx: RuntimeContext): Promise<void> {
    const cp = `${ctx.name}-control-plane`;
    const out = await ctx.exec.run('vagrant', ['ssh', cp, '-c', 'sudo cat /etc/kubernetes/admin.conf'], { env: this.vagrantEnv(ctx), timeoutMs: 120_000 });
    if (ctx.exec.dryRun) return;
    if (!out.stdout.includes('apiVersion')) throw new Error(`could not read the admin kubeconfig from ${cp}`);
    mkdirSync(ctx.stateDir, { recursive: true });
    writeFileSync(this.kubeconfigPath(ctx), out.stdout, { mode: 0o600 });
  }

  #mirrorPowerActions(ctx: RuntimeContext): void {
    this.#unsubscribe();
    this.#unsubscribe = ctx.cloud.onPowerEvent((event) => {
      if (!this.#machines.has(event.name)) return;
      this.#queue = this.#queue.then(() => this.#power(ctx, event));
    });
  }

  async #power(ctx: RuntimeContext, event: PowerEvent): Promise<void> {
    const provider = await this.#providerFor(ctx.exec);
    const args = vagrantPowerArgs(event.action, event.name, provider);
    const out = await ctx.exec.run('vagrant', args, { env: this.vagrantEnv(ctx), allowFailure: true, timeoutMs: 30 * 60_000 });
    if (out.exitCode !== 0) ctx.progress(`warning: vagrant ${args.join(' ')} failed: ${out.stderr.trim().split('\n')[0] ?? ''}`);
    else ctx.progress(`${event.action} ${event.name}: vagrant ${args[0] ?? ''}`);
    if (event.action === 'delete') this.#machines.delete(event.name);
  }
}

/** Vagrant's own status lines (`==> machine: ...`) and the provisioning scripts' log lines, not apt's chatter. */
function vagrantProgress(ctx: Pick<RuntimeContext, 'progress'>, line: string): void {
  const text = line.trim();
  if (text.startsWith('==>') || text.includes('ccm-sandbox[')) ctx.progress(`vagrant: ${text}`);
}

/**
 * simcloud's URL as the VMs see it: a loopback host becomes the host's address on the host-only network
 * (.1). simcloud must then listen there too (e.g. --host 0.0.0.0 or the .1 address).
 */
export function vmReachableEndpoint(endpoint: string, network: string): string {
  const url = new URL(endpoint);
  if (url.hostname === 'localhost' || url.hostname.startsWith('127.') || url.hostname === '[::1]') url.hostname = `${network}.1`;
  return url.toString().replace(/\/$/, '');
}

export function createVagrantRuntime(options: VagrantRuntimeOptions = {}): VagrantRuntime {
  return new VagrantRuntime(options);
}
