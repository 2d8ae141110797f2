// Kubernetes API requests made by the CCM, counted by the apiserver itself: the benchmark starts
// kube-apiserver with an audit policy (Metadata level, the admin user every CCM and the virtual kubelets
// use, kubelet Leases left out) and a JSON log, and attributes each request by its User-Agent: ours sends
// `simcloud-ccm/<controller>`, upstream's client-go `upstream-ccm/<version> (<os>/<arch>)
// kubernetes/<commit>/<controller>`. apiserver_request_total has no user label, so the audit log is the
// apiserver's only per-client count.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { countBy } from './calls.ts';

/** The audit policy: who is logged, at which level. */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    resources: [{ group: coordination.k8s.io, resources: [leases] }]
    namespaces: [kube-node-lease]
  - level: Metadata
    users: [ccm-sandbox-admin]
  - level: None
`;

/**
 * kube-apiserver flags writing the audit log (batched, so no request waits on the file). `maxsize=0`
 * turns rotation off: by default the apiserver renames the log at 100 MB and starts a new file, which a
 * long compare (three 1 000-Service bursts per pass) reaches, and a reader following one path then counts
 * nothing.
 */
export function auditArgs(policyFile: string, logFile: string): string[] {
  return [
    `--audit-policy-file=${policyFile}`,
    `--audit-log-path=${logFile}`,
    '--audit-log-format=json',
    '--audit-log-mode=batch',
    '--audit-log-batch-max-wait=1s',
    '--audit-log-maxsize=0',
  ];
}

export interface ApiRequest {
  /** Epoch ms the apiserver received it. */
  readonly at: number;
  /** `ours` or `upstream`. */
  readonly ccm: string;
  /** The controller the User-Agent names (`shared` when none: informers' lists, leader election). */
  readonly controller: string;
  /** `verb resource[/subresource]`, e.g. `patch nodes/status`. */
  readonly operation: string;
}

/** Requests of one window: total, and by controller then operation. */
export interface ApiRequestCounts {
  readonly total: number;
  readonly byController: Record<string, Record<string, number>>;
}

/** A leader-election renewal: every 2 s however much work there is, so left out of per-operation counts. */
export const isLeaseOperation = (operation: string): boolean => / leases$/.test(operation);

/** The audit log is written in batches at most this far behind the requests (`auditArgs`, plus the write). */
export const AUDIT_LAG_MS = 1500;

const OURS = /^simcloud-ccm(?:\/(.+))?$/;
// The binary's file name starts the User-Agent (`upstream-ccm`, or a renamed copy of it).
const UPSTREAM = /^upstream-ccm[\w.-]*\/\S+ \([^)]*\) kubernetes\/[^/]+(?:\/(.+))?$/;

const AuditEvent = z.object({
  stage: z.string(),
  verb: z.string(),
  userAgent: z.string(),
  objectRef: z.object({ resource: z.string().optional(), subresource: z.string().optional() }).optional(),
  requestReceivedTimestamp: z.string(),
});

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** One audit event as a CCM request, or undefined when it is not the CCM's or not a counted stage. */
export function parseAuditLine(line: string): ApiRequest | undefined {
  const parsed = AuditEvent.safeParse(parseJson(line));
  if (!parsed.success) return undefined;
  const ev = parsed.data;
  // A watch is logged when its response starts (and again when it ends); everything else when complete.
  if (ev.stage !== (ev.verb === 'watch' ? 'ResponseStarted' : 'ResponseComplete')) return undefined;
  const ours = OURS.exec(ev.userAgent);
  const match = ours ?? UPSTREAM.exec(ev.userAgent);
  if (!match) return undefined;
  return {
    at: Date.parse(ev.requestReceivedTimestamp),
    ccm: ours ? 'ours' : 'upstream',
    controller: match[1] ?? 'shared',
    operation: operationOf(ev.verb, ev.objectRef),
  };
}

function operationOf(verb: string, ref: { resource?: string | undefined; subresource?: string | undefined } = {}): string {
  return `${verb} ${ref.resource ?? '-'}${ref.subresource ? `/${ref.subresource}` : ''}`;
}

export function countRequests(requests: readonly ApiRequest[]): ApiRequestCounts {
  const byController: Record<string, Record<string, number>> = {};
  for (const [controller, n] of Object.entries(countBy(requests, (r) => r.controller))) {
    if (n)
      byController[controller] = countBy(
        requests.filter((r) => r.controller === controller),
        (r) => r.operation,
      );
  }
  return { total: requests.length, byController };
}

/** Follows the audit log file, keeping the CCM's requests; windows count them by receive time. */
export class ApiAudit {
  readonly #file: string;
  readonly #requests: ApiRequest[] = [];
  #offset = 0;
  #partial = '';

  constructor(file: string) {
    this.#file = file;
  }

  /** Reads what the apiserver has appended since the last read. */
  read(): void {
    let fd: number;
    try {
      fd = openSync(this.#file, 'r');
    } catch {
      return;
    }
    try {
      // A file shorter than what was read is a new one (rotated or replaced): counting on from the old
      // offset would report too few requests without a word, so the run stops instead.
      const size = fstatSync(fd).size;
      if (size < this.#offset)
        throw new Error(`audit log ${this.#file} shrank from ${this.#offset} to ${size} bytes (rotated or replaced): its request counts would be wrong`);
      const buf = Buffer.alloc(1 << 20);
      for (let n = readSync(fd, buf, 0, buf.length, this.#offset); n > 0; n = readSync(fd, buf, 0, buf.length, this.#offset)) {
        this.#offset += n;
        this.#take(buf.toString('utf8', 0, n));
      }
    } finally {
      closeSync(fd);
    }
  }

  #take(text: string): void {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      const r = parseAuditLine(line);
      if (r) this.#requests.push(r);
    }
  }

  /** The CCM's requests received in [from, to). */
  between(from: number, to: number): ApiRequest[] {
    this.read();
    return this.#requests.filter((r) => r.at >= from && r.at < to);
  }

  /** When the CCM's latest request other than a Lease renewal was received (0: none yet). */
  lastWorkAt(): number {
    this.read();
    for (let i = this.#requests.length - 1; i >= 0; i--) {
      const r = this.#requests[i];
      if (r && !isLeaseOperation(r.operation)) return r.at;
    }
    return 0;
  }

  /** Opens a window now; closing it (after the log's batch delay) counts the requests received inside it. */
  window(): () => Promise<ApiRequestCounts> {
    const from = Date.now();
    return async () => {
      const to = Date.now();
      await new Promise((r) => setTimeout(r, AUDIT_LAG_MS));
      return countRequests(this.between(from, to));
    };
  }
}
