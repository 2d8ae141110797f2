import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LowdbStore } from './lowdb-store.ts';
import { migrate } from './migrations.ts';
import { SCHEMA_VERSION } from './state.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A load balancer as a version 3 document stored it: the public interface switch in the Hetzner attributes. */
const v3Lb = (id: string, hcloud?: Record<string, unknown>): Record<string, unknown> => ({
  id,
  project_id: 'prj-00000001',
  name: id,
  services: [],
  targets: [],
  ...(hcloud === undefined ? {} : { dialect_attrs: { hcloud } }),
});

describe('migrations', () => {
  it('v4 moves the public interface switch out of the Hetzner attributes into the load balancer', () => {
    const doc = migrate({
      schema_version: 3,
      seq: 0,
      next_id: 4,
      load_balancers: {
        'lb-00000001': v3Lb('lb-00000001', { load_balancer_type: 'lb11', public_interface: false, dns_ptr: null }),
        'lb-00000002': v3Lb('lb-00000002', { load_balancer_type: 'lb21', dns_ptr: null }),
        'lb-00000003': v3Lb('lb-00000003'),
      },
    });
    expect(doc.schema_version).toBe(SCHEMA_VERSION);
    const lbs = doc.load_balancers;
    expect(lbs['lb-00000001']).toMatchObject({ public_interface: false, dialect_attrs: { hcloud: { load_balancer_type: 'lb11', dns_ptr: null } } });
    expect(lbs['lb-00000001']!.dialect_attrs!.hcloud).not.toHaveProperty('public_interface');
    expect(lbs['lb-00000002']!.public_interface).toBe(true);
    expect(lbs['lb-00000003']!.public_interface).toBe(true);
  });

  it('v5 gives every server with a public IPv4 a /64 and every load balancer an IPv6 address, in id order', () => {
    const srv = (id: string, ip: string | null): Record<string, unknown> => ({
      id,
      project_id: 'prj-00000001',
      name: id,
      public_ipv4: ip,
      private_networks: [],
    });
    const doc = migrate({
      schema_version: 4,
      seq: 0,
      next_id: 6,
      servers: {
        'srv-00000003': srv('srv-00000003', '127.0.64.3'),
        'srv-00000001': srv('srv-00000001', '127.0.64.1'),
        'srv-00000002': srv('srv-00000002', null),
      },
      load_balancers: { 'lb-00000005': { ...v3Lb('lb-00000005'), public_interface: true }, 'lb-00000004': { ...v3Lb('lb-00000004'), public_interface: true } },
    });
    expect(doc.schema_version).toBe(SCHEMA_VERSION);
    expect(Object.fromEntries(Object.values(doc.servers).map((s) => [s.id, s.public_ipv6]))).toEqual({
      'srv-00000001': '2001:db8:1::1',
      'srv-00000002': null,
      'srv-00000003': '2001:db8:1:1::1',
    });
    expect(doc.load_balancers['lb-00000004']!.public_ipv6).toBe('2001:db8:2::1');
    expect(doc.load_balancers['lb-00000005']!.public_ipv6).toBe('2001:db8:2::2');
  });

  it('v6 makes every existing load balancer a proxy', () => {
    const doc = migrate({
      schema_version: 5,
      seq: 0,
      next_id: 2,
      load_balancers: { 'lb-00000001': { ...v3Lb('lb-00000001'), public_interface: true, public_ipv6: '2001:db8:2::1' } },
    });
    expect(doc.schema_version).toBe(SCHEMA_VERSION);
    expect(doc.load_balancers['lb-00000001']!.forwarding).toBe('proxy');
  });

  it('v8 gives a document without one a realm signing key, keeps a valid one and refuses a malformed one', async () => {
    const fresh = migrate({ schema_version: 7, seq: 0, next_id: 1 });
    expect(fresh.signing_key).toMatch(/^[0-9a-f]{64}$/);
    expect(migrate({ schema_version: 7, seq: 0, next_id: 1 }).signing_key).not.toBe(fresh.signing_key);
    expect(migrate({ ...fresh }).signing_key).toBe(fresh.signing_key);
    expect(() => migrate({ ...fresh, signing_key: 'short' })).toThrow(/signing_key must be 64 hex digits/);
    const d = await mkdtemp(join(tmpdir(), 'simcloud-migrate-'));
    dirs.push(d);
    const path = join(d, 'state.json');
    await writeFile(path, JSON.stringify({ schema_version: 7, seq: 0, next_id: 1 }));
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    const key = store.state.signing_key;
    await store.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const reopened = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(reopened.state.signing_key).toBe(key);
    await reopened.close();
  });

  it('apply to records replayed from the journal of an older document too', async () => {
    const d = await mkdtemp(join(tmpdir(), 'simcloud-migrate-'));
    dirs.push(d);
    const path = join(d, 'state.json');
    await writeFile(path, JSON.stringify({ schema_version: 3, seq: 0, next_id: 2, load_balancers: {} }));
    const put = { op: 'put', coll: 'load_balancers', doc: v3Lb('lb-00000001', { load_balancer_type: 'lb11', public_interface: false, dns_ptr: null }) };
    await writeFile(`${path}.wal-00000001`, `${JSON.stringify({ seq: 1, changes: [put] })}\n`);
    const store = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(store.state.load_balancers['lb-00000001']!.public_interface).toBe(false);
    await store.close();
    const reopened = await LowdbStore.open({ location: { kind: 'file', path } });
    expect(reopened.state.schema_version).toBe(SCHEMA_VERSION);
    expect(reopened.state.load_balancers['lb-00000001']!.public_interface).toBe(false);
    await reopened.close();
  });
});
