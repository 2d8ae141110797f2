/**
 * simcloud API benchmark: 10 000 servers and 1 000 load balancers written straight into a state file,
 * a real `simcloud serve` process on it (data plane off: this measures the API), then autocannon at
 * 16 connections: GET one server, GET a page of servers, GET one load balancer (selector targets
 * resolved), and PATCH server labels (each a durable, journaled write). Prints req/s and p99 and
 * writes them to `bench-results/simcloud-<time>.json` (and `simcloud-latest.json`).
 *
 *   node scripts/bench/simcloud.ts [--seconds 10] [--connections 16]
 */
import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { intToIp, parseCidr } from '../../lib/ip.ts';
import { createExec } from '../../sandbox/exec.ts';
import { startSimcloudProcess } from '../../sandbox/processes.ts';
import { nthV6 } from '../../simulator/server/ipam.ts';
import { IPV6_RANGES, SERVER_IPV6_PREFIX, emptyState, type LoadBalancerRec, type ServerRec, type StateDoc } from '../../simulator/server/store/state.ts';

const TOKEN = 'bench-project-token-0123456789';
const ADMIN = 'bench-admin-token-0123456789';
const CREATED = '2026-01-01T00:00:00.000Z';

export interface SimcloudBenchOptions {
  servers?: number;
  loadBalancers?: number;
  connections?: number;
  seconds?: number;
  outDir?: string;
  log?: (line: string) => void;
}

export interface Measurement {
  name: string;
  method: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  target: { minRequestsPerSecond: number; maxP99Ms: number };
  pass: boolean;
}

export interface SimcloudBenchResult {
  scenario: 'simcloud';
  date: string;
  servers: number;
  loadBalancers: number;
  connections: number;
  seconds: number;
  measurements: Measurement[];
  file: string;
}

const serverId = (i: number): string => `srv-${String(i + 1).padStart(8, '0')}`;
const lbId = (i: number): string => `lb-${String(i + 1).padStart(8, '0')}`;

/** A state document with `servers` running servers and `lbs` active LBs targeting them by label. */
export function benchState(servers: number, lbs: number): StateDoc {
  const doc = emptyState();
  doc.projects['prj-bench'] = { id: 'prj-bench', name: 'bench', created: CREATED };
  doc.tokens['tok-bench'] = { id: 'tok-bench', project_id: 'prj-bench', name: 'bench', secret: TOKEN, created: CREATED };
  const pub = parseCidr(doc.pools.server_public).base;
  for (let i = 0; i < servers; i++) {
    const s: ServerRec = {
      id: serverId(i),
      project_id: 'prj-bench',
      name: `node-${i}`,
      status: 'running',
      server_type: 'sc-small',
      image: 'ubuntu-24.04',
      zone: 'sim-1a',
      region: 'sim-1',
      labels: { app: `app-${i % 100}`, pool: 'bench' },
      public_ipv4: intToIp(pub + 1 + i),
      private_ipv4: null,
      private_networks: [],
      public_ipv6: nthV6(IPV6_RANGES.server, SERVER_IPV6_PREFIX, i),
      locked: false,
      created: CREATED,
    };
    doc.servers[s.id] = s;
  }
  const vip = parseCidr(doc.pools.lb_vip).base;
  for (let i = 0; i < lbs; i++) {
    const lb: LoadBalancerRec = {
      id: lbId(i),
      project_id: 'prj-bench',
      name: `lb-${i}`,
      labels: { app: `app-${i % 100}` },
      location: 'sim-1',
      zone: null,
      status: 'active',
      algorithm: 'round_robin',
      session_affinity: 'none',
      targets: [{ kind: 'label_selector', label_selector: `app=app-${i % 100}` }],
      services: [
        {
          protocol: 'tcp',
          listen_port: 80,
          destination_port: 30080,
          proxy_protocol: 'none',
          health_check: { protocol: 'tcp', port: null, path: '/', interval_seconds: 15, timeout_seconds: 10, retries: 3 },
        },
      ],
      public_ipv4: intToIp(vip + 1 + i),
      public_ipv6: nthV6(IPV6_RANGES.load_balancer, 128, i)!,
      ip_block_id: null,
      network_id: null,
      private_ipv4: null,
      source_ranges: [],
      public_interface: true,
      forwarding: 'proxy',
      locked: false,
      created: CREATED,
    };
    doc.load_balancers[lb.id] = lb;
  }
  doc.next_id = servers + lbs + 1;
  return doc;
}

/** `simcloud serve` on the seeded state file, data plane off, through the sandbox's launcher (log beside the file). */
async function startServer(dir: string, dataPath: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const sim = await startSimcloudProcess({
    exec: createExec(),
    stateDir: dir,
    dataPath,
    token: TOKEN,
    adminToken: ADMIN,
    extraArgs: ['--quiet', '--no-dataplane'],
  });
  return { url: sim.url, stop: () => sim.process.stop() };
}

interface Load {
  name: string;
  method: 'GET' | 'PATCH';
  path: () => string;
  body?: () => string;
  target: Measurement['target'];
}

function loads(servers: number, lbs: number): Load[] {
  const pages = Math.ceil(servers / 50);
  const reads = { minRequestsPerSecond: 5000, maxP99Ms: 10 };
  return [
    { name: 'GET /v1/servers/{id}', method: 'GET', path: () => `/v1/servers/${serverId(randomInt(servers))}`, target: reads },
    { name: 'GET /v1/servers?per_page=50&page=N', method: 'GET', path: () => `/v1/servers?per_page=50&page=${1 + randomInt(pages)}`, target: reads },
    { name: 'GET /v1/load_balancers/{id}', method: 'GET', path: () => `/v1/load_balancers/${lbId(randomInt(lbs))}`, target: reads },
    {
      name: 'PATCH /v1/servers/{id} (labels)',
      method: 'PATCH',
      path: () => `/v1/servers/${serverId(randomInt(servers))}`,
      body: () => JSON.stringify({ labels: { pool: 'bench', rev: String(randomInt(1_000_000)) } }),
      target: { minRequestsPerSecond: 1000, maxP99Ms: 25 },
    },
  ];
}

async function measure(url: string, load: Load, connections: number, seconds: number): Promise<Measurement> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    requests: [
      {
        method: load.method,
        setupRequest: (req) => ({ ...req, path: load.path(), ...(load.body ? { body: load.body() } : {}) }),
      },
    ],
  });
  const rps = Math.round(result.requests.average);
  const p99 = result.latency.p99;
  return {
    name: load.name,
    method: load.method,
    requestsPerSecond: rps,
    p50Ms: result.latency.p50,
    p99Ms: p99,
    errors: result.errors,
    non2xx: result.non2xx,
    target: load.target,
    pass: rps >= load.target.minRequestsPerSecond && p99 <= load.target.maxP99Ms && result.non2xx === 0 && result.errors === 0,
  };
}

const line = (m: Measurement): string =>
  `${m.pass ? 'PASS' : 'MISS'}  ${m.name.padEnd(38)} ${String(m.requestsPerSecond).padStart(7)} req/s  ` +
  `p50 ${m.p50Ms} ms  p99 ${m.p99Ms} ms  (target >= ${m.target.minRequestsPerSecond} req/s, p99 <= ${m.target.maxP99Ms} ms)`;

/** Seeds a state file, runs every load against a fresh `simcloud serve` on it, and stops it. */
async function runLoads(opts: Required<Pick<SimcloudBenchOptions, 'servers' | 'loadBalancers' | 'connections' | 'seconds' | 'log'>>): Promise<Measurement[]> {
  const dir = await mkdtemp(join(tmpdir(), 'simcloud-bench-'));
  const dataPath = join(dir, 'state.json');
  await writeFile(dataPath, JSON.stringify(benchState(opts.servers, opts.loadBalancers)));
  const measurements: Measurement[] = [];
  let server: { url: string; stop: () => Promise<void> } | undefined;
  try {
    server = await startServer(dir, dataPath);
    for (const load of loads(opts.servers, opts.loadBalancers)) {
      await measure(server.url, load, opts.connections, 1); // warm-up
      const m = await measure(server.url, load, opts.connections, opts.seconds);
      measurements.push(m);
      opts.log(line(m));
    }
  } finally {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return measurements;
}

export async function runSimcloudBench(opts: SimcloudBenchOptions = {}): Promise<SimcloudBenchResult> {
  const o = {
    servers: opts.servers ?? 10_000,
    loadBalancers: opts.loadBalancers ?? 1_000,
    connections: opts.connections ?? 16,
    seconds: opts.seconds ?? 10,
    log: opts.log ?? ((l: string) => void process.stdout.write(l + '\n')),
  };
  const measurements = await runLoads(o);
  const outDir = opts.outDir ?? 'bench-results';
  await mkdir(outDir, { recursive: true });
  const date = new Date().toISOString();
  const file = join(outDir, `simcloud-${date.replace(/[:.]/g, '-')}.json`);
  const result: SimcloudBenchResult = {
    scenario: 'simcloud',
    date,
    servers: o.servers,
    loadBalancers: o.loadBalancers,
    connections: o.connections,
    seconds: o.seconds,
    measurements,
    file,
  };
  await writeFile(file, JSON.stringify(result, null, 2) + '\n');
  await writeFile(join(outDir, 'simcloud-latest.json'), JSON.stringify(result, null, 2) + '\n');
  o.log(`written to ${file}`);
  return result;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string' }, connections: { type: 'string' }, servers: { type: 'string' }, lbs: { type: 'string' } },
  });
  const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
  runSimcloudBench({ seconds: num(values.seconds), connections: num(values.connections), servers: num(values.servers), loadBalancers: num(values.lbs) })
    .then((r) => void (process.exitCode = r.measurements.every((m) => m.pass) ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
