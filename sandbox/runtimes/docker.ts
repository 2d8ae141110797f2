// Docker helpers for the kind runtime, all through exec.ts: is an engine answering, what `docker inspect`
// says about node containers (name, role label, state, addresses per network), and the docker command
// that mirrors a simcloud power action on a node container.
import type { Exec } from '../exec.ts';
import { POWER_ACTIONS, type Availability, type PowerAction } from './runtime.ts';

/** The label kind puts on node containers: control-plane | worker | external-load-balancer. */
export const KIND_ROLE_LABEL = 'io.x-k8s.kind.role';
export const KIND_CLUSTER_LABEL = 'io.x-k8s.kind.cluster';

export interface ContainerInfo {
  readonly name: string;
  readonly running: boolean;
  readonly labels: Readonly<Record<string, string>>;
  /** network name -> addresses on it */
  readonly networks: Readonly<Record<string, { readonly ipv4: string | null; readonly ipv6: string | null }>>;
  /** Host addresses that published ports listen on (kind extraPortMappings' listenAddress). */
  readonly publishedOn: readonly string[];
}

export async function dockerEngineAvailable(exec: Exec): Promise<Availability> {
  const info = await exec.run('docker', ['info', '--format', '{{.ServerVersion}}'], { allowFailure: true, timeoutMs: 15_000 });
  if (info.exitCode === 0 && info.stdout.trim() !== '') return { ok: true };
  const why = (info.stderr.trim().split('\n')[0] ?? '') || 'the docker client is missing';
  return { ok: false, reason: `no Docker engine answers (docker info: ${why}); start Docker (or install Docker Engine / Docker Desktop)` };
}

interface RawInspect {
  Name?: string;
  State?: { Running?: boolean; Status?: string };
  Config?: { Labels?: Record<string, string> | null };
  NetworkSettings?: {
    Networks?: Record<string, { IPAddress?: string; GlobalIPv6Address?: string }> | null;
    Ports?: Record<string, { HostIp?: string; HostPort?: string }[] | null> | null;
  };
}

function networksOf(c: RawInspect): ContainerInfo['networks'] {
  return Object.fromEntries(
    Object.entries(c.NetworkSettings?.Networks ?? {}).map(([net, n]) => [net, { ipv4: n.IPAddress || null, ipv6: n.GlobalIPv6Address || null }]),
  );
}

function publishedOn(c: RawInspect): string[] {
  const hosts = Object.values(c.NetworkSettings?.Ports ?? {}).flatMap((b) => (b ?? []).map((x) => x.HostIp ?? ''));
  return [...new Set(hosts)].filter((ip) => ip !== '' && ip !== '0.0.0.0').sort();
}

/** Parses `docker inspect` output (a JSON array). */
export function parseInspect(stdout: string): ContainerInfo[] {
  const raw = JSON.parse(stdout === '' ? '[]' : stdout) as RawInspect[];
  if (!Array.isArray(raw)) throw new Error('docker inspect did not print a JSON array');
  return raw.map((c) => ({
    name: (c.Name ?? '').replace(/^\//, ''),
    running: c.State?.Running ?? c.State?.Status === 'running',
    labels: c.Config?.Labels ?? {},
    networks: networksOf(c),
    publishedOn: publishedOn(c),
  }));
}

export async function inspectContainers(exec: Exec, names: readonly string[]): Promise<ContainerInfo[]> {
  if (names.length === 0) return [];
  const out = await exec.run('docker', ['inspect', ...names]);
  return parseInspect(out.stdout);
}

/** The docker command (arguments) that does to a node container what the cloud did to its server. */
export function dockerPowerArgs(action: PowerAction, container: string): string[] {
  switch (action) {
    case POWER_ACTIONS.powerOff:
      return ['stop', container];
    case POWER_ACTIONS.powerOn:
      return ['start', container];
    case POWER_ACTIONS.reboot:
      return ['restart', container];
    case POWER_ACTIONS.delete:
      return ['rm', '-f', container];
  }
}
