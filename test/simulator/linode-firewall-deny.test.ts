// Linode firewall deny lists (inbound_policy ACCEPT with DROP rules, as the Linode CCM builds from a denyList
// ACL) over simcloud's allow-only firewall policies: the DROP rules read back as sent, the NodeBalancer's VIP
// refuses the denied sources on real traffic and serves everyone else, an updated list takes effect and a
// detached firewall opens the VIP.
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../sandbox/wait.ts';
import { linodeCaller, linodeSimcloud } from './linode-support.ts';
import { serverBody, tcpAsk, tcpBackend, unique } from './support.ts';

const { sim, stops } = linodeSimcloud();
const linode = linodeCaller(sim);

const denyList = (ipv4: string[], port: number) => ({
  inbound: [{ action: 'DROP', label: 'deny', protocol: 'TCP', ports: String(port), addresses: { ipv4 } }],
  inbound_policy: 'ACCEPT',
  outbound_policy: 'ACCEPT',
});

type Rules = { inbound: { action: string; addresses: { ipv4: string[] } }[]; inbound_policy: string };

describe('Linode firewall deny lists', () => {
  it('refuses the denied sources on the VIP, serves the rest, follows an updated list, and opens when detached', async () => {
    const { server, action } = await sim().client.servers.create(serverBody());
    await sim().client.waitForAction(action.id);
    const port = randomInt(20_000, 30_000);
    const b = await tcpBackend(server.public_ipv4!, port, server.name);
    stops.push(b.stop);
    const listen = randomInt(30_000, 40_000);
    const nb = (
      await linode<{ id: number; ipv4: string }>('POST', '/nodebalancers', {
        region: 'sim-1',
        label: unique('nbdeny'),
        configs: [{ port: listen, protocol: 'tcp', check: 'connection', nodes: [{ address: `${server.public_ipv4}:${port}`, label: 'backend' }] }],
      })
    ).body;
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === server.name, { timeoutMs: 15_000, description: 'the VIP serving before any firewall' });

    // The test client connects from 127.0.0.1: denying it closes the VIP to it.
    const fw = await linode<{ id: number; rules: Rules }>('POST', '/networking/firewalls', {
      label: unique('fwdeny'),
      rules: denyList(['8.8.8.8/32', '127.0.0.1'], listen),
      devices: { nodebalancers: [nb.id] },
    });
    expect(fw.status, JSON.stringify(fw.body)).toBe(200);
    expect(fw.body.rules).toMatchObject({ inbound_policy: 'ACCEPT', inbound: [{ action: 'DROP', addresses: { ipv4: ['8.8.8.8/32', '127.0.0.1/32'] } }] });
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === '', { timeoutMs: 10_000, description: 'the VIP refusing the denied 127.0.0.1' });

    // A list that no longer names 127.0.0.1 serves it again; the rules read back updated.
    const put = await linode<Rules>('PUT', `/networking/firewalls/${fw.body.id}/rules`, denyList(['8.8.8.8/32', '7.7.7.7/32'], listen));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const read = await linode<{ data: { rules: Rules }[] }>('GET', `/nodebalancers/${nb.id}/firewalls`);
    expect(read.body.data[0]!.rules.inbound.flatMap((r) => r.addresses.ipv4)).toEqual(['8.8.8.8/32', '7.7.7.7/32']);
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === server.name, { timeoutMs: 10_000, description: 'the VIP serving 127.0.0.1 again' });

    // Denied again, then the firewall detached from the NodeBalancer (the CCM removing its ACL): open.
    expect((await linode('PUT', `/networking/firewalls/${fw.body.id}/rules`, denyList(['127.0.0.0/8'], listen))).status).toBe(200);
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === '', { timeoutMs: 10_000, description: 'the VIP refusing 127.0.0.0/8' });
    expect((await linode('DELETE', `/networking/firewalls/${fw.body.id}/devices/${nb.id}`)).status).toBe(200);
    expect((await linode<{ data: unknown[] }>('GET', `/nodebalancers/${nb.id}/firewalls`)).body.data).toEqual([]);
    await waitFor(async () => (await tcpAsk(nb.ipv4, listen)) === server.name, { timeoutMs: 10_000, description: 'the VIP open without its firewall' });
  });

  it('refuses an ACCEPT rule after a DROP rule, naming it', async () => {
    const rules = {
      inbound: [
        { action: 'DROP', label: 'deny', protocol: 'TCP', addresses: { ipv4: ['8.8.8.8/32'] } },
        { action: 'ACCEPT', label: 'allow', protocol: 'TCP', addresses: { ipv4: ['9.9.9.9/32'] } },
      ],
      inbound_policy: 'ACCEPT',
      outbound_policy: 'ACCEPT',
    };
    const r = await linode<{ errors: { field: string }[] }>('POST', '/networking/firewalls', { label: unique('fwbad'), rules });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e) => e.field)).toEqual(['rules.inbound.1.action']);
  });
});
