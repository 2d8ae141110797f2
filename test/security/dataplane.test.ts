// Slow and hostile clients on the data-plane listeners (simcloud's load-balancer VIPs and the sandbox's
// NodePort stand-ins) do not starve others: while hundreds of connections sit silent, dribble a byte at a
// time or flood a line that never ends, a normal client still gets its whole answer through the VIP and
// straight from the node, and simcloud's API still answers. Everything listens on this run's own
// loopback address plan.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimLoopbackAddressPlan, type AddressPlanLease } from '../../sandbox/cloud/address-plan.ts';
import { createExec } from '../../sandbox/exec.ts';
import { NodePortStandIns } from '../../sandbox/kubelet/nodeport-standins.ts';
import { launchProcess } from '../../sandbox/processes.ts';
import { buildProxyTable } from '../../sandbox/kubelet/proxy-table.ts';
import { endpointSlice, nodePortService } from '../helpers/endpoint-slices.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { startSimcloudInProcess, type InProcessSimcloud } from '../helpers/simcloud.ts';

const NODE_PORT = 30_080;
const LISTEN_PORT = 8080;
const SLOW = 200;
/** Flooding clients each write as fast as loopback takes it: a few are enough to fill a core. */
const FLOOD = 10;

/** One exchange: sends `payload`, resolves with everything read until the server closes. */
function exchange(ip: string, port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: ip, port });
    let data = '';
    s.on('connect', () => s.write(payload));
    s.on('data', (d: Buffer) => (data += d.toString()));
    s.on('end', () => resolve(data));
    s.on('error', reject);
    s.setTimeout(10_000, () => s.destroy(new Error(`no whole answer from ${ip}:${port} within 10 s`)));
  });
}

interface Crowd {
  /** Connections the crowd still holds (it reports each close). */
  open(): number;
  /** MiB a flood has written so far. */
  flooded(): number;
  close(): Promise<void>;
}

// The crowd runs in a process of its own, as a hostile local client would: its writes do not share the
// event loop of the listeners under test.
const CROWD = `
const net = require('node:net');
const [ip, port, count, kind] = process.argv.slice(1);
let open = 0, connected = 0, written = 0;
const chunk = Buffer.alloc(64 * 1024, 'a');
for (let i = 0; i < Number(count); i++) {
  const s = net.connect({ host: ip, port: Number(port) }, () => {
    open++;
    if (++connected === Number(count)) process.stdout.write('ready\\n');
    if (kind === 'dribble') setInterval(() => s.destroyed || s.write('G'), 20);
    if (kind === 'flood') {
      const pump = () => {
        for (;;) {
          if (s.destroyed) return;
          const more = s.write(chunk);
          written += chunk.length;
          if (written % (16 * 1024 * 1024) === 0) process.stdout.write('16MiB\\n');
          if (!more) return;
        }
      };
      s.on('drain', pump);
      pump();
    }
  });
  s.pause();
  s.on('error', () => undefined);
  s.on('close', () => { open--; process.stdout.write('closed\\n'); });
}
// Paused silent sockets keep no event loop alive: the crowd idles until it is killed.
setInterval(() => undefined, 1 << 30);`;

const crowdLogs = mkdtempSync(join(tmpdir(), 'sec-crowd-'));
let crowds = 0;

async function crowd(ip: string, port: number, count: number, kind: 'silent' | 'dribble' | 'flood'): Promise<Crowd> {
  const logFile = join(crowdLogs, `crowd-${crowds++}.log`);
  const out = (): string => readFileSync(logFile, 'utf8');
  const { process: proc } = await launchProcess({
    exec: createExec(),
    name: `crowd-${kind}`,
    command: process.execPath,
    args: ['-e', CROWD, ip, String(port), String(count), kind],
    logFile,
    ready: () => out().includes('ready'),
    readyDescription: `${count} ${kind} connections`,
    timeoutMs: 15_000,
  });
  return {
    open: () => count - (out().match(/closed/g)?.length ?? 0),
    flooded: () => 16 * (out().match(/16MiB/g)?.length ?? 0),
    close: async () => {
      proc.kill('SIGKILL');
      await proc.exited;
    },
  };
}

describe('slow clients on data-plane listeners', () => {
  let lease: AddressPlanLease;
  let sc: InProcessSimcloud;
  let standIns: NodePortStandIns;
  let nodeIp: string;
  let vip: string;

  beforeAll(async () => {
    lease = claimLoopbackAddressPlan();
    const pools = Object.fromEntries(lease.plan.simcloudArgs.map((a) => a.replace(/^--pool=/, '').split('=') as [string, string]));
    sc = await startSimcloudInProcess({ config: { dataplane: true, pools } });
    const { server, action } = await sc.client.servers.create({ name: 'node-1', server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a' });
    await sc.client.waitForAction(action.id);
    nodeIp = server.public_ipv4!;
    standIns = new NodePortStandIns();
    await standIns.apply(
      [{ name: 'node-1', ips: [nodeIp] }],
      buildProxyTable(
        [nodePortService('default', 'web', { nodePort: NODE_PORT })],
        [endpointSlice('default', 'web', [{ pod: 'web-1', node: 'node-1', ip: '10.244.1.2' }])],
      ),
    );
    const hc = { protocol: 'tcp' as const, port: null, path: '/', interval_seconds: 0.2, timeout_seconds: 1, retries: 1 };
    const { load_balancer: lb, action: built } = await sc.client.loadBalancers.create({
      name: 'web',
      services: [{ protocol: 'tcp', listen_port: LISTEN_PORT, destination_port: NODE_PORT, proxy_protocol: 'none', health_check: hc }],
      targets: [{ kind: 'server', server_id: server.id }],
    });
    await sc.client.waitForAction(built.id);
    vip = lb.public_ipv4;
    await waitFor(async () => (await sc.client.loadBalancers.get(lb.id)).resolved_targets[0]?.health[0]?.status === 'healthy', {
      timeoutMs: 15_000,
      description: 'a healthy target',
    });
  });

  afterAll(async () => {
    await standIns?.close();
    await sc?.stop();
    lease?.release();
    rmSync(crowdLogs, { recursive: true, force: true });
  });

  const normalRequest = 'GET /hello HTTP/1.1\r\nhost: web\r\nconnection: close\r\n\r\n';
  const answered = (reply: string): unknown => JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as unknown;

  for (const [kind, count] of [
    ['silent', SLOW],
    ['dribble', SLOW],
    ['flood', FLOOD],
  ] as const) {
    it(`answers a normal client through the VIP and on the node while ${count} ${kind} clients hold connections to both`, async () => {
      const onVip = await crowd(vip, LISTEN_PORT, count / 2, kind);
      const onNode = await crowd(nodeIp, NODE_PORT, count / 2, kind);
      try {
        // A flood must have been taken in bulk first (a listener that buffered it would slow to a crawl).
        if (kind === 'flood')
          await waitFor(() => onVip.flooded() >= 256 && onNode.flooded() >= 256, { timeoutMs: 30_000, description: '256 MiB flooded into each listener' });
        for (const [ip, port] of [
          [vip, LISTEN_PORT],
          [nodeIp, NODE_PORT],
        ] as const) {
          expect(answered(await exchange(ip, port, normalRequest)), `${ip}:${port}`).toMatchObject({ node: 'node-1', service: 'default/web', path: '/hello' });
        }
        expect((await sc.client.servers.list()).servers).toHaveLength(1);
        // The crowd is still there: the answers above did not wait for it to leave.
        expect(onVip.open() + onNode.open()).toBeGreaterThan(0);
      } finally {
        await onVip.close();
        await onNode.close();
      }
    });
  }
});
