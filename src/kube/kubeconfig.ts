/**
 * Where the CCM finds its apiserver and credentials: a kubeconfig file (`--kubeconfig`), else the
 * in-cluster service account, else the files of `$KUBECONFIG` merged, or `~/.kube/config`, resolved the
 * way client-go's clientcmd resolves them (the first file to name a cluster, user, context or the
 * current context wins; relative paths against the directory of the file an entry came from; `*-data`
 * before file paths). Every field read is checked here, so a bad kubeconfig fails at start with a
 * `KubeConfigError` naming the field, never at the first request.
 *
 * Files (CA, client certificate and key, token file) stay paths: the transport reads them when it
 * builds a connection pool, so rotated credentials are picked up without a restart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { z } from 'zod';

/** A kubeconfig the CCM cannot use; the message names the file and field. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/** Inline PEM/token data, or a file read when needed. */
export type Material = { readonly data: string } | { readonly file: string };

/** An exec credential plugin (client.authentication.k8s.io ExecCredential), as a kubeconfig names it. */
export interface ExecPlugin {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
  /** Directory relative commands resolve against (the kubeconfig's). */
  readonly cwd: string;
}

export type Credentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: Material }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'exec'; readonly exec: ExecPlugin };

export interface KubeEndpoint {
  /** The apiserver's base URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** Where this came from, for logs: a file path or `in-cluster`. */
  readonly source: string;
  readonly ca?: Material;
  readonly clientCert?: Material;
  readonly clientKey?: Material;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly credentials: Credentials;
}

const Exec = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(z.object({ name: z.string().min(1), value: z.string() })).nullish(),
  apiVersion: z.string().min(1),
});
const Cluster = z.object({
  server: z.string().regex(/^https?:\/\/[^/]/, 'must be an http(s) URL'),
  'certificate-authority': z.string().optional(),
  'certificate-authority-data': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
});
const User = z.object({
  'client-certificate': z.string().optional(),
  'client-certificate-data': z.string().optional(),
  'client-key': z.string().optional(),
  'client-key-data': z.string().optional(),
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  exec: Exec.optional(),
  'auth-provider': z.unknown().optional(),
});
const KubeConfigFile = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: Cluster })).nullish(),
  users: z.array(z.object({ name: z.string(), user: User.nullish() })).nullish(),
  contexts: z.array(z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string().optional() }) })).nullish(),
  'current-context': z.string().optional(),
});
type KubeConfigFile = z.infer<typeof KubeConfigFile>;

/** The service account mount and environment a Pod gets. */
export interface InClusterSource {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly tokenFile: string;
  readonly caFile: string;
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
export const podInCluster: InClusterSource = { env: process.env, tokenFile: `${SERVICE_ACCOUNT}/token`, caFile: `${SERVICE_ACCOUNT}/ca.crt` };

/** The endpoint a Pod's service account reaches, or undefined outside a Pod. */
export function inClusterEndpoint(source: InClusterSource = podInCluster): KubeEndpoint | undefined {
  const host = source.env.KUBERNETES_SERVICE_HOST;
  const port = source.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port || !existsSync(source.tokenFile)) return undefined;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    source: 'in-cluster',
    ca: { file: source.caFile },
    insecureSkipTlsVerify: false,
    credentials: { kind: 'token', token: { file: source.tokenFile } },
  };
}

const where = (path: readonly PropertyKey[]): string =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');

/** Parses kubeconfig text (YAML or JSON) and resolves its current context. `file` names it in errors and anchors relative paths. */
export function parseKubeConfig(text: string, file: string): KubeEndpoint {
  return resolveContext(single(parseFile(text, file), file), file);
}

/** Validated kubeconfig text. */
function parseFile(text: string, file: string): KubeConfigFile {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    throw new KubeConfigError(`${file}: not YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const parsed = KubeConfigFile.safeParse(doc ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KubeConfigError(`${file}: ${issue ? `${where(issue.path)}: ${issue.message}` : 'invalid kubeconfig'}`);
  }
  return parsed.data;
}

/** A kubeconfig with the directory each cluster and user entry came from (its relative paths' anchor). */
interface Merged {
  readonly cfg: KubeConfigFile;
  readonly baseOf: { readonly clusters: ReadonlyMap<string, string>; readonly users: ReadonlyMap<string, string> };
}

const single = (cfg: KubeConfigFile, file: string): Merged => merge([{ cfg, file }]);

/**
 * clientcmd's merge of several files: for clusters, users and contexts the first file to define a name
 * wins, and so does the first file to set `current-context`.
 */
function merge(files: readonly { readonly cfg: KubeConfigFile; readonly file: string }[]): Merged {
  const firstByName = <T extends { readonly name: string }>(key: 'clusters' | 'users' | 'contexts'): { entries: T[]; base: Map<string, string> } => {
    const entries: T[] = [];
    const base = new Map<string, string>();
    for (const { cfg, file } of files) {
      for (const e of (cfg[key] ?? []) as T[]) {
        if (base.has(e.name)) continue;
        base.set(e.name, dirname(resolve(file)));
        entries.push(e);
      }
    }
    return { entries, base };
  };
  const clusters = firstByName<NonNullable<KubeConfigFile['clusters']>[number]>('clusters');
  const users = firstByName<NonNullable<KubeConfigFile['users']>[number]>('users');
  const contexts = firstByName<NonNullable<KubeConfigFile['contexts']>[number]>('contexts');
  const current = files.map((f) => f.cfg['current-context']).find((c) => c !== undefined && c !== '');
  return {
    cfg: { clusters: clusters.entries, users: users.entries, contexts: contexts.entries, ...(current === undefined ? {} : { 'current-context': current }) },
    baseOf: { clusters: clusters.base, users: users.base },
  };
}

type ClusterEntry = z.infer<typeof Cluster>;
type UserEntry = z.infer<typeof User>;

/** The entry named `name` in a kubeconfig list, or a KubeConfigError saying which reference is dangling. */
function named<T>(list: ReadonlyArray<{ readonly name: string } & T> | null | undefined, name: string, what: string): T {
  const found = list?.find((e) => e.name === name);
  if (found === undefined) throw new KubeConfigError(`${what} "${name}", which is not among ${what.split(' ').at(-1) ?? ''}s[].name`);
  return found;
}

/** The current context's cluster and user entries, with their names. */
function currentEntries(cfg: KubeConfigFile, file: string): { cluster: ClusterEntry; clusterName: string; user: UserEntry; userName: string } {
  const current = cfg['current-context'];
  if (!current) throw new KubeConfigError(`${file}: current-context is not set`);
  const context = cfg.contexts?.find((c) => c.name === current)?.context;
  if (!context) throw new KubeConfigError(`${file}: current-context "${current}" is not among contexts[].name`);
  const clusterName = context.cluster;
  const { cluster } = named(cfg.clusters, clusterName, `${file}: context "${current}" names cluster`);
  if (context.user === undefined) return { cluster, clusterName, user: {}, userName: '' };
  const { user } = named(cfg.users, context.user, `${file}: context "${current}" names user`);
  return { cluster, clusterName, user: user ?? {}, userName: context.user };
}

function resolveContext({ cfg, baseOf }: Merged, file: string): KubeEndpoint {
  const { cluster, clusterName, user, userName } = currentEntries(cfg, file);
  const base = baseOf.users.get(userName) ?? dirname(resolve(file));
  const material = (data: string | undefined, filePath: string | undefined, anchor = base): Material | undefined => {
    if (data) return { data: Buffer.from(data, 'base64').toString('utf8') };
    return filePath ? { file: isAbsolute(filePath) ? filePath : join(anchor, filePath) } : undefined;
  };
  const at = `${file}: users[${userName}].user`;
  if (user['auth-provider'] !== undefined)
    throw new KubeConfigError(`${at}.auth-provider: auth-provider plugins are not supported; use a token, a client certificate or an exec plugin`);
  const clientCert = material(user['client-certificate-data'], user['client-certificate']);
  const clientKey = material(user['client-key-data'], user['client-key']);
  if ((clientCert === undefined) !== (clientKey === undefined))
    throw new KubeConfigError(`${at}: a client certificate needs both client-certificate(-data) and client-key(-data)`);
  return {
    server: cluster.server.replace(/\/+$/, ''),
    source: file,
    ...optional('ca', material(cluster['certificate-authority-data'], cluster['certificate-authority'], baseOf.clusters.get(clusterName))),
    ...optional('clientCert', clientCert),
    ...optional('clientKey', clientKey),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] ?? false,
    ...optional('tlsServerName', cluster['tls-server-name']),
    credentials: credentials(user, base, at),
  };
}

/** The request credentials, in clientcmd's order: token, token file, basic, exec. */
function credentials(user: UserEntry, base: string, at: string): Credentials {
  if (user.token) return { kind: 'token', token: { data: user.token } };
  if (user.tokenFile) return { kind: 'token', token: { file: isAbsolute(user.tokenFile) ? user.tokenFile : join(base, user.tokenFile) } };
  if (user.username !== undefined || user.password !== undefined) {
    if (!user.username || user.password === undefined) throw new KubeConfigError(`${at}: basic auth needs both username and password`);
    return { kind: 'basic', username: user.username, password: user.password };
  }
  return user.exec ? { kind: 'exec', exec: execPlugin(user.exec, base) } : { kind: 'none' };
}

function execPlugin(exec: z.infer<typeof Exec>, cwd: string): ExecPlugin {
  return {
    command: exec.command,
    args: exec.args ?? [],
    env: Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])),
    apiVersion: exec.apiVersion,
    cwd,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Reads and parses a kubeconfig file. */
export function readKubeConfigFile(file: string): KubeEndpoint {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`--kubeconfig ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(err)}`);
  }
  return parseKubeConfig(text, file);
}

export interface DefaultChain {
  readonly inCluster?: InClusterSource;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
}

/** The files clientcmd would load: `$KUBECONFIG`'s that exist (each once), or `~/.kube/config` when it is unset or empty. */
function kubeconfigFiles(chain: DefaultChain): string[] {
  const listed = ((chain.env ?? process.env).KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  const candidates = listed.length > 0 ? listed : [join(chain.home ?? homedir(), '.kube', 'config')];
  return [...new Set(candidates)].filter((p) => existsSync(p));
}

/**
 * The endpoint for `--kubeconfig path`; with an empty path the in-cluster service account, else the files of
 * `$KUBECONFIG` that exist, merged as clientcmd merges them, else (KUBECONFIG unset or empty) `~/.kube/config`.
 */
export function loadKubeEndpoint(path = '', chain: DefaultChain = {}): KubeEndpoint {
  if (path !== '') return readKubeConfigFile(path);
  const inCluster = inClusterEndpoint(chain.inCluster);
  if (inCluster) return inCluster;
  const found = kubeconfigFiles(chain);
  if (found.length === 1) return readKubeConfigFile(found[0]!);
  if (found.length > 1) {
    const label = `$KUBECONFIG (${found.join(delimiter)})`;
    return resolveContext(merge(found.map((file) => ({ cfg: parseFile(readFileSync(file, 'utf8'), file), file }))), label);
  }
  throw new KubeConfigError('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a Pod with a service account');
}
