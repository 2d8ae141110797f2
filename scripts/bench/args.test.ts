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
    expect(parseBenchArgs(['S1', '--cpu-prof', '/tmp/prof'], now)).toMatchObject({ cpuProfDir: '/tmp/prof' });
  });

  it('refuses a verbosity that is not a small integer, naming the flag', () => {
    for (const bad of ['x', '2.5', '11'])
      expect(() => parseBenchArgs(['--ccm-v', bad], now)).toThrow(new UsageError(`--ccm-v must be an integer from 0 to 10, got "${bad}"`));
  });

  it('turns a flag node:util cannot parse into a usage error', () => {
    expect(() => parseBenchArgs(['--nodse', '5'], now)).toThrow(UsageError);
    expect(() => parseBenchArgs(['--ccm-v', '-1'], now)).toThrow(UsageError);
  });

  it('runs the upstream Go CCM with --ccm upstream, and names the result file after it', () => {
    expect(parseBenchArgs(['S2', '--ccm', 'upstream', '--nodes', '50'], now)).toMatchObject({
      ccm: 'upstream',
      compare: false,
      out: 'bench-results/bench-upstream-tuned-50-2026-11-24T10-00-00-000Z.json',
    });
    expect(parseBenchArgs([], now).ccm).toBe('builtin');
    expect(() => parseBenchArgs(['--ccm', 'go'], now)).toThrow(new UsageError('--ccm must be builtin, deployed, upstream, got "go"'));
    expect(parseBenchArgs(['S12', '--ccm', 'deployed', '--profile', 'parity'], now)).toMatchObject({
      ccm: 'deployed',
      out: 'bench-results/bench-deployed-parity-1000-2026-11-24T10-00-00-000Z.json',
    });
  });

  it('--compare runs S1 S2 S3 S5 S12 (or a subset) and refuses --ccm, --profile and other scenarios', () => {
    expect(parseBenchArgs(['--compare', '--nodes', '100'], now)).toMatchObject({
      compare: true,
      scenarios: ['S1', 'S2', 'S3', 'S5', 'S12'],
      out: 'bench-results/bench-compare-100-2026-11-24T10-00-00-000Z.json',
    });
    expect(parseBenchArgs(['--compare', 'S2', 'S12'], now).scenarios).toEqual(['S2', 'S12']);
    expect(() => parseBenchArgs(['--compare', '--ccm', 'upstream'], now)).toThrow(new UsageError('--compare runs both CCMs: drop --ccm'));
    expect(() => parseBenchArgs(['--compare', '--profile', 'tuned'], now)).toThrow(/drop --profile/);
    expect(() => parseBenchArgs(['--compare', 'S4'], now)).toThrow(new UsageError('--compare runs S1 S2 S3 S5 S12 only, not S4'));
  });

  it('--compare runs its parity passes once and ours tuned by default; --rounds N and --no-tuned change that', () => {
    expect(parseBenchArgs(['--compare'], now)).toMatchObject({ rounds: 1, tuned: true });
    expect(parseBenchArgs(['--compare', '--rounds', '3', '--no-tuned'], now)).toMatchObject({ rounds: 3, tuned: false });
    expect(() => parseBenchArgs(['--compare', '--rounds', '0'], now)).toThrow(new UsageError('--rounds must be a positive number, got "0"'));
  });
});
