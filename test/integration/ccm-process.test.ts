// The simcloud-ccm process: start-up failures in one line, both log formats, /healthz and /metrics, fatal empty --cluster-cidr,
// and the deploy/ manifests validated by a real kube-apiserver (kubectl apply --dry-run=server).
import { execFile } from 'node:child_process';
import { get } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcmHarness, eventually } from './ccm-harness.ts';

const run = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

describe('simcloud-ccm process', () => {
  const h = new CcmHarness({ prefix: 'ccm-proc', args: ['--controllers=cloud-node'] });

  beforeAll(() => h.setUp());
  afterAll(() => h.cleanup());

  it('fails in one clear line with exit 1 on a bad token', async () => {
    const ccm = await h.spawnCcm([], { SIMCLOUD_TOKEN: 'not-a-token' });
    expect(await ccm.exited).toBe(1);
    const lines = ccm.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^simcloud-ccm: cannot use simcloud at http:\/\/127\.0\.0\.1:\d+: unauthorized/);
  });

  it('logs JSON lines by default and human-readable lines with CCM_LOG_FORMAT=pretty', async () => {
    // pino-pretty is loaded only for the pretty format: this is the start that loads it.
    const pretty = await h.spawnCcm(['--v=4'], { SIMCLOUD_TOKEN: 'not-a-token', CCM_LOG_FORMAT: 'pretty' });
    expect(await pretty.exited).toBe(1);
    expect(pretty.output()).toMatch(/^\[[\d:.]+\] DEBUG \(simcloud-ccm\/\d+\): configuration$/m);
    const json = await h.spawnCcm(['--v=4'], { SIMCLOUD_TOKEN: 'not-a-token' });
    expect(await json.exited).toBe(1);
    expect(json.output()).toMatch(/^\{"level":20,.*"msg":"configuration"\}$/m);
  });

  it('names every bad setting at once and exits 1', async () => {
    const ccm = await h.spawnCcm(['--secure-port=-1', '--node-monitor-period=often'], { SIMCLOUD_LOAD_BALANCER_STRATEGY: 'nope' });
    expect(await ccm.exited).toBe(1);
    expect(ccm.output()).toContain('--secure-port');
    expect(ccm.output()).toContain('--node-monitor-period: must be a duration');
    expect(ccm.output()).toContain('SIMCLOUD_LOAD_BALANCER_STRATEGY: must be one of: lb, ip-block');
  });

  it('treats an empty --cluster-cidr with routes on as fatal', async () => {
    const net = (await h.sim.client.networks.create({ name: `${h.clusterName.slice(0, 40)}-n` })).name;
    const ccm = await h.spawnCcm(['--controllers=*', '--cluster-cidr='], { SIMCLOUD_NETWORK: net });
    expect(await ccm.exited).toBe(1);
    expect(ccm.output()).toContain('--cluster-cidr is required');
  });

  it('serves /healthz with per-controller checks and the leader-election check, and /metrics', async () => {
    const manager = await h.startCcm(['--insecure-http']);
    const base = manager.server.url;
    await eventually('healthz ok', async () => (await fetch(`${base}/healthz`)).status === 200);
    expect(await (await fetch(`${base}/healthz/cloud-node-controller`)).text()).toBe('ok');
    expect((await fetch(`${base}/healthz/leaderElection`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/ccm_cloud_api_calls_total\{operation="servers.list",code="200"\} \d+/);
    const configz = (await (await fetch(`${base}/configz`)).json()) as Record<string, Record<string, unknown>>;
    expect(configz['cloudcontrollermanager.config.k8s.io']).toMatchObject({ clusterName: h.clusterName, token: '<redacted>' });
  });

  it('serves HTTPS with a self-signed certificate by default', async () => {
    const manager = await h.startCcm([`--leader-elect-resource-name=${h.leaseName}-tls`]);
    expect(manager.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { body, subject } = await new Promise<{ body: string; subject: string }>((resolve, reject) => {
      get(`${manager.server.url}/healthz`, { rejectUnauthorized: false }, (res) => {
        const subject = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN);
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ body: data, subject }));
      }).on('error', reject);
    });
    expect(body).toBe('ok');
    expect(subject).toBe('cloud-controller-manager');
  });

  it('exits 0 on SIGTERM, and 1 when it loses the leader lease', async () => {
    const lease = `${h.leaseName}-loss`;
    const quick = [
      `--leader-elect-resource-name=${lease}`,
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=1s',
    ];
    const polite = await h.spawnCcm([`--leader-elect-resource-name=${lease}-term`]);
    await eventually('leading', () => polite.output().includes('started leading'));
    await polite.stop();
    expect(await polite.exited).toBe(0);

    const ccm = await h.spawnCcm(quick);
    await eventually('leading', () => ccm.output().includes('started leading'));
    const current = await h.cluster.coordination.readNamespacedLease({ name: lease, namespace: 'kube-system' });
    await h.cluster.coordination.replaceNamespacedLease({
      name: lease,
      namespace: 'kube-system',
      body: { ...current, spec: { ...current.spec, holderIdentity: 'intruder', leaseDurationSeconds: 60, renewTime: new V1MicroTime() } },
    });
    expect(await ccm.exited).toBe(1);
    expect(ccm.output()).toContain('leaderelection lost');
  });

  it('exits 1 after releasing its lease when a controller crashes', async () => {
    const lease = `${h.leaseName}-crash`;
    const net = (await h.sim.client.networks.create({ name: `${h.clusterName.slice(0, 40)}-c` })).name;
    // Two IPv4 ranges pass flag parsing; the route controller refuses them once leading (upstream: fatal).
    const ccm = await h.spawnCcm(['--controllers=*', '--cluster-cidr=10.244.0.0/16,10.245.0.0/16', `--leader-elect-resource-name=${lease}`], {
      SIMCLOUD_NETWORK: net,
    });
    expect(await ccm.exited).toBe(1);
    expect(ccm.output()).toContain('started leading');
    expect(ccm.output()).toContain('released lease');
    expect(ccm.output()).toMatch(/controller start-up crashed: --cluster-cidr .* must be a dual-stack pair/);
    const after = await h.cluster.coordination.readNamespacedLease({ name: lease, namespace: 'kube-system' });
    expect(after.spec?.holderIdentity ?? '').toBe('');
  });

  it('has deploy manifests the real apiserver accepts (kubectl apply --dry-run=server)', async () => {
    const files = ['rbac.yaml', 'secret.yaml', 'deployment.yaml'].map((f) => ['-f', `${DEPLOY}${f}`]).flat();
    const { stdout } = await run('kubectl', ['--kubeconfig', h.cluster.kubeconfigPath, 'apply', '--dry-run=server', ...files]);
    expect(stdout).toContain('deployment.apps/simcloud-cloud-controller-manager created (server dry run)');
    expect(stdout).toContain('clusterrole.rbac.authorization.k8s.io/system:cloud-controller-manager created (server dry run)');
  });
});
