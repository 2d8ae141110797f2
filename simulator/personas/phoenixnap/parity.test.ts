// Drift check: the parity table names exactly the routes the phoenixNAP persona serves.
import { describe, expect, it } from 'vitest';
import { PHOENIXNAP_ROUTES } from './persona.ts';
import { ENDPOINTS } from './parity.ts';

describe('phoenixnap parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(PHOENIXNAP_ROUTES.map((r) => r.operation).sort());
  });
});
