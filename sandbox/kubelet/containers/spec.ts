// What a container runtime makes of a pod spec for one container, as pure functions: the objects the pod
// names (Secrets, ConfigMaps, service-account tokens) so the caller fetches them first, then the command line
// (Kubernetes' rules: `command` replaces the image's entrypoint, `args` its default arguments, `$(VAR)`
// expanded from the container's environment), the environment (`envFrom`, then `env` with values, Secret and
// ConfigMap keys and the downward API), the files of each volume and the mounts at the container's paths.
// The local binary stands for the image: it is the entrypoint, and whatever `command[0]` names, it runs.
import type { V1Container, V1EnvFromSource, V1EnvVar, V1KeyToPath, V1Pod, V1Volume, V1VolumeProjection } from '@kubernetes/client-node';

export class ContainerSpecError extends Error {
  override name = 'ContainerSpecError';
  /** The waiting reason a kubelet reports for it (CreateContainerConfigError, FailedMount, ...). */
  readonly reason: string;

  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A service-account token a projected volume asks for; `key` names it in the fetched objects. */
export interface TokenRequest {
  readonly key: string;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
}

/** The objects a pod's containers and volumes read: fetch these before resolving. */
export interface PodReferences {
  readonly secrets: ReadonlySet<string>;
  readonly configMaps: ReadonlySet<string>;
  readonly tokens: readonly TokenRequest[];
}

/** What the caller fetched for a pod (absent key: the object does not exist); data values decoded. */
export interface PodObjects {
  readonly secrets: ReadonlyMap<string, Readonly<Record<string, Buffer>>>;
  readonly configMaps: ReadonlyMap<string, Readonly<Record<string, Buffer>>>;
  readonly tokens: ReadonlyMap<string, string>;
}

/** The kubelet's default for a projected token without expirationSeconds (an hour and seven seconds). */
const DEFAULT_TOKEN_SECONDS = 3607;

function tokenKey(volume: string, path: string): string {
  return `${volume}/${path}`;
}

interface References {
  readonly secrets: Set<string>;
  readonly configMaps: Set<string>;
  readonly tokens: TokenRequest[];
}

function addName(set: Set<string>, name: string | undefined): void {
  if (name) set.add(name);
}

function containerReferences(c: V1Container, refs: References): void {
  const sources = [
    ...(c.env ?? []).map((e) => ({ secret: e.valueFrom?.secretKeyRef, configMap: e.valueFrom?.configMapKeyRef })),
    ...(c.envFrom ?? []).map((f) => ({ secret: f.secretRef, configMap: f.configMapRef })),
  ];
  for (const { secret, configMap } of sources) {
    addName(refs.secrets, secret?.name);
    addName(refs.configMaps, configMap?.name);
  }
}

function projectionReferences(volume: string, s: V1VolumeProjection, refs: References): void {
  addName(refs.secrets, s.secret?.name);
  addName(refs.configMaps, s.configMap?.name);
  const t = s.serviceAccountToken;
  if (t)
    refs.tokens.push({
      key: tokenKey(volume, t.path),
      audiences: t.audience ? [t.audience] : [],
      expirationSeconds: t.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
    });
}

function volumeReferences(v: V1Volume, refs: References): void {
  addName(refs.secrets, v.secret?.secretName);
  addName(refs.configMaps, v.configMap?.name);
  for (const s of v.projected?.sources ?? []) projectionReferences(v.name, s, refs);
}

export function podReferences(pod: V1Pod): PodReferences {
  const refs: References = { secrets: new Set(), configMaps: new Set(), tokens: [] };
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) containerReferences(c, refs);
  for (const v of pod.spec?.volumes ?? []) volumeReferences(v, refs);
  return refs;
}

/** A map as the downward API writes labels and annotations: `key="value"` lines, sorted. */
function mapLines(m: Record<string, string> | undefined): string {
  return Object.entries(m ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
}

const ips = (list: readonly { ip: string }[] | undefined): string => (list ?? []).map((p) => p.ip).join(',');

const FIELDS: Readonly<Record<string, (pod: V1Pod) => string | undefined>> = {
  'metadata.name': (p) => p.metadata?.name,
  'metadata.namespace': (p) => p.metadata?.namespace,
  'metadata.uid': (p) => p.metadata?.uid,
  'metadata.labels': (p) => mapLines(p.metadata?.labels),
  'metadata.annotations': (p) => mapLines(p.metadata?.annotations),
  'spec.nodeName': (p) => p.spec?.nodeName,
  'spec.serviceAccountName': (p) => p.spec?.serviceAccountName,
  'status.podIP': (p) => p.status?.podIP,
  'status.podIPs': (p) => ips(p.status?.podIPs),
  'status.hostIP': (p) => p.status?.hostIP,
  'status.hostIPs': (p) => ips(p.status?.hostIPs),
};

/** The downward API's fieldRef paths (env and volumes). */
export function fieldValue(pod: V1Pod, path: string): string {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return pod.metadata?.[keyed[1] as 'labels' | 'annotations']?.[keyed[2]!] ?? '';
  const field = FIELDS[path];
  if (!field) throw new ContainerSpecError('CreateContainerConfigError', `fieldRef ${path} is not supported`);
  return field(pod) ?? '';
}

/** `$(VAR)` from `env` (an unknown name stays as written), `$$(VAR)` the literal `$(VAR)`: Kubernetes' expansion. */
export function expand(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? all)));
}

/** One key of a Secret or ConfigMap the caller fetched; an optional reference to a missing one is undefined. */
interface KeyRef {
  readonly kind: 'secret' | 'configmap';
  readonly name: string;
  readonly key: string;
  readonly optional: boolean;
}

function keyValue(objects: ReadonlyMap<string, Readonly<Record<string, Buffer>>>, ref: KeyRef): string | undefined {
  const value = objects.get(ref.name)?.[ref.key];
  if (value !== undefined || ref.optional) return value?.toString('utf8');
  throw new ContainerSpecError(
    'CreateContainerConfigError',
    objects.has(ref.name) ? `couldn't find key ${ref.key} in ${ref.kind} ${ref.name}` : `${ref.kind} "${ref.name}" not found`,
  );
}

function envValue(pod: V1Pod, e: V1EnvVar, objects: PodObjects, env: Readonly<Record<string, string>>): string | undefined {
  const from = e.valueFrom;
  if (!from) return expand(e.value ?? '', env);
  if (from.fieldRef) return fieldValue(pod, from.fieldRef.fieldPath);
  const s = from.secretKeyRef;
  if (s) return keyValue(objects.secrets, { kind: 'secret', name: s.name ?? '', key: s.key, optional: s.optional === true });
  const c = from.configMapKeyRef;
  if (c) return keyValue(objects.configMaps, { kind: 'configmap', name: c.name ?? '', key: c.key, optional: c.optional === true });
  throw new ContainerSpecError('CreateContainerConfigError', `env ${e.name}: only value, fieldRef, secretKeyRef and configMapKeyRef are supported`);
}

/** One `envFrom` source's variables (none for a missing optional one). */
function envFromSource(f: V1EnvFromSource, objects: PodObjects): Record<string, string> {
  const [kind, ref, store] = f.secretRef ? (['secret', f.secretRef, objects.secrets] as const) : (['configmap', f.configMapRef, objects.configMaps] as const);
  const data = store.get(ref?.name ?? '');
  if (!data && ref?.optional !== true) throw new ContainerSpecError('CreateContainerConfigError', `${kind} "${ref?.name ?? ''}" not found`);
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [`${f.prefix ?? ''}${k}`, v.toString('utf8')]));
}

/**
 * The container's environment over `base` (what the runtime and the kubelet set: PATH, HOSTNAME, the
 * apiserver's KUBERNETES_SERVICE_*, the sandbox's proxy): `envFrom` in order, then `env` in order.
 */
export function containerEnv(pod: V1Pod, container: V1Container, objects: PodObjects, base: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const f of container.envFrom ?? []) Object.assign(env, envFromSource(f, objects));
  for (const e of container.env ?? []) {
    const value = envValue(pod, e, objects, env);
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}

/** The process's argv: the binary (the image's entrypoint, or whatever `command[0]` named), then the rest, expanded. */
export function containerArgv(container: V1Container, binary: string, env: Readonly<Record<string, string>>): string[] {
  const words = [...(container.command ?? []).slice(1), ...(container.args ?? [])];
  return [binary, ...words.map((w) => expand(w, env))];
}

/** One file of a volume, relative to the volume's directory. */
export interface VolumeFile {
  readonly path: string;
  readonly content: Buffer;
  /** 0600 for Secrets and tokens, 0644 otherwise. */
  readonly mode: number;
}

/** How a volume is made: files in a directory of the pod's, an empty directory, or a path of the host. */
export type VolumePlan =
  | { readonly kind: 'files'; readonly name: string; readonly files: readonly VolumeFile[] }
  | { readonly kind: 'empty'; readonly name: string }
  | { readonly kind: 'host'; readonly name: string; readonly path: string; readonly type: string };

const SECRET_MODE = 0o600;
const FILE_MODE = 0o644;

/** A volume file path: relative, no `..` component (the kubelet's own check). */
function safePath(volume: string, path: string): string {
  if (path === '' || path.startsWith('/') || path.split('/').includes('..'))
    throw new ContainerSpecError('FailedMount', `volume ${volume}: path "${path}" must be relative without ..`);
  return path;
}

/** The files of a Secret or ConfigMap source: every key, or the items named. */
interface KeySource {
  readonly volume: string;
  readonly what: string;
  readonly data: Readonly<Record<string, Buffer>> | undefined;
  readonly items: readonly V1KeyToPath[] | undefined;
  readonly mode: number;
  readonly optional: boolean;
}

function keyFiles(src: KeySource): VolumeFile[] {
  const { volume, data, mode } = src;
  if (!data) {
    if (src.optional) return [];
    throw new ContainerSpecError('FailedMount', `volume ${volume}: ${src.what} not found`);
  }
  if (!src.items || src.items.length === 0) return Object.entries(data).map(([k, v]) => ({ path: safePath(volume, k), content: v, mode }));
  return src.items.flatMap((item) => {
    const value = data[item.key];
    if (value !== undefined) return [{ path: safePath(volume, item.path), content: value, mode }];
    if (src.optional) return [];
    throw new ContainerSpecError('FailedMount', `volume ${volume}: ${src.what} has no key ${item.key}`);
  });
}

type Source = { name?: string; items?: V1KeyToPath[]; optional?: boolean };

function secretFiles(volume: string, name: string | undefined, s: Source, objects: PodObjects): VolumeFile[] {
  return keyFiles({
    volume,
    what: `secret ${name ?? ''}`,
    data: objects.secrets.get(name ?? ''),
    items: s.items,
    mode: SECRET_MODE,
    optional: s.optional === true,
  });
}

function configMapFiles(volume: string, s: Source, objects: PodObjects): VolumeFile[] {
  return keyFiles({
    volume,
    what: `configmap ${s.name ?? ''}`,
    data: objects.configMaps.get(s.name ?? ''),
    items: s.items,
    mode: FILE_MODE,
    optional: s.optional === true,
  });
}

function tokenFile(volume: string, path: string, objects: PodObjects): VolumeFile[] {
  const token = objects.tokens.get(tokenKey(volume, path));
  if (token === undefined) throw new ContainerSpecError('FailedMount', `volume ${volume}: no token for ${path}`);
  return [{ path: safePath(volume, path), content: Buffer.from(token), mode: SECRET_MODE }];
}

function projectionFiles(pod: V1Pod, volume: string, s: V1VolumeProjection, objects: PodObjects): VolumeFile[] {
  if (s.secret) return secretFiles(volume, s.secret.name, s.secret, objects);
  if (s.configMap) return configMapFiles(volume, s.configMap, objects);
  if (s.serviceAccountToken) return tokenFile(volume, s.serviceAccountToken.path, objects);
  if (s.downwardAPI) return downwardFiles(pod, volume, s.downwardAPI.items ?? []);
  throw new ContainerSpecError('FailedMount', `volume ${volume}: only secret, configMap, serviceAccountToken and downwardAPI projections are supported`);
}

function downwardFiles(pod: V1Pod, volume: string, items: readonly { path: string; fieldRef?: { fieldPath: string } }[]): VolumeFile[] {
  return items.map((item) => {
    if (!item.fieldRef) throw new ContainerSpecError('FailedMount', `volume ${volume}: downwardAPI ${item.path}: only fieldRef is supported`);
    return { path: safePath(volume, item.path), content: Buffer.from(fieldValue(pod, item.fieldRef.fieldPath)), mode: FILE_MODE };
  });
}

function fileVolume(pod: V1Pod, v: V1Volume, objects: PodObjects): VolumeFile[] | undefined {
  if (v.secret) return secretFiles(v.name, v.secret.secretName, v.secret, objects);
  if (v.configMap) return configMapFiles(v.name, v.configMap, objects);
  if (v.projected) return (v.projected.sources ?? []).flatMap((s) => projectionFiles(pod, v.name, s, objects));
  if (v.downwardAPI) return downwardFiles(pod, v.name, v.downwardAPI.items ?? []);
  return undefined;
}

function volumePlan(pod: V1Pod, v: V1Volume, objects: PodObjects): VolumePlan {
  const name = v.name;
  const files = fileVolume(pod, v, objects);
  if (files) return { kind: 'files', name, files };
  if (v.emptyDir) return { kind: 'empty', name };
  if (v.hostPath) return { kind: 'host', name, path: v.hostPath.path, type: v.hostPath.type ?? '' };
  throw new ContainerSpecError('FailedMount', `volume ${name}: only secret, configMap, projected, downwardAPI, emptyDir and hostPath volumes are supported`);
}

/** Every volume of the pod, as it will be made. */
export function volumePlans(pod: V1Pod, objects: PodObjects): VolumePlan[] {
  return (pod.spec?.volumes ?? []).map((v) => volumePlan(pod, v, objects));
}

/** A container's volumeMount: which volume (and subPath of it) appears at which absolute path. */
export interface MountPlan {
  readonly volume: string;
  readonly subPath: string;
  readonly target: string;
  readonly readOnly: boolean;
}

export function mountPlans(container: V1Container, volumes: readonly VolumePlan[]): MountPlan[] {
  const names = new Set(volumes.map((v) => v.name));
  return (container.volumeMounts ?? []).map((m) => {
    if (!names.has(m.name)) throw new ContainerSpecError('CreateContainerConfigError', `volumeMount ${m.mountPath}: no volume named ${m.name}`);
    if (!m.mountPath.startsWith('/') || m.mountPath.split('/').includes('..'))
      throw new ContainerSpecError('CreateContainerConfigError', `volumeMount ${m.name}: mountPath "${m.mountPath}" must be absolute without ..`);
    const subPath = m.subPath ? safePath(m.name, m.subPath) : '';
    return { volume: m.name, subPath, target: m.mountPath.replace(/\/+$/, '') || '/', readOnly: m.readOnly === true };
  });
}
