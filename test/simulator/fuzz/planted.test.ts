// The fuzz suite finds what it should: each fault simcloud once had is planted back (simulator/server/planted.ts,
// a switch only this file turns) and the suite, run as in CI (its seed, its generators), must report it within
// the CI time limit, and report it for what it is. Each run is aimed at the API the fault lives in.
import { afterEach, describe, expect, it } from 'vitest';
import { PlantedFault, plantFaults } from '../../../simulator/server/planted.ts';
import { CI_SEED, CI_TIME_LIMIT_MS, formatReport, runFuzz } from './run.ts';

const CASES: readonly { fault: PlantedFault; api: string; reported: RegExp }[] = [
  { fault: PlantedFault.uriDecode, api: 'v1', reported: /^5xx: \w+ \/v1\/.*%/m },
  { fault: PlantedFault.tagLookup, api: 'phoenixnap', reported: /list filtered by .* shows a resource without that tag/ },
  { fault: PlantedFault.jwtClaimsFirst, api: 'phoenixnap', reported: /^5xx: /m },
  { fault: PlantedFault.cidrSchema, api: 'phoenixnap', reported: /^5xx: POST \/pnap\/networks\/v1\/private-networks[ ?]/m },
  { fault: PlantedFault.ipsSchema, api: 'phoenixnap', reported: /^5xx: POST \/pnap\/bmc\/v1\/servers/m },
  { fault: PlantedFault.writeReadback, api: 'brightbox', reported: /^5xx: POST \/brightbox\/1\.0\/cloud_ips\/[^/]+\/unmap[ ?]/m },
];

describe('the fuzz suite against planted faults', () => {
  afterEach(() => plantFaults([]));

  it.each(CASES)(
    'reports $fault within the CI budget',
    async ({ fault, api, reported }) => {
      plantFaults([fault]);
      const report = await runFuzz({ seed: CI_SEED, timeLimitMs: CI_TIME_LIMIT_MS, apis: [api], noShrink: true });
      console.log(`${fault}: ${formatReport(report).split('\n').slice(0, 3).join(' | ').slice(0, 600)}`);
      expect(report.failure?.message ?? 'nothing reported', formatReport(report)).toMatch(reported);
      expect(report.durationMs).toBeLessThan(CI_TIME_LIMIT_MS + 10_000);
    },
    90_000,
  );
});
