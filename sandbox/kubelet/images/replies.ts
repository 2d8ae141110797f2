// Pods answer as their image does: finds a pod's behaviour (its `ccm-sandbox.dev/replies` annotation, else
// the first image-table entry matching the serving container's image and args; `stand-in` there keeps the
// stand-in's own reply) and renders its answer to
// one HTTP request, TCP line or UDP datagram, with the pod's name, IP, environment (literal values and the
// downward API's fieldRefs) and flags filled in. A pod with no behaviour gets null, and the caller keeps
// the stand-in's own reply.
import { readFileSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import type { z } from 'zod';
import { expand, fieldValue } from '../containers/spec.ts';
import { Behaviour, ImageTable, REPLIES_ANNOTATION, STAND_IN_REPLIES, type HttpRoute, type ImageEntry, type MessageRule, type Reply } from './schema.ts';

export const BUILTIN_IMAGE_TABLE = fileURLToPath(new URL('./builtin.yaml', import.meta.url));

export class ImageTableError extends Error {
  override name = 'ImageTableError';
}

/** A table file (YAML or JSON), checked; a bad file is one error naming the file and the field. */
export function readImageTable(path: string): ImageTable {
  let raw: unknown;
  try {
    raw = load(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ImageTableError(`image table ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ImageTable.safeParse(raw);
  if (!parsed.success) throw new ImageTableError(`image table ${path}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** The built-in table, with the entries of `userFile` (if any) ahead of it, so a user's entry wins. */
export function loadImageTable(userFile?: string): ImageTable {
  const builtin = readImageTable(BUILTIN_IMAGE_TABLE);
  return userFile ? { images: [...readImageTable(userFile).images, ...builtin.images] } : builtin;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `[${issue.path.join('.')}] ${issue.message}` : error.message;
}

/** An image reference as the table names it: no registry default, no `library/`, no tag or digest. */
export function imageName(ref: string): string {
  let name = ref.split('@')[0] ?? ref;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) name = name.slice(0, colon);
  name = name.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '');
  return name.replace(/^library\//, '');
}

/** The tag of a reference (`latest` when it names none), or its digest (`sha256:...`). */
export function imageTag(ref: string): string {
  const at = ref.indexOf('@');
  if (at >= 0) return ref.slice(at + 1);
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? ref.slice(colon + 1) : 'latest';
}

/** Whether a table entry is for this container: its image, its tag (if the entry names tags) and its args. */
export function entryMatches(entry: ImageEntry, container: Pick<V1Container, 'image' | 'command' | 'args'>): boolean {
  const ref = container.image ?? '';
  const name = imageName(ref);
  if (!entry.images.some((i) => imageName(i) === name)) return false;
  if (entry.tags && !entry.tags.some((t) => matchesGlob(imageTag(ref), t))) return false;
  const words = new Set([...(container.command ?? []), ...(container.args ?? [])]);
  return (entry.args ?? []).every((a) => words.has(a));
}

/** What a template can name about the pod and the container that serves. */
export interface PodFacts {
  readonly vars: Readonly<Record<string, string>>;
}

/** A pod's behaviour on `port` (the endpoint's port), and the facts its templates read; null: none. */
export interface PodBehaviour {
  /** The table entry's name, or the annotation. */
  readonly source: string;
  readonly behaviour: Behaviour;
  readonly facts: PodFacts;
}

export class ImageReplies {
  readonly #table: ImageTable;
  readonly #onError: (message: string) => void;

  constructor(table: ImageTable, onError: (message: string) => void = () => undefined) {
    this.#table = table;
    this.#onError = onError;
  }

  /** The behaviour of `pod` serving on `port`, or null (an unknown image, or a bad annotation, reported). */
  of(pod: V1Pod, port: number, fallbackIp: string): PodBehaviour | null {
    const container = servingContainer(pod, port);
    if (!container) return null;
    const facts = podFacts(pod, container, port, fallbackIp);
    const own = this.#annotated(pod);
    if (own === STAND_IN_REPLIES) return null;
    if (own) return { source: REPLIES_ANNOTATION, behaviour: own, facts };
    // A runnable image's process answers for itself: the stand-in keeps its own reply.
    const entry = this.#table.images.find((e) => entryMatches(e, container));
    return entry && !entry.run ? { source: entry.name, behaviour: entry, facts } : null;
  }

  /** The pod's own behaviour from its annotation; null without one or with a bad one (reported). */
  #annotated(pod: V1Pod): Behaviour | typeof STAND_IN_REPLIES | null {
    const annotation = pod.metadata?.annotations?.[REPLIES_ANNOTATION];
    if (annotation === undefined || annotation === STAND_IN_REPLIES) return annotation ?? null;
    const parsed = parseAnnotation(annotation);
    if (typeof parsed !== 'string') return parsed;
    this.#onError(`pod ${fieldRef(pod, 'metadata.namespace', '')}/${fieldRef(pod, 'metadata.name', '')}: annotation ${REPLIES_ANNOTATION} ignored: ${parsed}`);
    return null;
  }
}

function parseAnnotation(text: string): Behaviour | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return `not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  const parsed = Behaviour.safeParse(raw);
  return parsed.success ? parsed.data : describeIssue(parsed.error);
}

/** The container that listens on `port` (by its declared ports), else the pod's first container. */
function servingContainer(pod: V1Pod, port: number): V1Container | undefined {
  const containers = pod.spec?.containers ?? [];
  return containers.find((c) => (c.ports ?? []).some((p) => p.containerPort === port)) ?? containers[0];
}

/** The downward API's fieldRef paths a container's env can read. */
function fieldRef(pod: V1Pod, path: string, ip: string): string {
  try {
    return fieldValue({ ...pod, status: { ...pod.status, podIP: ip, podIPs: [{ ip }] } }, path);
  } catch {
    return '';
  }
}

/** `-name=value`, `--name=value`, `-name value` and `--name value` among the command and args. */
function flags(words: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const m = /^--?([A-Za-z0-9][\w.-]*)(?:=(.*))?$/s.exec(words[i]!);
    if (!m) continue;
    const next = words[i + 1];
    if (m[2] !== undefined) out[m[1]!] = m[2];
    else if (next !== undefined && !next.startsWith('-')) out[m[1]!] = words[++i]!;
    else out[m[1]!] = 'true';
  }
  return out;
}

/** The container's environment as the kubelet sets it: HOSTNAME, literal values with $(VAR) expanded, fieldRefs. */
function environment(pod: V1Pod, container: V1Container, hostname: string, ip: string): Record<string, string> {
  const env: Record<string, string> = { HOSTNAME: hostname };
  for (const e of container.env ?? []) {
    const path = e.valueFrom?.fieldRef?.fieldPath;
    env[e.name] = path !== undefined ? fieldRef(pod, path, ip) : expand(e.value ?? '', env);
  }
  return env;
}

function podFacts(pod: V1Pod, container: V1Container, port: number, fallbackIp: string): PodFacts {
  const ip = pod.status?.podIP ?? fallbackIp;
  const field = (path: string): string => fieldRef(pod, path, ip);
  const hostname = pod.spec?.hostname ?? field('metadata.name');
  const vars: Record<string, string> = {
    'pod.name': field('metadata.name'),
    'pod.namespace': field('metadata.namespace'),
    'pod.uid': field('metadata.uid'),
    'pod.ip': ip,
    'node.name': field('spec.nodeName'),
    'host.ip': field('status.hostIP'),
    hostname,
    'server.port': String(port),
    'container.name': container.name,
    'container.image': container.image ?? '',
  };
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  for (const [k, v] of Object.entries(environment(pod, container, hostname, ip))) vars[`env.${k}`] = v;
  for (const [k, v] of Object.entries(flags(words))) vars[`flag.${k}`] = v;
  return { vars };
}

/** What the client sent and who it is, as templates read it. */
export interface HttpRequestFacts {
  readonly method: string;
  /** The request target: path and query. */
  readonly uri: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly client: { readonly ip: string; readonly port: number };
  readonly now: Date;
  /** The original client a PROXY protocol header named (`ip:port`), if the connection began with one. */
  readonly proxySource?: string;
}

export interface ImageHttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

type Values = Readonly<Record<string, string | Readonly<Record<string, string>>>>;

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

function render(template: string, values: Values): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const v = values[name];
    return typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
  });
}

/** JSON with its strings rendered; a string that is one placeholder of an object value becomes that object. */
function renderJson(value: unknown, values: Values): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([\w.-]+)\s*\}\}$/.exec(value);
    const v = whole ? values[whole[1]!] : undefined;
    return v !== undefined && typeof v !== 'string' ? v : render(value, values);
  }
  if (Array.isArray(value)) return value.map((v) => renderJson(v, values));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderJson(v, values)]));
  return value;
}

function routeMatches(route: HttpRoute, method: string, path: string): boolean {
  if (route.method !== undefined && route.method !== method) return false;
  return route.path.endsWith('*') ? path.startsWith(route.path.slice(0, -1)) : path === route.path;
}

function baseValues(facts: PodFacts, client: { ip: string; port: number }, now: Date, proxySource = ''): Record<string, string> {
  return { ...facts.vars, 'client.ip': client.ip, 'client.port': String(client.port), now: now.toISOString(), 'proxy.source': proxySource };
}

/** The answer to an HTTP request; null when the behaviour has no HTTP (the caller answers 400 as a non-HTTP server would not: it closes). */
export function answerHttp(b: PodBehaviour, req: HttpRequestFacts): ImageHttpReply | null {
  const routes = b.behaviour.http;
  if (routes === undefined) return null;
  const url = new URL(req.uri, 'http://request.invalid');
  const values: Record<string, string | Record<string, string>> = {
    ...baseValues(b.facts, req.client, req.now, req.proxySource),
    'request.method': req.method,
    'request.path': url.pathname,
    'request.uri': req.uri,
    'request.host': req.headers.host ?? '',
    'request.headers': { ...req.headers },
  };
  for (const [k, v] of url.searchParams) values[`request.query.${k}`] ??= v;
  const route = routes.find((r) => routeMatches(r, req.method, url.pathname));
  if (route === undefined) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
  return replyOf(route.reply, values);
}

function replyOf(reply: Reply, values: Values): ImageHttpReply {
  const isJson = reply.json !== undefined;
  const body = isJson ? `${JSON.stringify(renderJson(reply.json, values))}\n` : render(reply.text ?? '', values);
  const headers: Record<string, string> = { 'content-type': isJson ? 'application/json' : 'text/plain; charset=utf-8' };
  for (const [k, v] of Object.entries(reply.headers)) headers[k.toLowerCase()] = render(v, values);
  return { status: reply.status, headers, body };
}

/** A TCP line or a UDP datagram, and who sent it. */
export interface MessageFacts {
  readonly payload: string;
  readonly client: { readonly ip: string; readonly port: number };
  readonly now: Date;
  /** As for HTTP: the PROXY header's client, if any. */
  readonly proxySource?: string;
}

/** The answer to a TCP line or a UDP datagram, or null when no rule takes it (nothing is sent back). */
export function answerMessage(b: PodBehaviour, protocol: 'tcp' | 'udp', { payload, client, now, proxySource }: MessageFacts): string | null {
  const rules: readonly MessageRule[] | undefined = b.behaviour[protocol];
  const text = payload.replace(/\r?\n$/, '');
  const rule = rules?.find((r) => r.when === undefined || text.startsWith(r.when));
  if (rule === undefined) return null;
  const rest = rule.when === undefined ? text : text.slice(rule.when.length);
  return render(rule.reply, { ...baseValues(b.facts, client, now, proxySource), 'request.payload': text, 'request.rest': rest });
}
