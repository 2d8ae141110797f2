import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/usage-error.ts';
import { parseConformanceArgs } from './args.ts';

describe('npm run conformance arguments', () => {
  it('defaults to our CCM on simcloud, the local runtime, 60 s a condition and what Kubernetes requires', () => {
    expect(parseConformanceArgs([], '/here')).toMatchObject({
      cloud: 'simcloud',
      ccm: { kind: 'builtin' },
      runtime: 'local',
      timeoutMs: 60_000,
      only: undefined,
      junit: undefined,
      profile: 'kubernetes',
    });
  });

  it("takes --profile cloud to check the cloud CCM's own labels too, and refuses any other profile", () => {
    expect(parseConformanceArgs(['--profile', 'cloud'], '/here').profile).toBe('cloud');
    expect(() => parseConformanceArgs(['--profile', 'hetzner'], '/here')).toThrow('--profile "hetzner" is invalid: use kubernetes or cloud');
  });

  it("runs the upstream Go CCM's provider for a persona without --ccm, and takes report paths from where npm was run", () => {
    const a = parseConformanceArgs(
      ['--cloud', 'hcloud', '--junit', 'out/c.xml', '--json', '/abs/c.json', '--only', 'lb-basic, routes', '--timeout', '20'],
      '/author/repo',
    );
    expect(a).toMatchObject({
      cloud: 'hcloud',
      ccm: { kind: 'upstream' },
      junit: '/author/repo/out/c.xml',
      json: '/abs/c.json',
      only: ['lb-basic', 'routes'],
      timeoutMs: 20_000,
    });
  });

  it('takes --kubelet-provider-id on the local runtime only, off by default', () => {
    expect(parseConformanceArgs([], '/here').kubeletProviderId).toBe(false);
    expect(parseConformanceArgs(['--kubelet-provider-id'], '/here').kubeletProviderId).toBe(true);
    expect(() => parseConformanceArgs(['--kubelet-provider-id', '--runtime', 'kind'], '/here')).toThrow(
      '--kubelet-provider-id needs --runtime local (the virtual kubelets take it), not kind',
    );
  });

  it('takes the previous CCM of an upgrade as a command line', () => {
    expect(parseConformanceArgs(['--only', 'upgrade,restart', '--upgrade-from', ' old-ccm --v=2 '], '/here')).toMatchObject({
      only: ['upgrade', 'restart'],
      upgradeFrom: 'old-ccm --v=2',
    });
  });

  const dir = mkdtempSync(join(tmpdir(), 'conformance-args-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads --faults from where npm was run and keeps its rules for the report', () => {
    writeFileSync(
      join(dir, 'slow-lb.json'),
      JSON.stringify({ faults: [{ kind: 'latency', match: { method: 'PUT', path: '/v2/load_balancers/*' }, latency_ms: 500 }] }),
    );
    expect(parseConformanceArgs(['--faults', 'slow-lb.json'], dir).faults).toEqual({
      file: join(dir, 'slow-lb.json'),
      rules: [{ kind: 'latency', match: { method: 'PUT', path: '/v2/load_balancers/*' }, latency_ms: 500 }],
    });
  });

  it.each([
    [['--faults', 'absent.json'], /--faults: faults file \/here\/absent\.json: cannot be read \(ENOENT\)/],
    [['--ccm', 'none'], /--ccm none leaves nothing to check/],
    [['--ccm', 'command'], /--ccm command needs --ccm-command/],
    [['--cloud', 'hcloud', '--ccm', 'builtin'], /--cloud hcloud needs --ccm upstream, command or none/],
    [['--cloud', 'aws'], /--cloud "aws" is invalid/],
    [['--runtime', 'vagrant'], /--runtime "vagrant" is invalid: use local, kind, existing/],
    [['--runtime', 'existing'], /--runtime existing needs --kubeconfig PATH/],
    [['--only', 'lb-basic,dns'], /--only "dns" is invalid: use a comma-separated list of node-init, /],
    [['--only', ','], /--only "," is invalid/],
    [['--timeout', '2'], /--timeout "2" is invalid: use a whole number from 5 to 3600/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--only', 'restart,upgrade'], /--only upgrade needs --upgrade-from "<command line of the previous CCM>"/],
    [['--upgrade-from', 'old-ccm --v=2'], /--upgrade-from applies to --only upgrade/],
  ])('refuses %j with one line saying what to fix', (argv, message) => {
    expect(() => parseConformanceArgs(argv, '/here')).toThrow(UsageError);
    expect(() => parseConformanceArgs(argv, '/here')).toThrow(message);
  });

  it('takes the adversity windows in seconds and the idle budget in calls per second, with one line for a bad value', () => {
    expect(parseConformanceArgs([], '/here').windows).toEqual({ faultMs: 10_000, idleMs: 60_000, idleBudgetPerSecond: 1 });
    expect(parseConformanceArgs(['--fault-window', '3', '--idle-window', '15', '--idle-budget', '0.5'], '/here').windows).toEqual({
      faultMs: 3000,
      idleMs: 15_000,
      idleBudgetPerSecond: 0.5,
    });
    expect(() => parseConformanceArgs(['--idle-budget', '0'], '/here')).toThrow(/--idle-budget "0" is invalid: use calls per second above 0/);
    expect(() => parseConformanceArgs(['--idle-window', '1m'], '/here')).toThrow(/--idle-window "1m" is invalid: use a whole number from 1 to 3600/);
  });
});
