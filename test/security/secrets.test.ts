// Secrets stay with their owner through a whole sandbox run: a sandbox up on the local runtime, a Node
// initialised, a LoadBalancer Service carrying traffic, a ServiceAccount token used against the
// apiserver, the console page served, then down (which collects every log into artifacts/). Afterwards
// every file under the state directory is read: files are owner-only, and no token or key value (simcloud
// project and admin tokens, the console token, the ServiceAccount token, client and CA keys) appears in
// any file except the few whose job is to hold it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { waitFor } from '../../sandbox/wait.ts';
import { httpGet, startE2eSandbox, waitForIngress, type E2eSandbox } from '../helpers/sandbox.ts';
import { raw } from './support.ts';

/** Files whose job is to hold a secret (they must be 0600): the only places a secret may be. */
const SECRET_STORES = [
  /^state\.json$/,
  /^intercept\/[\w.-]*key\.pem$/,
  /(^|\/)[\w-]*kubeconfig$/,
  /^control-plane\/pki\//,
  /^control-plane\/etcd\//,
  /^simcloud\/db\.json/,
];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return walk(path);
    return e.isFile() ? [path] : [];
  });
}

interface KubeconfigDoc {
  users: { user: { 'client-key-data'?: string } }[];
}

/** The PEM body of a key, and a slice of it long enough to be unmistakable in a log. */
function keyFingerprints(pemOrBase64: string): string[] {
  const pem = pemOrBase64.includes('-----BEGIN') ? pemOrBase64 : Buffer.from(pemOrBase64, 'base64').toString('utf8');
  const body = pem
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----'))
    .join('');
  return [pemOrBase64.slice(0, 60), body.slice(0, 48), body.slice(-48)].filter((s) => s.length >= 40);
}

/** The three requests a new user found served by a running sandbox's console; returns their statuses. */
async function whyRequests(consoleUrl: string, serverId: string): Promise<number[]> {
  const state = await raw(`${consoleUrl}api/state`, { host: 'attacker.example' });
  const poweroff = await raw(`${consoleUrl}api/actions/server`, {
    method: 'POST',
    headers: { origin: 'http://attacker.example', 'content-type': 'application/json' },
    body: JSON.stringify({ serverId, action: 'poweroff' }),
  });
  const reset = await raw(`${consoleUrl}api/actions/reset`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
  return [state.status, poweroff.status, reset.status];
}

describe('secrets of a whole sandbox run', () => {
  let e: E2eSandbox;
  let stateDir: string;
  const secrets = new Map<string, string>();
  let whyAnswers: number[] = [];
  let serversAfterWhy: string[] = [];
  let lbServiceAfterWhy: string | undefined;

  beforeAll(async () => {
    e = await startE2eSandbox({ name: 'security', workers: 1 });
    stateDir = e.sandbox.options.stateDir;
    const s = e.sandbox.state;
    secrets.set('simcloud project token', s.simcloud!.token);
    secrets.set('simcloud admin token', s.simcloud!.adminToken);
    secrets.set('console token', s.consoleToken!);
    // A real workload behind the Service: the nodes answer only for Services with a ready endpoint, and the
    // pod runner's logs are scanned with the rest.
    const x = { app: 'x' };
    await e.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'x', labels: x },
        spec: { replicas: 1, selector: { matchLabels: x }, template: { metadata: { labels: x }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      },
    });
    await e.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'leak-check' }, spec: { type: 'LoadBalancer', selector: x, ports: [{ port: 80, targetPort: 8080 }] } },
    });
    const vip = await waitForIngress(e.core, 'default', 'leak-check');
    await waitFor(async () => (await httpGet(vip, 80, '/').catch(() => undefined))?.status === 200, {
      timeoutMs: 60_000,
      description: 'traffic through the VIP to the pod',
    });
    await e.core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'leak-check' } } });
    const tr = await e.core.createNamespacedServiceAccountToken({
      name: 'leak-check',
      namespace: 'default',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const saToken = tr.status!.token!;
    secrets.set('service-account token', saToken);
    // The token is used, so every component that might log a request sees it.
    const cluster = e.kubeConfig.getCurrentCluster()!;
    const asSa = new KubeConfig();
    asSa.loadFromOptions({
      clusters: [{ ...cluster, name: 'c' }],
      users: [{ name: 'sa', token: saToken }],
      contexts: [{ name: 'sa', cluster: 'c', user: 'sa' }],
      currentContext: 'sa',
    });
    // Authenticated, not authorised: the apiserver read the token and said 403.
    await expect(asSa.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'default' })).rejects.toMatchObject({ code: 403 });
    const page = await fetch(s.consoleUrl!);
    expect(await page.text()).toContain(s.consoleToken);
    whyAnswers = await whyRequests(s.consoleUrl!, (await e.sandbox.client.servers.listAll())[0]!.id);
    serversAfterWhy = (await e.sandbox.client.servers.listAll()).map((x) => `${x.name}:${x.status}`);
    lbServiceAfterWhy = (await e.core.readNamespacedService({ name: 'leak-check', namespace: 'default' })).status?.loadBalancer?.ingress?.[0]?.ip;
    const kc = load(readFileSync(e.sandbox.cluster!.kubeconfigPath, 'utf8')) as KubeconfigDoc;
    for (const f of keyFingerprints(kc.users[0]!.user['client-key-data']!)) secrets.set(`admin client key (${f.slice(0, 8)}…)`, f);
    for (const name of ['ca.key', 'sa.key', 'apiserver.key', 'etcd.key', 'etcd-client.key']) {
      for (const f of keyFingerprints(readFileSync(join(stateDir, 'control-plane', 'pki', name), 'utf8'))) secrets.set(`${name} (${f.slice(0, 8)}…)`, f);
    }
    // simcloud's realm signing key (the personas' access tokens), kept in its state file only.
    secrets.set(
      'realm signing key',
      z.object({ signing_key: z.string().min(64) }).parse(JSON.parse(readFileSync(join(stateDir, 'simcloud', 'db.json'), 'utf8'))).signing_key,
    );
    await e.sandbox.down();
  }, 300_000);

  afterAll(async () => {
    await e?.stop();
  });

  it("refuses the three requests from the issue on the sandbox's own console: every server running, the LB Service kept", () => {
    expect(whyAnswers).toEqual([403, 403, 401]);
    expect(serversAfterWhy.length).toBeGreaterThan(1);
    expect(serversAfterWhy.every((x) => x.endsWith(':running'))).toBe(true);
    expect(lbServiceAfterWhy).toMatch(/^127\./); // a reset would have deleted the LoadBalancer Service
  });

  it('collected logs of every component (so the scan below has something to scan)', () => {
    const files = walk(stateDir).map((f) => relative(stateDir, f));
    for (const log of ['logs/simcloud.log', 'logs/ccm.log', 'artifacts/logs/simcloud.log']) expect(files).toContain(log);
    expect(files.some((f) => f.startsWith('artifacts/cluster/'))).toBe(true);
  });

  it('keeps every file owner-only (0600 or stricter) in a 0700 state directory', () => {
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    for (const sub of ['simcloud', 'logs']) expect(statSync(join(stateDir, sub)).mode & 0o077, sub).toBe(0);
    const open = walk(stateDir)
      .filter((f) => (statSync(f).mode & 0o077) !== 0)
      .map((f) => `${relative(stateDir, f)} ${(statSync(f).mode & 0o777).toString(8)}`);
    expect(open).toEqual([]);
  });

  it('writes no token or key value into any log or artifact', () => {
    expect(secrets.size).toBeGreaterThanOrEqual(12);
    const leaks: string[] = [];
    for (const file of walk(stateDir)) {
      const rel = relative(stateDir, file);
      if (SECRET_STORES.some((re) => re.test(rel))) continue;
      const text = readFileSync(file, 'latin1');
      for (const [what, value] of secrets) if (text.includes(value)) leaks.push(`${what} in ${rel}`);
    }
    expect(leaks).toEqual([]);
  });

  it('puts the secret stores themselves at 0600', () => {
    const stores = walk(stateDir)
      .map((f) => relative(stateDir, f))
      .filter((rel) => SECRET_STORES.some((re) => re.test(rel)));
    expect(stores).toEqual(expect.arrayContaining(['state.json', 'kubeconfig', 'simcloud/db.json']));
    for (const rel of stores) expect(statSync(join(stateDir, rel)).mode & 0o777, rel).toBe(0o600);
  });
});
