/**
 * KubeTransport: the CCM's HTTP(S) to one apiserver. One keep-alive connection pool (lib/http-pool) per endpoint
 * and credentials, shared by every client of the process (client-go shares one transport per rest config);
 * the endpoint's credentials on every request; JSON in and out; a `KubeApiError` for every failure,
 * carrying the HTTP status and the apiserver's Status reason.
 *
 * Credentials that live in files (CA, client certificate and key, a projected token) are read when a pool
 * is built and re-checked on each request, so a rotated certificate gets a fresh pool (the old one closes
 * once its requests finish) and a rotated token is sent within a minute, as client-go does.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { originOf, type BodySink, type Http1Origin, type Http1Response } from '../../lib/http1.ts';
import { createHttpPool, type HttpPool, type HttpTransport } from '../../lib/http-pool.ts';
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
  /**
   * The whole request's deadline, as client-go's `rest.Config.Timeout` (default 60 s, the apiserver's own
   * request timeout); a stream (a watch) has none unless it says.
   */
  readonly timeoutMs?: number;
  /** For a stream: it fails when nothing arrives for this long (a watch's longest silence). */
  readonly inactivityTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
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
  readonly http: HttpPool;
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
  readonly #server: URL;
  /** The server URL's path (a proxy's prefix such as `/k8s/clusters/c-1`), put before every request's. */
  readonly #prefix: string;
  #pool: Pool | undefined;
  #token: { value: string; readAt: number } | undefined;
  #exec: ExecResult | undefined;
  #execRunning: Promise<ExecResult> | undefined;
  #closed = false;
  readonly #transport: HttpTransport;

  /** `transport`: the HTTP client under the pool (the `httpTransport` setting; default lib/http1). */
  constructor(endpoint: KubeEndpoint, transport: HttpTransport = 'http1') {
    this.endpoint = endpoint;
    this.#transport = transport;
    this.#server = new URL(endpoint.server);
    this.#prefix = this.#server.pathname.replace(/\/+$/, '');
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
   * A streamed response (a watch): `onValue` gets each newline-delimited JSON value as it arrives. Resolves
   * when the server ends the stream; rejects on an error status, a broken connection, a value that is not
   * JSON or an error `onValue` throws (a `KubeApiError` as it is). Abort with `req.signal`.
   */
  async stream(req: KubeRequest, onValue: (value: unknown) => void): Promise<void> {
    let partial: Buffer | undefined;
    let thrown: { error: unknown } | undefined;
    const lines = (chunk: Buffer): void => {
      const data = partial ? Buffer.concat([partial, chunk]) : chunk;
      partial = undefined;
      let start = 0;
      for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, start)) {
        const line = data.toString('utf8', start, nl).trim();
        start = nl + 1;
        if (line === '') continue;
        try {
          onValue(JSON.parse(line));
        } catch (error) {
          thrown = { error };
          throw error;
        }
      }
      if (start < data.length) partial = data.subarray(start);
    };
    let res: Http1Response;
    try {
      res = await this.#exchange(req, req.timeoutMs ?? Number.POSITIVE_INFINITY, (head) => (head.status >= 400 ? undefined : lines));
    } catch (err) {
      const cause = thrown?.error;
      if (cause instanceof KubeApiError) throw cause;
      if (cause !== undefined)
        throw new KubeApiError(0, `${req.method} ${req.path}: ${cause instanceof Error ? cause.message : 'the stream handler failed'}`, undefined, { cause });
      throw err;
    }
    if (res.status >= 400) throw failure(req, res);
  }

  /** Closes the pooled connections once in-flight requests finish; later requests fail. */
  close(): void {
    this.#closed = true;
    this.#pool?.http.close();
    this.#pool = undefined;
  }

  async #once(req: KubeRequest): Promise<unknown> {
    const res = await this.#exchange(req, req.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (res.status >= 400) throw failure(req, res);
    if (res.body.length === 0) return undefined;
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch (err) {
      throw new KubeApiError(res.status, `${req.method} ${req.path}: the response is not JSON`, undefined, { cause: err });
    }
  }

  async #exchange(req: KubeRequest, timeoutMs: number, sink?: BodySink): Promise<Http1Response> {
    if (this.#closed) throw new KubeApiError(0, `${req.method} ${req.path}: the client is closed`);
    const exec = this.endpoint.credentials.kind === 'exec' ? await this.#execCredential(this.endpoint.credentials.exec) : undefined;
    const pool = this.#poolFor(exec);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    try {
      return await pool.http.request(
        {
          method: req.method,
          path: this.#prefix + req.path + queryString(req.query),
          headers: requestHeaders(req, body, this.#authorization(exec)),
          timeoutMs,
          ...(req.inactivityTimeoutMs === undefined ? {} : { inactivityTimeoutMs: req.inactivityTimeoutMs }),
          ...(body === undefined ? {} : { body }),
          ...(req.signal ? { signal: req.signal } : {}),
        },
        sink,
      );
    } catch (err) {
      throw new KubeApiError(0, `${req.method} ${req.path}: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
    }
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

  /** The pool for the current TLS material; a change retires the old pool once its requests finish. */
  #poolFor(exec: ExecResult | undefined): Pool {
    const e = this.endpoint;
    const key = [materialStamp(e.ca), materialStamp(e.clientCert), materialStamp(e.clientKey), exec?.cert ?? '', exec?.key ?? ''].join('\n');
    if (this.#pool?.key === key) return this.#pool;
    const tls = this.#server.protocol === 'https:' ? tlsOptions(e, exec) : undefined;
    const http = createHttpPool(originOf(this.#server, tls), this.#transport);
    this.#pool?.http.close();
    this.#pool = { key, http };
    return this.#pool;
  }

  async #execCredential(plugin: ExecPlugin): Promise<ExecResult> {
    if (this.#exec && this.#exec.expiresAt > Date.now()) return this.#exec;
    this.#execRunning ??= runExecPlugin(plugin, this.endpoint).finally(() => (this.#execRunning = undefined));
    this.#exec = await this.#execRunning;
    return this.#exec;
  }
}

function queryString(query: KubeRequest['query']): string {
  return query && Object.keys(query).length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
}

/** The KubeApiError of an error answer: its status and the Status it carries. */
function failure(req: KubeRequest, res: Http1Response): KubeApiError {
  const { message, reason } = errorMessage(req, res.status, res.body.toString('utf8'));
  return new KubeApiError(res.status, message, reason);
}

function requestHeaders(req: KubeRequest, body: string | undefined, authorization: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
  }
  if (req.userAgent) headers['User-Agent'] = req.userAgent;
  if (authorization) headers.Authorization = authorization;
  return headers;
}

/** TLS options of a pool: the CA, the client certificate (an exec plugin's first), verification. */
function tlsOptions(e: KubeEndpoint, exec: ExecResult | undefined): NonNullable<Http1Origin['tls']> {
  return {
    ca: readMaterial(e.ca, 'certificate authority'),
    cert: exec?.cert ?? readMaterial(e.clientCert, 'client certificate'),
    key: exec?.key ?? readMaterial(e.clientKey, 'client key'),
    rejectUnauthorized: !e.insecureSkipTlsVerify,
    ...(e.tlsServerName ? { servername: e.tlsServerName } : {}),
  };
}

/** Runs an exec credential plugin as client-go does (KUBERNETES_EXEC_INFO in, an ExecCredential out). */
function runExecPlugin(plugin: ExecPlugin, endpoint: KubeEndpoint): Promise<ExecResult> {
  const info = { apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
  const env = { ...process.env, ...plugin.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  return new Promise<ExecResult>((resolve, reject) => {
    execFile(plugin.command, [...plugin.args], { env, cwd: plugin.cwd, timeout: 60_000, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) {
        reject(
          new KubeApiError(0, `the exec credential plugin ${plugin.command} for ${endpoint.source} failed: ${err.message.split('\n')[0]}`, undefined, {
            cause: err,
          }),
        );
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
