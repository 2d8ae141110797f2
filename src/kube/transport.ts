/**
 * KubeTransport: the CCM's HTTP(S) to one apiserver. One keep-alive connection pool per endpoint and
 * credentials, shared by every client of the process (client-go shares one transport per rest config);
 * the endpoint's credentials on every request; JSON in and out; a `KubeApiError` for every failure,
 * carrying the HTTP status and the apiserver's Status reason.
 *
 * Credentials that live in files (CA, client certificate and key, a projected token) are read when a pool
 * is built and re-checked on each request, so a rotated certificate gets a fresh pool (the old one closes
 * once its requests finish) and a rotated token is sent within a minute, as client-go does.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { z } from 'zod';
import type { Credentials, ExecPlugin, KubeEndpoint, Material } from './kubeconfig.ts';

/** A failed Kubernetes API call: `code` is the HTTP status, 0 when no response came (connection, TLS, timeout). */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly code: number;
  /** The Status `reason` (`Conflict`, `NotFound`, `Expired`, …) when the apiserver sent one. */
  readonly reason: string | undefined;

  constructor(code: number, message: string, reason?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.reason = reason;
  }
}

export const HttpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HttpMethods)[number];

export interface KubeRequest {
  readonly method: HttpMethod;
  /** Absolute path, e.g. `/api/v1/nodes/n1`; names in it are already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Of the body (default `application/json`); patches name their patch type. */
  readonly contentType?: string;
  readonly userAgent?: string;
  readonly signal?: AbortSignal;
  /** Socket inactivity limit (default 60 s, the apiserver's own request timeout). */
  readonly idleTimeoutMs?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** client-go re-reads a token file at most once a minute. */
const TOKEN_FILE_TTL_MS = 60_000;

const Status = z.object({ message: z.string().optional(), reason: z.string().optional() });

const ExecCredential = z.object({
  kind: z.literal('ExecCredential'),
  status: z.object({
    token: z.string().optional(),
    clientCertificateData: z.string().optional(),
    clientKeyData: z.string().optional(),
    expirationTimestamp: z.string().optional(),
  }),
});

interface Pool {
  readonly key: string;
  readonly agent: HttpAgent;
  inFlight: number;
  retired: boolean;
}

interface ExecResult {
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly expiresAt: number;
}

function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${path}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${path}:missing`;
  }
}

function materialStamp(m: Material | undefined): string {
  if (m === undefined) return '';
  return 'data' in m ? m.data : fileStamp(m.file);
}

function readMaterial(m: Material | undefined, what: string): string | undefined {
  if (m === undefined) return undefined;
  if ('data' in m) return m.data;
  try {
    return readFileSync(m.file, 'utf8');
  } catch (err) {
    throw new KubeApiError(0, `cannot read the ${what} ${m.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, undefined, { cause: err });
  }
}

function errorMessage(req: KubeRequest, code: number, body: string): { message: string; reason?: string } {
  let status: z.infer<typeof Status> | undefined;
  try {
    const parsed = Status.safeParse(JSON.parse(body));
    if (parsed.success) status = parsed.data;
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  const detail = status?.message ?? (body.trim().slice(0, 200) || `HTTP ${code}`);
  return { message: `${req.method} ${req.path}: ${code} ${detail}`, ...(status?.reason ? { reason: status.reason } : {}) };
}

export class KubeTransport {
  readonly endpoint: KubeEndpoint;
  readonly #https: boolean;
  #pool: Pool | undefined;
  #token: { value: string; readAt: number } | undefined;
  #exec: ExecResult | undefined;
  #execRunning: Promise<ExecResult> | undefined;
  #closed = false;

  constructor(endpoint: KubeEndpoint) {
    this.endpoint = endpoint;
    this.#https = endpoint.server.startsWith('https:');
  }

  /** One request; resolves with the parsed JSON body (undefined when empty). */
  async request(req: KubeRequest): Promise<unknown> {
    try {
      return await this.#once(req);
    } catch (err) {
      // An exec plugin's credential may be revoked before its stated expiry: fetch a new one once.
      if (err instanceof KubeApiError && err.code === 401 && this.endpoint.credentials.kind === 'exec') {
        this.#exec = undefined;
        return this.#once(req);
      }
      throw err;
    }
  }

  /**
   * A streamed response (a watch): `onLine` gets each newline-delimited JSON value as it arrives. Resolves
   * when the server ends the stream; rejects on an error status, a broken connection or a value that is
   * not JSON. Abort with `req.signal`.
   */
  async stream(req: KubeRequest, onValue: (value: unknown) => void): Promise<void> {
    const res = await this.#send(req);
    if ((res.statusCode ?? 0) >= 400) throw await this.#failure(req, res);
    res.setEncoding('utf8');
    let pending = '';
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (err: unknown): void => {
        if (failed) return;
        failed = true;
        reject(err instanceof KubeApiError ? err : new KubeApiError(0, `${req.method} ${req.path}: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err }));
        res.destroy();
      };
      res.on('data', (chunk: string) => {
        if (failed) return;
        pending += chunk;
        let nl = pending.indexOf('\n');
        while (nl >= 0) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (line !== '') {
            try {
              onValue(JSON.parse(line));
            } catch (err) {
              fail(err);
              return;
            }
          }
          nl = pending.indexOf('\n');
        }
      });
      res.on('end', () => resolve());
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('stream aborted')));
    });
  }

  /** Closes the pooled connections once in-flight requests finish; later requests fail. */
  close(): void {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) this.#retire(pool);
  }

  async #once(req: KubeRequest): Promise<unknown> {
    const res = await this.#send(req);
    const code = res.statusCode ?? 0;
    if (code >= 400) throw await this.#failure(req, res);
    const text = await readBody(res, req);
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new KubeApiError(code, `${req.method} ${req.path}: the response is not JSON`, undefined, { cause: err });
    }
  }

  async #failure(req: KubeRequest, res: IncomingMessage): Promise<KubeApiError> {
    const code = res.statusCode ?? 0;
    const body = await readBody(res, req).catch(() => '');
    const { message, reason } = errorMessage(req, code, body);
    return new KubeApiError(code, message, reason);
  }

  async #send(req: KubeRequest): Promise<IncomingMessage> {
    if (this.#closed) throw new KubeApiError(0, `${req.method} ${req.path}: the client is closed`);
    const exec = this.endpoint.credentials.kind === 'exec' ? await this.#execCredential(this.endpoint.credentials.exec) : undefined;
    const pool = this.#poolFor(exec);
    const url = new URL(req.path, this.endpoint.server);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const headers = requestHeaders(req, body, this.#authorization(exec));
    const options: RequestOptions = { method: req.method, agent: pool.agent, headers, ...(req.signal ? { signal: req.signal } : {}) };
    pool.inFlight += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      pool.inFlight -= 1;
      if (pool.retired && pool.inFlight === 0) pool.agent.destroy();
    };
    return new Promise<IncomingMessage>((resolve, reject) => {
      let answered = false;
      const cr: ClientRequest = (this.#https ? httpsRequest : httpRequest)(url, options, (res) => {
        answered = true;
        res.once('close', release);
        resolve(res);
      });
      cr.setTimeout(req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => cr.destroy(new Error(`no data for ${Math.round((req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS) / 1000)} s`)));
      cr.once('error', (err) => {
        release();
        reject(new KubeApiError(0, `${req.method} ${url.pathname}: ${err.message}`, undefined, { cause: err }));
      });
      cr.once('close', () => {
        if (!answered) release();
      });
      cr.end(body);
    });
  }

  #authorization(exec: ExecResult | undefined): string | undefined {
    const c: Credentials = this.endpoint.credentials;
    if (c.kind === 'basic') return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
    if (c.kind === 'exec') return exec?.token ? `Bearer ${exec.token}` : undefined;
    if (c.kind !== 'token') return undefined;
    if ('data' in c.token) return `Bearer ${c.token.data}`;
    const now = Date.now();
    if (!this.#token || now - this.#token.readAt >= TOKEN_FILE_TTL_MS) {
      this.#token = { value: (readMaterial(c.token, 'token file') ?? '').trim(), readAt: now };
    }
    return `Bearer ${this.#token.value}`;
  }

  /** The pool for the current TLS material; a change retires the old pool. */
  #poolFor(exec: ExecResult | undefined): Pool {
    const e = this.endpoint;
    const key = [materialStamp(e.ca), materialStamp(e.clientCert), materialStamp(e.clientKey), exec?.cert ?? '', exec?.key ?? ''].join('\n');
    if (this.#pool?.key === key) return this.#pool;
    const agentOptions = { keepAlive: true, scheduling: 'lifo' as const };
    const agent = this.#https ? new HttpsAgent({ ...agentOptions, ...tlsOptions(e, exec) }) : new HttpAgent(agentOptions);
    if (this.#pool) this.#retire(this.#pool);
    this.#pool = { key, agent, inFlight: 0, retired: false };
    return this.#pool;
  }

  #retire(pool: Pool): void {
    pool.retired = true;
    if (pool.inFlight === 0) pool.agent.destroy();
  }

  async #execCredential(plugin: ExecPlugin): Promise<ExecResult> {
    if (this.#exec && this.#exec.expiresAt > Date.now()) return this.#exec;
    this.#execRunning ??= runExecPlugin(plugin, this.endpoint).finally(() => (this.#execRunning = undefined));
    this.#exec = await this.#execRunning;
    return this.#exec;
  }
}

function requestHeaders(req: KubeRequest, body: string | undefined, authorization: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  if (req.userAgent) headers['User-Agent'] = req.userAgent;
  if (authorization) headers.Authorization = authorization;
  return headers;
}

/** TLS options of a pool: the CA, the client certificate (an exec plugin's first), verification. */
function tlsOptions(e: KubeEndpoint, exec: ExecResult | undefined): HttpsAgentOptions {
  return {
    ca: readMaterial(e.ca, 'certificate authority'),
    cert: exec?.cert ?? readMaterial(e.clientCert, 'client certificate'),
    key: exec?.key ?? readMaterial(e.clientKey, 'client key'),
    rejectUnauthorized: !e.insecureSkipTlsVerify,
    ...(e.tlsServerName ? { servername: e.tlsServerName } : {}),
  };
}

function readBody(res: IncomingMessage, req: KubeRequest): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(new KubeApiError(0, `${req.method} ${req.path}: ${err.message}`, undefined, { cause: err })));
    res.on('aborted', () => reject(new KubeApiError(0, `${req.method} ${req.path}: the response was cut off`)));
  });
}

/** Runs an exec credential plugin as client-go does (KUBERNETES_EXEC_INFO in, an ExecCredential out). */
function runExecPlugin(plugin: ExecPlugin, endpoint: KubeEndpoint): Promise<ExecResult> {
  const info = { apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
  const env = { ...process.env, ...plugin.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  return new Promise<ExecResult>((resolve, reject) => {
    execFile(plugin.command, [...plugin.args], { env, cwd: plugin.cwd, timeout: 60_000, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) {
        reject(new KubeApiError(0, `the exec credential plugin ${plugin.command} for ${endpoint.source} failed: ${err.message.split('\n')[0]}`, undefined, { cause: err }));
        return;
      }
      let parsed: z.infer<typeof ExecCredential>;
      try {
        parsed = ExecCredential.parse(JSON.parse(stdout));
      } catch (cause) {
        reject(new KubeApiError(0, `the exec credential plugin ${plugin.command} printed no ExecCredential with a status`, undefined, { cause }));
        return;
      }
      const s = parsed.status;
      const expires = s.expirationTimestamp ? Date.parse(s.expirationTimestamp) : Number.POSITIVE_INFINITY;
      resolve({
        ...(s.token ? { token: s.token } : {}),
        ...(s.clientCertificateData ? { cert: s.clientCertificateData } : {}),
        ...(s.clientKeyData ? { key: s.clientKeyData } : {}),
        expiresAt: Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires,
      });
    });
  });
}
