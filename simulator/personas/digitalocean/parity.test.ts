// Drift check: the parity table names exactly the routes the DigitalOcean persona serves.
import { describe, expect, it } from 'vitest';
import { DIGITALOCEAN_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('digitalocean parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(DIGITALOCEAN_ROUTES.map((r) => r.operation).sort());
  });
});
