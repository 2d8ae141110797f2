import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/usage-error.ts';
import { parseBenchArgs } from './args.ts';

const now = new Date('2026-11-24T10:00:00Z');

describe('bench arguments', () => {
  it('defaults to every scenario at 1000 nodes, the CCM at -v 2 and no kept logs', () => {
    const o = parseBenchArgs([], now);
    expect(o).toMatchObject({ nodes: 1000, profile: 'tuned', runs: 3, heavyRuns: 1, ccmVerbosity: 2, smoke: false });
    expect(o.logsDir).toBeUndefined();
    expect(o.out).toBe('bench-results/bench-tuned-1000-2026-11-24T10-00-00-000Z.json');
  });

  it('keeps the logs where asked and passes the CCM verbosity on', () => {
    expect(parseBenchArgs(['S6', '--logs', '/tmp/l', '--ccm-v', '4'], now)).toMatchObject({ scenarios: ['S6'], logsDir: '/tmp/l', ccmVerbosity: 4 });
  });

  it('refuses a verbosity that is not a small integer, naming the flag', () => {
    for (const bad of ['x', '2.5', '11']) expect(() => parseBenchArgs(['--ccm-v', bad], now)).toThrow(new UsageError(`--ccm-v must be an integer from 0 to 10, got "${bad}"`));
  });

  it('turns a flag node:util cannot parse into a usage error', () => {
    expect(() => parseBenchArgs(['--nodse', '5'], now)).toThrow(UsageError);
    expect(() => parseBenchArgs(['--ccm-v', '-1'], now)).toThrow(UsageError);
  });
});
