// The fuzz suite in CI: every route of /v1 and of every persona, a fixed seed, 40 s of generated batches (about
// 2 500 requests on a warm 2-core machine; `npm run fuzz -- --minutes N --seed S` runs longer). Fails with the
// shrunk counterexample on any 5xx, any 4xx outside the API's envelope or naming no field, an unhealthy simcloud,
// a polluted prototype, or an API's list disagreeing with /v1's.
import { describe, expect, it } from 'vitest';
import { FUZZ_APIS } from './apis.ts';
import { CI_SEED, CI_TIME_LIMIT_MS, formatReport, runFuzz } from './run.ts';

describe('the fuzz suite', () => {
  it("answers generated hostile requests on every route of every API without a 5xx, in each API's envelope, keeping one store", async () => {
    const report = await runFuzz({ seed: CI_SEED, timeLimitMs: CI_TIME_LIMIT_MS });
    console.log(formatReport(report));
    expect(report.failure, formatReport(report)).toBeUndefined();
    for (const api of FUZZ_APIS) expect(report.requests[api.name], api.name).toBeGreaterThan(100);
  }, 120_000);

  it('reads every API from the route tables: /v1 and each registered persona, each with its routes', () => {
    expect(FUZZ_APIS.map((a) => a.name)).toEqual(['v1', 'hcloud', 'linode', 'digitalocean', 'phoenixnap', 'brightbox']);
    for (const api of FUZZ_APIS)
      expect(
        api.routes.every((r) => r.path.startsWith(api.prefix)),
        api.name,
      ).toBe(true);
  });
});
