// Drift check: the parity table names exactly the routes the Linode persona serves.
import { describe, expect, it } from 'vitest';
import { LINODE_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('linode parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(LINODE_ROUTES.map((r) => r.operation).sort());
  });
});
