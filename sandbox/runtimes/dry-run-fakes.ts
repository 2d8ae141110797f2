// What the outside world answers in a dry run: an in-memory SandboxCloud and responders that reply to
// docker, kind and vagrant the way the real tools do (output shapes copied from their documented
// formats), so a runtime's up/down runs to the end without Docker, kind or a hypervisor.
import { formatCommand, type CommandRecord, type Responder, type RunResult } from '../exec.ts';
import type { MachineSpec, PowerEvent, RegisteredServer, SandboxCloud } from './runtime.ts';

/** Records registrations; emit() plays a power action as if taken in simcloud. */
export class DryRunCloud implements SandboxCloud {
  readonly registered: MachineSpec[] = [];
  readonly #servers = new Map<string, RegisteredServer>();
  readonly #handlers = new Set<(e: PowerEvent) => void>();

  registerServer(machine: MachineSpec): Promise<RegisteredServer> {
    this.registered.push(machine);
    const found = this.#servers.get(machine.name);
    if (found) return Promise.resolve(found);
    const server: RegisteredServer = {
      id: `srv-${this.#servers.size + 1}`,
      name: machine.name,
      publicIPv4: machine.publicIPv4 ?? `127.0.64.${this.#servers.size + 1}`,
      privateIPv4: machine.privateIPv4 ?? null,
    };
    this.#servers.set(machine.name, server);
    return Promise.resolve(server);
  }

  onPowerEvent(handler: (event: PowerEvent) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  emit(name: string, action: PowerEvent['action']): void {
    const server = this.#servers.get(name);
    for (const h of this.#handlers) h({ serverId: server?.id ?? 'srv-unknown', name, action });
  }

  get subscribers(): number {
    return this.#handlers.size;
  }
}

/** kind's node container names for a cluster: <name>-control-plane, <name>-worker, <name>-worker2, ... */
export function kindNodeNames(name: string, workers: number): string[] {
  return [`${name}-control-plane`, ...Array.from({ length: workers }, (_, i) => `${name}-worker${i === 0 ? '' : i + 1}`)];
}

export interface KindFakeOptions {
  readonly name: string;
  readonly workers: number;
  readonly dockerNetwork: string;
  /** First three octets of the node addresses (bridge mode), e.g. 172.30.0 */
  readonly prefix: string;
  /** Port-mapping mode: loopback listen address per node, and the ports. */
  readonly published?: { readonly addresses: readonly string[]; readonly ports: readonly number[] };
}

function inspectEntry(o: KindFakeOptions, container: string, i: number): Record<string, unknown> {
  const role = container.endsWith('-control-plane') ? 'control-plane' : 'worker';
  const published = o.published;
  const host = published?.addresses[i];
  return {
    Id: `${(i + 1).toString(16).padStart(2, '0')}${'0'.repeat(62)}`,
    Name: `/${container}`,
    State: { Status: 'running', Running: true },
    Config: { Hostname: container, Labels: { 'io.x-k8s.kind.cluster': o.name, 'io.x-k8s.kind.role': role } },
    NetworkSettings: {
      Ports: published && host ? Object.fromEntries(published.ports.map((p) => [`${p}/tcp`, [{ HostIp: host, HostPort: String(p) }]])) : {},
      Networks: { [o.dockerNetwork]: { IPAddress: `${o.prefix}.${i + 2}`, IPPrefixLen: 16, Gateway: `${o.prefix}.1`, GlobalIPv6Address: '' } },
    },
  };
}

const ok = (stdout = ''): Partial<RunResult> => ({ stdout, exitCode: 0 });

export function kindResponder(o: KindFakeOptions): Responder {
  const nodes = kindNodeNames(o.name, o.workers);
  return (r: CommandRecord) => {
    const line = formatCommand(r.command, r.args);
    if (line.startsWith('docker info')) return ok('29.1.2\n');
    if (line.startsWith('kind version')) return ok('kind v0.33.0 go1.25.4 linux/amd64\n');
    if (line.startsWith('docker network inspect')) return { exitCode: 1, stderr: `Error response from daemon: network ${r.args[2] ?? ''} not found\n` };
    if (line === 'kind get clusters') return { exitCode: 0, stderr: 'No kind clusters found.\n' };
    if (line.startsWith('kind get nodes')) return ok(`${[...nodes].reverse().join('\n')}\n`);
    if (r.command === 'docker' && r.args[0] === 'inspect') {
      return ok(
        JSON.stringify(
          r.args.slice(1).map((c) => inspectEntry(o, c, nodes.indexOf(c))),
          null,
          4,
        ),
      );
    }
    return ok();
  };
}

export interface VagrantFakeOptions {
  readonly name: string;
  readonly workers: number;
  readonly network: string;
  readonly provider: string;
}

const ADMIN_CONF = (server: string): string => `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTi...
    server: https://${server}:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
users:
- name: kubernetes-admin
  user:
    client-certificate-data: LS0tLS1CRUdJTi...
    client-key-data: LS0tLS1CRUdJTi...
`;

type Answer = (r: CommandRecord) => Partial<RunResult> | undefined;

function vagrantAnswers(o: VagrantFakeOptions, machines: readonly string[]): Answer[] {
  const ts = 1763769600;
  const status = machines.flatMap((m) => [
    `${ts},${m},metadata,provider,${o.provider}`,
    `${ts},${m},provider-name,${o.provider}`,
    `${ts},${m},state,running`,
    `${ts},${m},state-human-short,running`,
  ]);
  const sshScript = (r: CommandRecord): string => (r.args[0] === 'ssh' && r.args[2] === '-c' ? (r.args[3] ?? '') : '');
  return [
    (r) => (r.command === 'VBoxManage' || r.command === 'virsh' ? toolVersion(o.provider, r.command) : undefined),
    (r) => (r.args[0] === '--version' ? ok('Vagrant 2.4.9\n') : undefined),
    (r) => (r.args[0] === 'plugin' ? ok('vagrant-libvirt (0.12.2, global)\n') : undefined),
    (r) => (r.args[0] === 'status' ? ok(`${status.join('\n')}\n${ts},,ui,info,Current machine states:\n`) : undefined),
    (r) => {
      const i = Math.max(machines.indexOf(r.args[1] ?? ''), 0);
      return sshScript(r) === 'hostname -I' ? ok(`10.0.2.15 ${o.network}.${10 + i} 10.244.${i}.0 \n`) : undefined;
    },
    (r) => (sshScript(r).includes('admin.conf') ? ok(ADMIN_CONF(`${o.network}.10`)) : undefined),
    (r) => (sshScript(r).includes('journalctl') ? ok(`-- journal of kubelet on ${r.args[1] ?? ''} --\n`) : undefined),
  ];
}

function toolVersion(provider: string, command: string): Partial<RunResult> {
  const present = provider === (command === 'VBoxManage' ? 'virtualbox' : 'libvirt');
  return present ? ok(command === 'VBoxManage' ? '7.1.6r167084\n' : '10.0.0\n') : { exitCode: 127, stderr: `${command}: command not found\n` };
}

export function vagrantResponder(o: VagrantFakeOptions): Responder {
  const machines = [`${o.name}-control-plane`, ...Array.from({ length: o.workers }, (_, i) => `${o.name}-worker-${i + 1}`)];
  const answers = vagrantAnswers(o, machines);
  return (r: CommandRecord) => {
    for (const answer of answers) {
      const result = answer(r);
      if (result) return result;
    }
    return ok();
  };
}
