// Drift check: the parity table names exactly the routes the Brightbox persona serves, and every CCM call a served one.
import { describe, expect, it } from 'vitest';
import { BRIGHTBOX_ROUTES } from './persona.ts';
import { CCM_CALLS, ENDPOINTS } from './parity.ts';

describe('brightbox parity table', () => {
  it('has one entry per served route and none for a route that is gone', () => {
    expect(Object.keys(ENDPOINTS).sort()).toEqual(BRIGHTBOX_ROUTES.map((r) => r.operation).sort());
  });

  it("serves every call of Brightbox's CCM but the metadata service", () => {
    const served = new Set(BRIGHTBOX_ROUTES.map((r) => r.operation));
    expect(CCM_CALLS.filter(([, , op]) => !op.startsWith('(') && !served.has(op))).toEqual([]);
  });
});
