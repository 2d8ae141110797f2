import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Parity, differs, each, fieldParity, fieldTables, notEmulated, schemaFields } from './parity-fields.ts';

const Lb = z.strictObject({
  id: z.number(),
  public_net: z.strictObject({ ipv4: z.strictObject({ ip: z.string() }), ipv6: z.strictObject({ ip: z.string() }).nullable() }),
  services: z.array(z.strictObject({ protocol: z.string(), health_check: z.strictObject({ port: z.number() }) })).optional(),
  labels: z.record(z.string(), z.string()),
  tags: z.array(z.string()),
});

describe('parity field rows', () => {
  it("list a schema's fields in order, nested objects as one row unless expanded", () => {
    expect(schemaFields(Lb, () => false)).toEqual(['id', 'public_net', 'services', 'labels', 'tags']);
    expect(schemaFields(Lb, (p) => p === 'public_net' || p === 'services[]')).toEqual([
      'id',
      'public_net.ipv4',
      'public_net.ipv6',
      'services[].protocol',
      'services[].health_check',
      'labels',
      'tags',
    ]);
  });

  it('expand exactly the objects a note reaches into, and default to emulated', () => {
    const rows = fieldParity(Lb, {
      'public_net.ipv6': notEmulated('null'),
      'services[].health_check.port': differs('x'),
      ...each(['labels', 'tags'], differs('y')),
    });
    expect(rows.map((r) => r.field)).toEqual([
      'id',
      'public_net.ipv4',
      'public_net.ipv6',
      'services[].protocol',
      'services[].health_check.port',
      'labels',
      'tags',
    ]);
    expect(rows[0]).toEqual({ field: 'id', status: Parity.emulated });
    expect(rows[2]).toEqual({ field: 'public_net.ipv6', status: Parity.none, note: 'null' });
    expect(rows[6]).toEqual({ field: 'tags', status: Parity.difference, note: 'y' });
  });

  it('list the fields of every option of a union of objects, in order of first appearance', () => {
    const Target = z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('server'), server: z.strictObject({ id: z.number() }) }),
      z.strictObject({ type: z.literal('ip'), ip: z.strictObject({ ip: z.string() }), health: z.string() }),
    ]);
    expect(schemaFields(z.strictObject({ targets: z.array(Target) }), (p) => p === 'targets[]')).toEqual([
      'targets[].type',
      'targets[].server',
      'targets[].ip',
      'targets[].health',
    ]);
  });

  it('refuse a note for a field the schema does not have', () => {
    expect(() => fieldParity(Lb, { 'public_net.ipv7': differs('x') })).toThrow(/public_net.ipv7/);
    expect(() => fieldTables({ lb: [Lb, { name: differs('x') }] })).toThrow(/name/);
  });
});
