import { describe, expect, it } from 'vitest';
import { goJsonTime, proxierHealthReply } from './proxier-health.ts';

describe("kube-proxy's health answers", () => {
  it('writes times as Go encodes a UTC time.Time: RFC 3339, fraction without trailing zeros', () => {
    expect(goJsonTime(1_700_000_000_000)).toBe('2023-11-14T22:13:20Z');
    expect(goJsonTime(1_700_000_000_120)).toBe('2023-11-14T22:13:20.12Z');
    expect(goJsonTime(1_700_000_000_007)).toBe('2023-11-14T22:13:20.007Z');
  });

  it('answers /healthz with nodeEligible, /livez without, a silent client as /healthz, and 404 elsewhere', () => {
    const healthz = JSON.parse(proxierHealthReply('/healthz?verbose', 1_700_000_001_000, 1_700_000_000_500).payload) as Record<string, unknown>;
    expect(healthz).toEqual({
      lastUpdated: '2023-11-14T22:13:21Z',
      currentTime: '2023-11-14T22:13:21Z',
      nodeEligible: true,
      healthy: true,
      status: { IPv4: { lastUpdated: '2023-11-14T22:13:20.5Z', healthy: true } },
    });
    expect(Object.keys(JSON.parse(proxierHealthReply('/livez', 0, 0).payload) as object)).not.toContain('nodeEligible');
    expect(proxierHealthReply(null, 0, 0).payload).toContain('"nodeEligible":true');
    expect(proxierHealthReply('/', 0, 0)).toEqual({ status: 404, payload: '404 page not found\n', contentType: 'text/plain; charset=utf-8' });
  });
});
