// The teaching console in a real browser (Debian's chromium via playwright-core) against a real sandbox on
// the local runtime: every view, every action, every guided tour, the empty, error, narrow-screen and
// keyboard cases, and the acceptance flow: a power-off clicked in the console shows, live and without a
// reload, the server off, the Node NotReady and then the shutdown taint, each explained in the timeline.
// Screenshots land in artifacts/screenshots/. The tests share one sandbox and run in order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { SimcloudAdminClient, SimcloudClient } from '../../simulator/api/client/index.ts';
import { startConsoleServer } from '../../sandbox/console/server.ts';
import { handEndpoints } from '../helpers/endpoint-slices.ts';
import { httpGet } from '../helpers/sandbox.ts';
import {
  byId,
  openConsole,
  pageErrors,
  runTourStep,
  screenshot,
  startConsoleHarness,
  timelineSteps,
  waitForStep,
  waitForText,
  type ConsoleHarness,
} from './console-harness.ts';

const SHUTDOWN = 'node-cloudprovider-kubernetes-io-shutdown';

describe('teaching console', () => {
  let h: ConsoleHarness;
  let page: Page;

  beforeAll(async () => {
    h = await startConsoleHarness();
    page = await openConsole(h, h.console.url);
  });

  afterAll(async () => {
    if (page) expect(pageErrors(page)).toEqual([]);
    await h?.close();
  });

  // A failure leaves what the page showed: a screenshot and the status line's text.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page) return;
    const name = `failed-${ctx.task.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 60)}`;
    await screenshot(page, name).catch(() => undefined);
    const status = await byId(page, 'action-result')
      .first()
      .textContent({ timeout: 1000 })
      .catch(() => null);
    console.log(`[failed] ${ctx.task.name}: screenshot ${name}.png; status line: ${status ?? '(none)'}`);
  });

  const workers = async (): Promise<{ id: string; name: string }[]> =>
    (await h.e2e.sandbox.client.servers.listAll())
      .filter((s) => s.name.includes('worker') && s.status === 'running')
      .sort((a, b) => a.name.localeCompare(b.name));

  describe('views', () => {
    it('is also started by the sandbox itself, at the URL in state.json', async () => {
      const url = h.e2e.sandbox.state.consoleUrl ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const res = await fetch(`${url}api/state`);
      const body = await res.text();
      expect(res.status).toBe(200);
      expect(body).not.toContain(h.e2e.sandbox.state.simcloud?.token ?? 'no-token');
      expect(body).not.toContain(h.e2e.sandbox.state.simcloud?.adminToken ?? 'no-token');
    });

    it('shows the cloud and the cluster side by side, linked Node ↔ server and podCIDR ↔ route', async () => {
      await page.locator('[data-testid^="node-browser-"][data-ready="True"]').nth(2).waitFor({ timeout: 30_000 });
      expect(await page.locator('#view-cloud [data-testid^="server-browser-"][data-status]').count()).toBe(3);
      await screenshot(page, 'cloud-and-cluster');
      await byId(page, 'node-browser-worker-1-server-link').click();
      await page.locator('#cloud-server-' + (await workers())[0]!.id + '.flash').waitFor({ timeout: 5000 });
      await byId(page, 'server-browser-worker-1-node-link').click();
      await page.locator('#cluster-node-browser-worker-1.flash').waitFor({ timeout: 5000 });
      await byId(page, 'node-browser-worker-1-route-link').click();
      await page.locator('[data-testid^="route-"].flash').waitFor({ timeout: 5000 });
    });

    it('Cloud view: servers with status, IPs, type and zone; networks with routes; empty LB, group, policy, block and fault lists', async () => {
      await byId(page, 'tab-cloud').click();
      expect(await byId(page, 'view-cluster').isHidden()).toBe(true);
      const row = byId(page, 'server-browser-worker-1');
      await expect(row.textContent()).resolves.toMatch(/running.*sc-\w+.*sim-\w+.*127\.\d+\.\d+\.\d+/s);
      for (const id of ['cloud-lbs-empty', 'cloud-groups-empty', 'cloud-policies-empty', 'cloud-ipblocks-empty', 'cloud-faults-empty'])
        await byId(page, id).waitFor();
      expect(await page.locator('[data-testid^="network-"] tr[data-testid^="route-"]').count()).toBe(3);
      await screenshot(page, 'cloud');
    });

    it('Cluster view: nodes with Ready, taints, providerID, labels, addresses and podCIDR; no LoadBalancer Service yet', async () => {
      await byId(page, 'tab-cluster').click();
      const text = await byId(page, 'node-browser-worker-1').textContent();
      expect(text).toMatch(/Ready/);
      expect(text).toMatch(/simcloud:\/\/srv-/);
      expect(text).toMatch(/zone=sim-/);
      expect(text).toMatch(/InternalIP 127\./);
      expect(text).toMatch(/10\.244\.\d+\.0\/24/);
      await byId(page, 'cluster-services-empty').waitFor();
      await screenshot(page, 'cluster');
    });

    it('Timeline view: the initialisation so far, grouped by Node, each step explained', async () => {
      await byId(page, 'tab-timeline').click();
      const step = await waitForStep(page, 'Node/browser-worker-1', /Synced/);
      expect(step.method).toBe('InstanceMetadata');
      expect(step.explanation).toContain('uninitialized taint');
      await byId(page, 'timeline-filter').fill('ListRoutes');
      expect(await page.locator('[data-testid="timeline-step"]:visible').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="timeline-step"][data-method="InstanceMetadata"]').count()).toBe(0);
      await byId(page, 'timeline-filter').fill('');
      await screenshot(page, 'timeline');
    });

    it('Cluster view: the pods a Deployment runs, on the Node each is bound to', async () => {
      const apps = h.e2e.kubeConfig.makeApiClient(AppsV1Api);
      const labels = { app: 'pods-demo' };
      await apps.createNamespacedDeployment({
        namespace: 'default',
        body: {
          metadata: { name: 'pods-demo', labels },
          spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
        },
      });
      try {
        await byId(page, 'tab-cluster').click();
        const running = page.locator('[data-testid$="-pods"] li').filter({ hasText: /default\/pods-demo-\S+ Ready 10\.\d+\.\d+\.\d+/ });
        await running.nth(1).waitFor({ timeout: 60_000 });
        expect(await running.count()).toBe(2);
        const pods = (await h.e2e.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=pods-demo' })).items;
        for (const p of pods) await byId(page, `node-${p.spec!.nodeName!}-pods`).filter({ hasText: p.metadata!.name! }).waitFor();
        await screenshot(page, 'cluster-pods');
      } finally {
        await apps.deleteNamespacedDeployment({ name: 'pods-demo', namespace: 'default' });
      }
    });

    it("names the CCM in the slot, and shows each CCM call's method as sent by the CCM, not guessed", async () => {
      expect(await byId(page, 'status-ccm').getAttribute('data-state')).toBe('builtin');
      expect(await byId(page, 'timeline-ccm').textContent()).toContain('our TypeScript CCM');
      const sources = await page
        .locator('[data-testid="timeline-step"][data-source="cloud-call"] [data-testid="timeline-method"]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-method-source')));
      expect(sources.length).toBeGreaterThan(0);
      expect(new Set(sources)).toEqual(new Set(['header']));
      expect(await page.locator('[data-testid="timeline-method"].guessed').count()).toBe(0);
    });

    it('Actions and Tours views list their controls', async () => {
      await byId(page, 'tab-actions').click();
      await page.locator('[data-testid="annotation-proxy-protocol"] option', { hasText: 'v1' }).waitFor({ state: 'attached' });
      expect(await page.locator('[data-testid="action-server-select"] option').count()).toBe(3);
      await screenshot(page, 'actions');
      await byId(page, 'tab-tours').click();
      for (const t of ['node-init', 'load-balancer', 'shutdown', 'routes']) await byId(page, `tour-start-${t}`).waitFor();
      await screenshot(page, 'tours');
    });
  });

  describe('console API', () => {
    const post = async (path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await fetch(`${h.console.url}api/actions/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-token': h.console.token },
        body,
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    it('answers every malformed action body with a 400 naming the field, before touching the cloud or the cluster', async () => {
      expect(await post('server', '{"serverId":"srv-1","action":"explode"}')).toMatchObject({
        status: 400,
        json: { error: 'invalid_request', field: 'action' },
      });
      expect(await post('server', '{"serverId":"not an id","action":"reboot"}')).toMatchObject({ status: 400, json: { field: 'serverId' } });
      expect(await post('service', '{"name":"Bad_Name"}')).toMatchObject({ status: 400, json: { field: 'name' } });
      expect(await post('service', '{"name":"ok","port":70000}')).toMatchObject({ status: 400, json: { field: 'port' } });
      expect(await post('service', '{"name":"ok","surprise":1}')).toMatchObject({ status: 400, json: { field: 'surprise' } });
      expect(await post('service/delete', '{}')).toMatchObject({ status: 400, json: { field: 'name' } });
      expect(await post('fault', '{"kind":"meteor"}')).toMatchObject({ status: 400, json: { field: 'kind' } });
      expect(await post('fault', '{bad json')).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
      expect((await h.e2e.core.listNamespacedService({ namespace: 'default' })).items.map((s) => s.metadata?.name)).not.toContain('ok');
    });

    it('streams the state and the timeline on one SSE connection', async () => {
      const ctrl = new AbortController();
      const res = await fetch(`${h.console.url}api/stream`, { signal: ctrl.signal });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const reader = res.body!.getReader();
      let text = '';
      while (!(text.includes('event: state') && text.includes('event: timeline-batch'))) text += new TextDecoder().decode((await reader.read()).value);
      ctrl.abort();
      expect(text).toContain('"cloud"');
      expect(text).not.toContain(h.e2e.sandbox.state.simcloud?.token ?? 'no-token');
    });
  });

  describe('actions', () => {
    it('power off clicked in the console: server off, Node NotReady, then the shutdown taint, each explained in the timeline, without a reload', async () => {
      await byId(page, 'tab-both').click();
      const marker = await page.evaluate(() => {
        (window as unknown as { marker: number }).marker = 42;
        return 42;
      });
      const started = Date.now();
      await byId(page, 'server-browser-worker-1-poweroff').click();
      await waitForText(page, 'server-status-browser-worker-1', 'off', 10_000);
      const offAt = Date.now() - started;
      await waitForText(page, 'node-ready-browser-worker-1', 'NotReady', 40_000);
      const notReadyAt = Date.now() - started;
      await byId(page, `node-browser-worker-1-taint-${SHUTDOWN}`).waitFor({ timeout: 40_000 });
      const taintAt = Date.now() - started;
      expect(offAt).toBeLessThanOrEqual(notReadyAt);
      expect(notReadyAt).toBeLessThanOrEqual(taintAt);
      expect(taintAt).toBeLessThan(40_000);
      await screenshot(page, 'poweroff-cloud-and-cluster');

      await byId(page, 'tab-timeline').click();
      const group = 'Node/browser-worker-1';
      const off = await waitForStep(page, group, /server browser-worker-1: \w+ → off/);
      expect(off.explanation).toMatch(/kubelet goes silent.*NotReady/);
      const notReady = await waitForStep(page, group, /NotReady/);
      expect(notReady.explanation).toMatch(/stopped posting status/);
      // The lifecycle controller's InstanceShutdown may be answered from the provider's fresh server list
      // (src/simcloud/server-cache.ts) without a call of its own; the taint step carries the method then.
      const taint = await waitForStep(page, group, /taint node\.cloudprovider\.kubernetes\.io\/shutdown:NoSchedule added/);
      const shutdown = (await timelineSteps(page, group)).find((s) => s.method === 'InstanceShutdown' && /shut ?down/.test(s.explanation));
      expect(shutdown?.explanation.length).toBeGreaterThan(20);
      expect(taint).toMatchObject({ method: 'InstanceShutdown' });
      expect(taint.explanation).toContain('cloud-node-lifecycle-controller added the shutdown taint');
      const titles = (await timelineSteps(page, group)).map((s) => s.title);
      const index = (re: RegExp): number => titles.findIndex((t) => re.test(t));
      expect(index(/→ off/)).toBeLessThan(index(/shutdown:NoSchedule added/));
      await byId(page, 'timeline-filter').fill('browser-worker-1');
      try {
        // The list re-renders as steps arrive, so scroll from inside the page rather than through a stale handle.
        await page.evaluate(
          (g) => [...document.querySelectorAll(`[data-testid="timeline-step"][data-group="${g}"]`)].pop()?.scrollIntoView({ block: 'end' }),
          group,
        );
        await screenshot(page, 'poweroff-timeline');
      } finally {
        await byId(page, 'timeline-filter').fill('');
      }
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(marker);
    });

    it('power on from the Actions view: Ready again and the shutdown taint lifted', async () => {
      await byId(page, 'tab-actions').click();
      const id = (await h.e2e.sandbox.client.servers.listAll({ name: 'browser-worker-1' }))[0]!.id;
      await byId(page, 'action-server-select').selectOption(id);
      await byId(page, 'action-poweron').click();
      await waitForText(page, 'action-result', /poweron of srv-\w+ started/);
      await byId(page, 'tab-cluster').click();
      await waitForText(page, 'node-ready-browser-worker-1', /^Ready$/, 40_000);
      await byId(page, `node-browser-worker-1-taint-${SHUTDOWN}`).waitFor({ state: 'detached', timeout: 40_000 });
      await waitForStep(page, 'Node/browser-worker-1', /shutdown:NoSchedule removed/);
    });

    it('reboots a server from the Actions view', async () => {
      await byId(page, 'tab-actions').click();
      const id = (await h.e2e.sandbox.client.servers.listAll({ name: 'browser-worker-2' }))[0]!.id;
      await byId(page, 'action-server-select').selectOption(id);
      await byId(page, 'action-reboot').click();
      await waitForText(page, 'action-result', /reboot of srv-\w+ started/);
      await waitForStep(page, 'Node/browser-worker-2', /action reboot_server running/, 30_000);
      await waitForStep(page, 'Node/browser-worker-2', /action reboot_server success/, 30_000);
      await byId(page, 'tab-cloud').click();
      await waitForText(page, 'server-status-browser-worker-2', 'running');
    });

    it('refuses an invalid annotation with a 400 naming the field, then creates an annotated LoadBalancer Service linked to its cloud resources', async () => {
      await byId(page, 'tab-actions').click();
      await byId(page, 'service-name').fill('shop');
      await byId(page, 'annotation-health-check-path').fill('no-slash');
      await byId(page, 'action-create-service').click();
      await waitForText(page, 'action-result', /annotations\.loadbalancer\.simcloud\.dev\/health-check-path: must be an absolute path/);
      expect(await byId(page, 'action-result').getAttribute('data-field')).toBe('annotations.loadbalancer.simcloud.dev/health-check-path');
      await byId(page, 'annotation-health-check-path').fill('/healthz');
      await byId(page, 'annotation-proxy-protocol').selectOption('v1');
      await byId(page, 'annotation-health-check-protocol').selectOption('http');
      await byId(page, 'action-create-service').click();
      await waitForText(page, 'action-result', 'Service default/shop created');
      // Endpoints by hand on both workers: the nodes' kube-proxy stand-in answers only for a Service with one.
      await handEndpoints(h.e2e.kubeConfig, await h.e2e.core.readNamespacedService({ name: 'shop', namespace: 'default' }), [
        'browser-worker-1',
        'browser-worker-2',
      ]);

      await byId(page, 'tab-both').click();
      // The Services table shows the endpoints behind the Service, with the Node of each.
      await waitForText(page, 'service-default-shop-endpoints', /10\.244\.250\.1 on browser-worker-1/, 30_000);
      await byId(page, 'service-default-shop-finalizer').waitFor({ timeout: 30_000 });
      await waitForText(page, 'service-default-shop-ingress', /127\.\d+\.\d+\.\d+/, 30_000);
      const lbLink = byId(page, 'service-default-shop-lb-link');
      await lbLink.waitFor();
      for (const l of ['group', 'policy']) await byId(page, `service-default-shop-${l}-link`).waitFor();
      const vip = (await byId(page, 'service-default-shop-ingress').textContent())!.trim();
      const lb = page.locator('[data-testid^="lb-"][data-status="active"]');
      await lb.waitFor({ timeout: 30_000 });
      expect(await lb.textContent()).toContain(vip);
      expect(await lb.textContent()).toContain('PROXY v1');
      expect(await lb.textContent()).toContain('http /healthz');
      // Traffic through the VIP shows up in the per-target counters.
      await waitForText(page, 'view-cloud', /:80 healthy/, 30_000);
      for (let i = 0; i < 3; i++) await httpGet(vip, 80, '/').catch(() => undefined);
      await lb.filter({ hasText: /[1-9]\d* conn/ }).waitFor({ timeout: 15_000 });
      await lbLink.click();
      await page.locator('[data-testid^="lb-"].flash').waitFor({ timeout: 5000 });
      await lb.locator('[data-testid$="-service-link"]').click();
      await page.locator('#cluster-service-default-shop.flash').waitFor({ timeout: 5000 });
      await lb.scrollIntoViewIfNeeded();
      await screenshot(page, 'load-balancer');
      const steps = await timelineSteps(page, 'Service/default/shop');
      expect(steps.map((s) => s.method)).toEqual(expect.arrayContaining(['EnsureLoadBalancer']));
      await waitForStep(page, 'Service/default/shop', /EnsuredLoadBalancer/);
    });

    it('deletes the Service from the Cluster view: the CCM removes the load balancer, group and policy', async () => {
      await byId(page, 'tab-cluster').click();
      await byId(page, 'service-default-shop-delete').click();
      await byId(page, 'cluster-services-empty').waitFor({ timeout: 60_000 });
      await byId(page, 'tab-cloud').click();
      for (const id of ['cloud-lbs-empty', 'cloud-groups-empty', 'cloud-policies-empty']) await byId(page, id).waitFor({ timeout: 30_000 });
      const step = await waitForStep(page, 'Service/default/shop', /DeletedLoadBalancer/);
      expect(step.method).toBe('EnsureLoadBalancerDeleted');
    });

    it('adds and clears faults: latency, error rate and rate limit', async () => {
      await byId(page, 'tab-actions').click();
      await byId(page, 'fault-kind').selectOption('latency');
      await byId(page, 'fault-latency').fill('50');
      await byId(page, 'action-add-fault').click();
      await waitForText(page, 'action-result', /fault flt-\w+ \(latency\) added/);
      await byId(page, 'fault-kind').selectOption('error');
      await byId(page, 'fault-scope').selectOption('networks');
      await byId(page, 'fault-probability').fill('0.05');
      await byId(page, 'action-add-fault').click();
      await waitForText(page, 'action-result', /\(error\) added/);
      await byId(page, 'fault-kind').selectOption('rate_limit');
      await byId(page, 'fault-scope').selectOption('loadBalancers');
      await byId(page, 'fault-limit').fill('1000');
      await byId(page, 'action-add-fault').click();
      await waitForText(page, 'action-result', /\(rate_limit\) added/);
      const refused = await fetch(`${h.console.url}api/actions/fault`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-token': h.console.token },
        body: JSON.stringify({ kind: 'error', probability: 7 }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_request', field: 'probability' });
      await byId(page, 'tab-cloud').click();
      await page.locator('[data-testid^="cloud-fault-flt-"]').nth(2).waitFor({ timeout: 10_000 });
      expect(await page.locator('[data-testid^="cloud-fault-flt-"]').count()).toBe(3);
      await screenshot(page, 'faults');
      await byId(page, 'tab-actions').click();
      await byId(page, 'action-clear-faults').click();
      await waitForText(page, 'action-result', 'every fault rule cleared');
      await byId(page, 'cloud-faults-empty').waitFor({ state: 'attached' });
    });

    it('adds a worker, which joins initialised, then deletes its server from the Cloud view: the Node is deleted', async () => {
      await byId(page, 'tab-actions').click();
      await byId(page, 'action-add-worker').click();
      await waitForText(page, 'action-result', /worker \S+ added/, 60_000);
      const name = /worker (\S+) added/.exec((await byId(page, 'action-result').textContent())!)![1]!;
      await byId(page, 'tab-both').click();
      await page.locator(`[data-testid="node-${name}"][data-ready="True"]`).waitFor({ timeout: 60_000 });
      await byId(page, `node-${name}-server-link`).waitFor({ timeout: 30_000 });
      await byId(page, `server-${name}-delete`).click();
      await byId(page, `node-${name}`).waitFor({ state: 'detached', timeout: 90_000 });
      const step = await waitForStep(page, `Node/${name}`, /Node \S+ deleted|DeletingNode/);
      expect(step.explanation).toMatch(/InstanceExists|no longer exists/);
    });
  });

  describe('guided tours', () => {
    const startTour = async (id: string): Promise<void> => {
      await byId(page, 'tab-tours').click();
      await byId(page, `tour-start-${id}`).click();
      await byId(page, 'tour-panel').waitFor();
      await byId(page, 'tab-both').click();
    };
    const finish = async (): Promise<void> => {
      await byId(page, 'tour-finish').click();
      await byId(page, 'tour-panel').waitFor({ state: 'hidden' });
    };

    // A failed assertion mid-tour must not leave the next tests without a CCM.
    afterEach(() => {
      h.e2e.sandbox.holdCcm(false);
    });

    it('node initialisation: holds the CCM so the new Node shows the uninitialized taint and its pod Pending, then lets it go', async () => {
      await byId(page, 'tab-tours').click();
      await byId(page, 'tour-start-node-init').click();
      await byId(page, 'tour-panel').waitFor();
      // The tour shows the view it talks about.
      expect(await byId(page, 'tab-cluster').getAttribute('aria-selected')).toBe('true');
      await runTourStep(page, 30_000);
      await page.locator('[data-testid="status-ccm"][data-held="true"]').waitFor();
      await byId(page, 'tour-next').click();
      await runTourStep(page, 90_000);
      // While the CCM is held: the Node carries the taint and its pod waits, both on screen.
      const taint = page.locator('[data-testid$="-taint-node-cloudprovider-kubernetes-io-uninitialized"]');
      const pending = page.locator('[data-testid^="pending-pod-tour-pinned-"]');
      await expect.poll(() => taint.count()).toBe(1);
      // On screen: inside the viewport and not under the tour panel (the element at its centre is itself).
      const onScreen = (l: typeof taint): Promise<boolean> =>
        l.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return hit !== null && (el === hit || el.contains(hit));
        });
      await expect.poll(() => onScreen(taint)).toBe(true);
      await expect.poll(() => onScreen(pending.first())).toBe(true);
      expect(await pending.first().textContent()).toMatch(/Pending.*untolerated taint/s);
      await screenshot(page, 'tour-node-init-held');
      await byId(page, 'tour-next').click();
      expect(await byId(page, 'tour-code').textContent()).toContain('CloudNodeController.syncNode');
      await runTourStep(page, 90_000);
      expect(await taint.count()).toBe(0);
      expect(await page.locator('#view-cloud .tour-done').count()).toBeGreaterThan(0);
      expect(await page.locator('#view-cluster .tour-done').count()).toBeGreaterThan(0);
      await screenshot(page, 'tour-node-init');
      await finish();
      await page.locator('[data-testid="status-ccm"][data-held="false"]').waitFor();
    }, 240_000);

    it('load balancer: pods behind the Service, the cloud resources and the ingress, deleted again', async () => {
      await startTour('load-balancer');
      await runTourStep(page, 60_000);
      expect(await page.locator('[data-testid^="service-default-tour-lb-"][data-testid$="-endpoints"] li').count()).toBe(2);
      await screenshot(page, 'tour-load-balancer');
      await byId(page, 'tour-next').click();
      await runTourStep(page, 60_000);
      await finish();
    });

    it('node shutdown and deletion: off (NotReady, shutdown taint), on (lifted), deleted (Node and route gone)', async () => {
      await startTour('shutdown');
      await runTourStep(page, 90_000);
      await screenshot(page, 'tour-shutdown');
      await byId(page, 'tour-next').click();
      await runTourStep(page, 90_000);
      await byId(page, 'tour-next').click();
      await runTourStep(page, 120_000);
      await finish();
    }, 300_000);

    it('routes: every podCIDR has a route, and a new worker gets its own', async () => {
      await startTour('routes');
      await runTourStep(page, 30_000);
      await byId(page, 'tour-next').click();
      await runTourStep(page, 90_000);
      await screenshot(page, 'tour-routes');
      await finish();
    });
  });

  describe('reset, small screens, keyboard and error states', () => {
    it('reset: clears faults, deletes LoadBalancer Services and powers servers back on', async () => {
      const [victim] = await workers();
      await h.e2e.sandbox.client.servers.poweroff(victim!.id);
      await h.e2e.sandbox.admin.addFault({ kind: 'latency', latency_ms: 10, match: { path: '/v1/networks/**' } });
      await h.e2e.core.createNamespacedService({
        namespace: 'default',
        body: { metadata: { name: 'leftover' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
      });
      await byId(page, 'tab-both').click();
      await byId(page, 'service-default-leftover').waitFor({ timeout: 30_000 });
      await byId(page, 'tab-actions').click();
      await byId(page, 'action-reset').click();
      await waitForText(page, 'action-result', /reset: faults cleared, 1 LoadBalancer Service\(s\) deleted, 1 server\(s\) powered on/, 30_000);
      await byId(page, 'tab-both').click();
      await byId(page, 'cluster-services-empty').waitFor({ timeout: 60_000 });
      await waitForText(page, `server-status-${victim!.name}`, 'running', 30_000);
      await byId(page, 'cloud-faults-empty').waitFor();
    });

    it('is readable at 390x844: no sideways scrolling of the page, the tables scroll inside their panels', async () => {
      const phone = await openConsole(h, h.console.url, { width: 390, height: 844 });
      await phone.locator('[data-testid^="node-browser-"]').first().waitFor();
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(392);
      await screenshot(phone, 'mobile-cloud-and-cluster');
      await byId(phone, 'tab-timeline').click();
      await screenshot(phone, 'mobile-timeline');
      expect(pageErrors(phone)).toEqual([]);
      await phone.close();
    });

    it('works from the keyboard: arrow keys move between tabs, focus is visible, Enter presses buttons', async () => {
      await byId(page, 'tab-actions').click();
      await byId(page, 'tab-both').focus(); // focused and selected tabs differ: the arrow moves from the focused one
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tab-cloud');
      expect(await byId(page, 'tab-cloud').getAttribute('aria-selected')).toBe('true');
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      expect(outline).not.toBe('none');
      await page.keyboard.press('End');
      expect(await byId(page, 'tab-tours').getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await byId(page, 'tour-panel').waitFor();
      await byId(page, 'tour-close').press('Enter');
      await byId(page, 'tour-panel').waitFor({ state: 'hidden' });
    });

    it('says so when simcloud and the cluster are unreachable', async () => {
      const dead = { endpoint: 'http://127.0.0.1:9', token: 'x', retry: { maxRetries: 0 }, timeoutMs: 500 };
      const broken = await startConsoleServer({
        client: new SimcloudClient(dead),
        admin: new SimcloudAdminClient(dead),
        subscribe: () => () => undefined,
        cluster: undefined,
        options: { name: 'broken', runtime: 'local', lbStrategy: 'lb' },
        addWorker: () => Promise.reject(new Error('no runtime')),
      });
      try {
        const p = await openConsole(h, broken.url);
        await waitForText(p, 'cloud-error', 'simcloud is unreachable');
        await waitForText(p, 'cluster-error', 'The cluster is unreachable');
        await byId(p, 'cloud-unknown').waitFor();
        await byId(p, 'cluster-unknown').waitFor();
        await byId(p, 'status-cloud').and(p.locator('[data-state="unreachable"]')).waitFor();
        await screenshot(p, 'error-states');
        await byId(p, 'tab-actions').click();
        await byId(p, 'action-add-worker').click();
        await waitForText(p, 'action-result', 'Add a worker failed: no runtime');
        await p.close();
      } finally {
        await broken.close();
      }
    });
  });
});
