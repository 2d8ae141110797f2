// cloud-node and cloud-node-lifecycle controllers against a real control plane and a real simcloud process.
import type { V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallExplainer, MethodSource } from '../../sandbox/console/explain.ts';
import { readyStatus } from '../../sandbox/kubelet/virtual-kubelet.ts';
import { CcmHarness, eventually, isNotFound, uniqueName } from './ccm-harness.ts';

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const taintKeys = (n: V1Node): string[] => (n.spec?.taints ?? []).map((t) => t.key);

describe('simcloud CCM: nodes', () => {
  const h = new CcmHarness({ prefix: 'ccm-nodes', args: ['--controllers=cloud-node,cloud-node-lifecycle'] });

  let metricsUrl = '';
  beforeAll(async () => {
    await h.setUp();
    metricsUrl = `${(await h.startCcm(['--insecure-http'])).server.url}/metrics`;
  });
  /** Periodic passes cloud-node-lifecycle-controller has finished (ccm_controller_syncs_total, any result). */
  const lifecyclePasses = async (): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('ccm_controller_syncs_total{') && l.includes('controller="cloud-node-lifecycle-controller"'));
    return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
  };
  afterAll(() => h.cleanup());

  it('initialises a node from its server: providerID, labels, addresses, taint removed', async () => {
    const name = uniqueName('init');
    const server = await h.createServer(name);
    const started = h.calls.calls.length;
    await h.startKubelet(name);
    const expected = [
      ...(server.private_ipv4 ? [{ type: 'InternalIP', address: server.private_ipv4 }] : []),
      ...(server.public_ipv4 ? [{ type: 'ExternalIP', address: server.public_ipv4 }] : []),
      { type: 'Hostname', address: name },
    ];
    const node = await eventually('node initialised', async () => {
      const n = await h.node(name);
      return taintKeys(n).includes(UNINITIALIZED) || n.status?.addresses?.length !== expected.length ? undefined : n;
    });
    expect(node.spec?.providerID).toBe(`simcloud://${server.id}`);
    expect(node.metadata?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': server.server_type,
      'beta.kubernetes.io/instance-type': server.server_type,
      'topology.kubernetes.io/region': server.region,
      'failure-domain.beta.kubernetes.io/region': server.region,
      'topology.kubernetes.io/zone': server.zone,
      'failure-domain.beta.kubernetes.io/zone': server.zone,
    });
    expect(node.status?.addresses).toEqual(expected);
    const calls = h.calls.byCaller(`cloud-node-controller ${name}`);
    console.log(
      `[figures] cloud calls for one node initialisation: ${calls.length} (${calls.map((c) => `${c.method} ${c.path}`).join(', ')}); all calls since kubelet start: ${h.calls.calls.length - started}`,
    );
    // The node may be initialised from the provider's fresh server list with no call of its own (the cache
    // is the point); whatever the CCM called meanwhile says which cloud-provider method it belongs to, so
    // the console need not guess, and a call made for this node is InstanceMetadata.
    const explainer = new CallExplainer();
    const ccmCalls = h.calls.calls
      .slice(started)
      .map((c) => explainer.explain(c))
      .filter((x) => x.controller !== null);
    expect(ccmCalls.map((x) => x.methodSource)).not.toContain(MethodSource.inferred);
    expect(new Set(calls.map((c) => explainer.explain(c).method))).toEqual(new Set(calls.length > 0 ? ['InstanceMetadata'] : []));
  });

  it('keeps a node tainted with a Warning event when provided-node-ip matches no address', async () => {
    const name = uniqueName('badip');
    await h.createServer(name);
    await h.startKubelet(name, { nodeIP: '192.0.2.77' });
    const events = await eventually('a Warning event', async () => {
      const evs = await h.events('default', name);
      return evs.some((e) => e.type === 'Warning') ? evs : undefined;
    });
    expect(events.find((e) => e.type === 'Warning')?.message).toContain('192.0.2.77');
    expect(taintKeys(await h.node(name))).toContain(UNINITIALIZED);
  });

  it('keeps a node without a server tainted and initialises it once the server appears', async () => {
    const name = uniqueName('late');
    await h.startKubelet(name);
    // A second lookup of the server means the first sync finished (and was requeued) without initialising.
    await eventually('cloud-node-controller to look for the server twice', () => h.calls.byCaller(`cloud-node-controller ${name}`).length >= 2);
    const before = await h.node(name);
    expect(taintKeys(before)).toContain(UNINITIALIZED);
    expect(before.spec?.providerID ?? '').toBe('');
    const server = await h.createServer(name);
    const after = await eventually(
      'late initialisation',
      async () => {
        const n = await h.node(name);
        return taintKeys(n).includes(UNINITIALIZED) ? undefined : n;
      },
      120_000,
    );
    expect(after.spec?.providerID).toBe(`simcloud://${server.id}`);
  });

  it('never overwrites a providerID set by the kubelet', async () => {
    const serverName = uniqueName('pid-srv');
    const server = await h.createServer(serverName);
    const nodeName = uniqueName('pid-node');
    await h.startKubelet(nodeName, { providerID: `simcloud://${server.id}` });
    // Addresses are written after the taint is removed (a separate status call, as upstream): wait for both.
    const node = await eventually('initialised by providerID', async () => {
      const n = await h.node(nodeName);
      const hasCloudHostname = n.status?.addresses?.some((a) => a.type === 'Hostname' && a.address === serverName);
      return taintKeys(n).includes(UNINITIALIZED) || !hasCloudHostname ? undefined : n;
    });
    expect(node.spec?.providerID).toBe(`simcloud://${server.id}`);
    expect(node.status?.addresses).toContainEqual({ type: 'Hostname', address: serverName });
  });

  it('taints a shut-down NotReady node, clears it when on and Ready, deletes a NotReady node whose server is gone, never a Ready one', async () => {
    const name = uniqueName('life');
    const server = await h.createServer(name);
    const kubelet = await h.startKubelet(name);
    await eventually('initialised', async () => !taintKeys(await h.node(name)).includes(UNINITIALIZED));

    await h.sim.client.waitForAction((await h.sim.client.servers.poweroff(server.id)).id);
    kubelet.stop();
    await eventually(
      'shutdown taint',
      async () => {
        const n = await h.node(name);
        return readyStatus(n) !== 'True' && taintKeys(n).includes(SHUTDOWN);
      },
      90_000,
    );

    await h.sim.client.waitForAction((await h.sim.client.servers.poweron(server.id)).id);
    await kubelet.resume();
    await eventually('shutdown taint removed', async () => !taintKeys(await h.node(name)).includes(SHUTDOWN), 60_000);

    const readyName = uniqueName('ready');
    const readyServer = await h.createServer(readyName);
    await h.startKubelet(readyName);
    await eventually('ready node initialised', async () => !taintKeys(await h.node(readyName)).includes(UNINITIALIZED));
    kubelet.stop();
    await h.sim.client.waitForAction((await h.sim.client.servers.delete(readyServer.id)).id);
    await h.sim.client.waitForAction((await h.sim.client.servers.delete(server.id)).id);
    await eventually(
      'node of the deleted server is deleted',
      async () => {
        try {
          await h.node(name);
          return false;
        } catch (err) {
          return isNotFound(err);
        }
      },
      90_000,
    );
    // Two more lifecycle passes: at least one ran whole after the deletion, and left the Ready node alone.
    const passes = await lifecyclePasses();
    await eventually('two more lifecycle passes', async () => (await lifecyclePasses()) >= passes + 2);
    const ready = await h.node(readyName);
    expect(readyStatus(ready)).toBe('True');
    expect(taintKeys(ready)).not.toContain(SHUTDOWN);
  });
});
