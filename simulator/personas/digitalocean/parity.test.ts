// Drift checks: the parity table names exactly the routes the DigitalOcean persona serves, and every route
// declares what it answers (its fields are the parity table's rows, and tests check every answer against it).
import { describe, expect, it } from 'vitest';
import { DIGITALOCEAN_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('digitalocean parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(DIGITALOCEAN_ROUTES.map((r) => r.operation).sort());
  });

  it('has a response schema for every route', () => {
    expect(DIGITALOCEAN_ROUTES.filter((r) => r.response === undefined).map((r) => r.operation)).toEqual([]);
  });
});
