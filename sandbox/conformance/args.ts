// `npm run conformance` arguments. Every bad value is a UsageError naming the flag and what it accepts
// (exit 2, one line). Paths are resolved from where the user ran npm (INIT_CWD), since npm runs the
// script in this repository's root: a CCM author calls it from their own repository.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../lib/usage-error.ts';
import type { CcmChoice } from '../ccm/slot.ts';
import { validCcm, validCloud, validFaults, validInt, validKubeconfig, validKubeletProviderId, type RunFaults } from '../cli/args.ts';

export type { RunFaults };
import type { CloudKind } from '../cloud/registry.ts';
import type { RuntimeName } from '../runtimes/runtime.ts';
import { CAPABILITIES, isCapability, type Capability } from './capabilities.ts';
import { PROFILES, type Profile } from './context.ts';
import { DEFAULT_ADVERSITY_WINDOWS, type AdversityWindows } from './context.ts';

export interface ConformanceArgs {
  readonly cloud: CloudKind;
  readonly ccm: CcmChoice;
  readonly runtime: RuntimeName;
  readonly kubeconfig: string | undefined;
  readonly junit: string | undefined;
  readonly json: string | undefined;
  readonly only: readonly Capability[] | undefined;
  readonly timeoutMs: number;
  /** Fault rules simcloud holds from its start (`--faults FILE`), read and checked here. */
  readonly faults: RunFaults | undefined;
  /** `--upgrade-from`: the command line of the CCM the upgrade check starts from. */
  readonly upgradeFrom: string | undefined;
  /** `--profile`: what Kubernetes requires (default) or also what the cloud's own CCM adds. */
  readonly profile: Profile;
  /** The adversity checks' windows and idle budget (`--fault-window`, `--idle-window` in seconds, `--idle-budget` calls/s). */
  readonly windows: AdversityWindows;
  /** `--kubelet-provider-id`: the kubelets register with the cloud's `<cloud>://<id>`, as on DOKS (SandboxOptions). */
  readonly kubeletProviderId: boolean;
  readonly help: boolean;
}

export const USAGE = `npm run conformance -- [--cloud simcloud|hcloud|linode|digitalocean|phoenixnap|brightbox] [--ccm builtin|upstream|command] [--ccm-command CMD]
                       [--runtime local|kind|existing] [--kubeconfig PATH] [--junit FILE] [--json FILE] [--only CAP,...] [--timeout SECONDS]
                       [--faults FILE (JSON {"faults": [rule, ...]}, each rule as simcloud's POST /_sim/faults takes it)]
                       [--upgrade-from CMD (the previous CCM's command line, for --only upgrade)]
                       [--kubelet-provider-id (the kubelets register with the cloud's <cloud>://<id>, as on clouds whose kubelets are configured so)]
                       [--profile kubernetes|cloud (kubernetes: what Kubernetes and upstream's controllers require; cloud: also the cloud CCM's own labels)]
                       [--fault-window SECONDS (each api-faults fault, default 10)] [--idle-window SECONDS (default 60)] [--idle-budget CALLS_PER_SECOND (per endpoint, default 1)]
capabilities: ${CAPABILITIES.join(', ')} (restart, upgrade, down-delete and neighbours only when --only names them)
exit 0 when every capability attempted passed (not offered counts as passed unless named by --only), 1 otherwise, 2 on a usage error`;

const RUNTIMES = ['local', 'kind', 'existing'] as const;

export function parseConformanceArgs(argv: readonly string[], cwd = process.env.INIT_CWD ?? process.cwd()): ConformanceArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        cloud: { type: 'string', default: 'simcloud' },
        ccm: { type: 'string' },
        'ccm-command': { type: 'string' },
        runtime: { type: 'string', default: 'local' },
        kubeconfig: { type: 'string' },
        junit: { type: 'string' },
        json: { type: 'string' },
        only: { type: 'string' },
        timeout: { type: 'string', default: '60' },
        faults: { type: 'string' },
        'upgrade-from': { type: 'string' },
        profile: { type: 'string', default: 'kubernetes' },
        'fault-window': { type: 'string', default: String(DEFAULT_ADVERSITY_WINDOWS.faultMs / 1000) },
        'idle-window': { type: 'string', default: String(DEFAULT_ADVERSITY_WINDOWS.idleMs / 1000) },
        'idle-budget': { type: 'string', default: String(DEFAULT_ADVERSITY_WINDOWS.idleBudgetPerSecond) },
        'kubelet-provider-id': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const runtime = values.runtime;
  if (!(RUNTIMES as readonly string[]).includes(runtime)) throw new UsageError(`--runtime "${runtime}" is invalid: use ${RUNTIMES.join(', ')}`);
  const ccm = validCcm(values.ccm, values['ccm-command'], values.cloud);
  if (ccm.kind === 'none') throw new UsageError('--ccm none leaves nothing to check: use builtin, upstream or command');
  const inCwd = (p: string | undefined): string | undefined => (p === undefined ? undefined : resolve(cwd, p));
  const only = values.only === undefined ? undefined : validOnly(values.only);
  return {
    cloud: validCloud(values.cloud, ccm, runtime),
    ccm,
    runtime: runtime as RuntimeName,
    kubeconfig: validKubeconfig(inCwd(values.kubeconfig), runtime),
    junit: inCwd(values.junit),
    json: inCwd(values.json),
    only,
    timeoutMs: validInt('--timeout', values.timeout, 5, 3600) * 1000,
    faults: validFaults(inCwd(values.faults)),
    upgradeFrom: validUpgradeFrom(values['upgrade-from'], only),
    profile: validProfile(values.profile),
    windows: {
      faultMs: validInt('--fault-window', values['fault-window'], 1, 600) * 1000,
      idleMs: validInt('--idle-window', values['idle-window'], 1, 3600) * 1000,
      idleBudgetPerSecond: validRate(values['idle-budget']),
    },
    kubeletProviderId: validKubeletProviderId(values['kubelet-provider-id'], runtime),
    help: values.help,
  };
}

function validOnly(value: string): Capability[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = names.find((n) => !isCapability(n));
  if (bad !== undefined || names.length === 0)
    throw new UsageError(`--only "${bad ?? value}" is invalid: use a comma-separated list of ${CAPABILITIES.join(', ')}`);
  return names.filter(isCapability);
}

/** `--upgrade-from` goes with `--only upgrade`, and the one needs the other. */
function validUpgradeFrom(value: string | undefined, only: readonly Capability[] | undefined): string | undefined {
  const command = value?.trim() || undefined;
  const upgrading = only?.includes('upgrade') ?? false;
  if (upgrading && command === undefined) throw new UsageError('--only upgrade needs --upgrade-from "<command line of the previous CCM>"');
  if (command !== undefined && !upgrading) throw new UsageError('--upgrade-from applies to --only upgrade: name upgrade in --only');
  return command;
}

function validProfile(value: string): Profile {
  const profile = PROFILES.find((p) => p === value);
  if (profile === undefined) throw new UsageError(`--profile "${value}" is invalid: use ${PROFILES.join(' or ')}`);
  return profile;
}

function validRate(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > 1000)
    throw new UsageError(`--idle-budget "${value}" is invalid: use calls per second above 0 and at most 1000, e.g. 1 or 0.5`);
  return n;
}
