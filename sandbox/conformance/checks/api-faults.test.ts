import { describe, expect, it } from 'vitest';
import { cloudOf } from '../../cloud/registry.ts';
import type { CloudDescriptor } from '../../cloud/descriptor.ts';
import { apiFaults, authorisationFault, heldAnswersDue } from './api-faults.ts';

const names = (cloud: CloudDescriptor): string[] => apiFaults({ cloud }, 10_000).map((f) => f.name);

describe('api-faults: the faults injected on each cloud', () => {
  it('injects 500, 503, 403 and a timeout where 404 alone says a server is gone, plus the secondary call where there is one', () => {
    expect(names(cloudOf('hcloud'))).toEqual(['500 server_error', '503 service_unavailable', '403 forbidden', 'timeout (answers held 10 s)']);
    expect(names(cloudOf('linode')).at(-1)).toMatch(/^503 on the secondary call/);
    expect(authorisationFault({ cloud: cloudOf('hcloud') }).notInjected).toEqual([]);
  });

  it("injects 401 instead of phoenixNAP's 403, which its API answers for a deleted server, and says why", () => {
    const pnap = cloudOf('phoenixnap');
    expect(names(pnap)).toEqual(['500 server_error', '503 service_unavailable', '401 unauthorized', 'timeout (answers held 10 s)']);
    const auth = apiFaults({ cloud: pnap }, 10_000)[2]!;
    expect(auth.rule).toMatchObject({ kind: 'error', status: 401, code: 'unauthorized', match: { method: 'GET', resource_type: 'server' } });
    expect(authorisationFault({ cloud: pnap }).notInjected).toEqual([
      '403 not injected: phoenixNAP answers 403 for a deleted server, k8s-cloud-provider-bmc d84a2c5',
    ]);
  });

  it('injects no authorisation fault where both 403 and 401 say a server is gone, naming each', () => {
    const base = cloudOf('hcloud');
    const cloud: CloudDescriptor = {
      ...base,
      conformance: {
        ...base.conformance,
        goneStatuses: [
          { status: 403, evidence: 'a' },
          { status: 401, evidence: 'b' },
        ],
      },
    };
    expect(names(cloud)).toEqual(['500 server_error', '503 service_unavailable', 'timeout (answers held 10 s)']);
    expect(authorisationFault({ cloud }).notInjected).toEqual(['403 not injected: a', '401 not injected: b']);
  });

  it("records until the timeout fault's held answers are due: its window's end, the hold and a second", () => {
    const [server500, , , timeout] = apiFaults({ cloud: cloudOf('hcloud') }, 10_000);
    expect(
      heldAnswersDue(
        [
          { fault: server500!, to: 5_000 },
          { fault: timeout!, to: 20_000 },
        ],
        10_000,
      ),
    ).toBe(31_000);
    expect(heldAnswersDue([{ fault: server500!, to: 5_000 }], 10_000)).toBe(0);
  });
});
