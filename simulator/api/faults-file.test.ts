import { describe, expect, it } from 'vitest';
import { FaultsFileError, parseFaults, readFaultsFile } from './faults-file.ts';

const LATENCY = { kind: 'latency', match: { method: 'PUT', path: '/v2/load_balancers/*' }, latency_ms: 500 };

describe('faults file', () => {
  it('takes {"faults": [...]} and a bare array alike', () => {
    expect(parseFaults('f.json', JSON.stringify({ faults: [LATENCY] }))).toEqual([LATENCY]);
    expect(parseFaults('f.json', JSON.stringify([LATENCY, { kind: 'rate_limit', limit: 10, window_seconds: 1 }]))).toHaveLength(2);
  });

  it.each([
    ['not JSON', '{faults', 'f.json: not JSON'],
    ['a rule missing its field', JSON.stringify({ faults: [{ kind: 'latency' }] }), 'faults.0.latency_ms'],
    ['a bare array with a bad rule', JSON.stringify([LATENCY, { kind: 'error', status: 200, code: 'server_error' }]), '1.status'],
    ['an unknown top-level key', JSON.stringify({ faults: [], extra: 1 }), 'expected {"faults"'],
    ['a bad label selector', JSON.stringify({ faults: [{ kind: 'stuck_transition', match: { label: 'a in (' } }] }), 'faults.0.match.label'],
  ])('names what is wrong: %s', (_, text, said) => {
    expect(() => parseFaults('f.json', text)).toThrow(FaultsFileError);
    expect(() => parseFaults('f.json', text)).toThrow(said);
  });

  it('says when the file cannot be read', () => {
    expect(() => readFaultsFile('/nonexistent/faults.json')).toThrow('faults file /nonexistent/faults.json: cannot be read (ENOENT)');
  });
});
