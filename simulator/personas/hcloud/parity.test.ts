// Drift check: the parity table names exactly the routes the Hetzner persona serves.
import { describe, expect, it } from 'vitest';
import { HCLOUD_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('hcloud parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(HCLOUD_ROUTES.map((r) => r.operation).sort());
  });
});
