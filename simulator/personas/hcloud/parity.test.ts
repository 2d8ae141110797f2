// Drift checks: the parity table names exactly the routes the Hetzner persona serves, and every route declares
// what it answers (its fields are the parity table's rows, and tests check every answer against it).
import { describe, expect, it } from 'vitest';
import { HCLOUD_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('hcloud parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(HCLOUD_ROUTES.map((r) => r.operation).sort());
  });

  it('has a response schema for every route', () => {
    expect(HCLOUD_ROUTES.filter((r) => r.response === undefined).map((r) => r.operation)).toEqual([]);
  });
});
