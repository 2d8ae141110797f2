// Command-line parsing and validation for ccm-sandbox. Every bad value is a UsageError naming the flag
// and what it accepts (exit code 2, one line).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../lib/usage-error.ts';
import { FaultsFileError, readFaultsFile } from '../../simulator/api/faults-file.ts';
import { AllowedHostError, allowedHostsFrom } from '../../simulator/api/host-check.ts';
import type { FaultRuleInput } from '../../simulator/api/schema/internal.ts';
import { CcmChoiceError, ccmChoiceArgs, ccmChoiceFrom, type CcmChoice } from '../ccm/slot.ts';
import { cloudOf, CLOUDS, DEFAULT_CLOUD, isCloudKind, type CloudKind } from '../cloud/registry.ts';
import { parseRunImage, runImageArg, RunImageError, type RunImage } from '../kubelet/images/runnable.ts';
import { isRuntimeChoice, type RuntimeChoice } from '../runtimes/factory.ts';
import { checkCloudAndCcm, defaultCcmFor, LB_STRATEGIES, SandboxOptionsError, type LbStrategy } from '../options.ts';

export { UsageError };

export const COMMANDS = ['up', 'down', 'status', 'logs', 'reset', 'env', 'daemon'] as const;
export type Command = (typeof COMMANDS)[number];

export interface CliOptions {
  readonly command: Command;
  readonly name: string;
  readonly runtime: RuntimeChoice;
  readonly workers: number;
  readonly lbStrategy: LbStrategy;
  readonly kubeconfig: string | undefined;
  readonly foreground: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly lines: number;
  readonly component: string | undefined;
  /** Host names the console, simcloud and the CCM accept besides loopback. */
  readonly allowedHosts: readonly string[];
  /** The CCM slot: --ccm builtin|upstream|command|none (with --ccm-command for command). */
  readonly ccm: CcmChoice;
  /** --cloud simcloud|hcloud|linode|digitalocean|phoenixnap|brightbox: the API the cluster is made through and the CCM is given. */
  readonly cloud: CloudKind;
  /** --run-image IMAGE[:TAG]=PATH (repeatable): containers of that image run as the local binary (local runtime). */
  readonly runImages: readonly RunImage[];
  /** `--faults FILE`: fault rules simcloud holds from its start (an absolute path, read and checked here). */
  readonly faults: RunFaults | undefined;
  /** `--kubelet-provider-id`: the local runtime's kubelets register with the cloud's `<cloud>://<id>` (SandboxOptions). */
  readonly kubeletProviderId: boolean;
}

/** A fault file and its rules, each as simcloud's `POST /_sim/faults` takes it. */
export interface RunFaults {
  readonly file: string;
  readonly rules: readonly FaultRuleInput[];
}

const NAME = /^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$/;
/** The sandbox `--name` names when none is given. */
export const DEFAULT_NAME = 'ccm-sandbox';

export function parseCli(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string', default: DEFAULT_NAME },
        runtime: { type: 'string', default: 'auto' },
        workers: { type: 'string', default: '2' },
        'lb-strategy': { type: 'string', default: 'lb' },
        kubeconfig: { type: 'string' },
        foreground: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        lines: { type: 'string', default: '40' },
        'allowed-host': { type: 'string', multiple: true },
        ccm: { type: 'string' },
        'ccm-command': { type: 'string' },
        cloud: { type: 'string', default: 'simcloud' },
        'run-image': { type: 'string', multiple: true },
        faults: { type: 'string' },
        'kubelet-provider-id': { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const [command, component] = positionals;
  if (!command || !(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command "${command ?? ''}": use one of up, down, status, logs, reset, env`);
  const ccm = validCcm(values.ccm, values['ccm-command'], values.cloud);
  return {
    command: command as Command,
    name: validName(values.name),
    runtime: validRuntime(values.runtime),
    workers: validInt('--workers', values.workers, 0, 50),
    lbStrategy: validStrategy(values['lb-strategy']),
    kubeconfig: validKubeconfig(values.kubeconfig, values.runtime),
    foreground: values.foreground,
    dryRun: values['dry-run'],
    json: values.json,
    lines: validInt('--lines', values.lines, 1, 100_000),
    component,
    allowedHosts: validAllowedHosts(values['allowed-host']),
    ccm,
    cloud: validCloud(values.cloud, ccm, values.runtime),
    runImages: validRunImages(values['run-image'] ?? [], values.runtime),
    // npm runs scripts from the package root; a relative path means where the user ran npm.
    faults: validFaults(values.faults === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values.faults)),
    kubeletProviderId: validKubeletProviderId(values['kubelet-provider-id'], values.runtime),
  };
}

/** `--kubelet-provider-id` sets the local runtime's virtual kubelets' flag; kind's and Vagrant's kubelets have their own configuration. */
export function validKubeletProviderId(on: boolean, runtime: string): boolean {
  if (on) requireLocalRuntime('--kubelet-provider-id', 'the virtual kubelets take it', runtime);
  return on;
}

/** A flag the local runtime's virtual kubelets act on; `auto` may mean local. */
function requireLocalRuntime(flag: string, why: string, runtime: string): void {
  if (runtime !== 'local' && runtime !== 'auto') throw new UsageError(`${flag} needs --runtime local (${why}), not ${runtime}`);
}

/** The runnable images: each a well-formed reference and an executable file; the local runtime's kubelets run them. */
export function validRunImages(flags: readonly string[], runtime: string): RunImage[] {
  if (flags.length > 0) requireLocalRuntime('--run-image', 'the virtual kubelets run it', runtime);
  try {
    // npm runs scripts from the package root; a relative path means where the user ran npm.
    return flags.map((f) => parseRunImage(f, process.env.INIT_CWD ?? process.cwd()));
  } catch (err) {
    throw err instanceof RunImageError ? new UsageError(err.message) : err;
  }
}

/** `--faults FILE`, read and checked now so a bad file is a usage error, not a failed start. */
export function validFaults(file: string | undefined): RunFaults | undefined {
  if (file === undefined) return undefined;
  try {
    return { file, rules: readFaultsFile(file) };
  } catch (err) {
    throw err instanceof FaultsFileError ? new UsageError(`--faults: ${err.message}`) : err;
  }
}

export function validCloud(value: string, ccm: CcmChoice, runtime: string): CloudKind {
  if (!isCloudKind(value)) throw new UsageError(`--cloud "${value}" is invalid: use ${CLOUDS.join(' or ')}`);
  // A persona's API picks a machine's addresses; containers, VMs and existing nodes have theirs already.
  if (cloudOf(value).machines && runtime !== 'local' && runtime !== 'auto') throw new UsageError(`--cloud ${value} runs on --runtime local, not ${runtime}`);
  try {
    checkCloudAndCcm(value, ccm);
  } catch (err) {
    throw err instanceof SandboxOptionsError ? new UsageError(err.message) : err;
  }
  return value;
}

function validAllowedHosts(flags: string[] | undefined): string[] {
  try {
    return allowedHostsFrom(flags, process.env.CCM_SANDBOX_ALLOWED_HOSTS, '--allowed-host');
  } catch (err) {
    throw err instanceof AllowedHostError ? new UsageError(err.message) : err;
  }
}

/** `--ccm`; without it, our CCM where it speaks the cloud's API, else the upstream Go CCM with the cloud's provider. */
export function validCcm(kind: string | undefined, command: string | undefined, cloud: string): CcmChoice {
  try {
    return ccmChoiceFrom(kind ?? defaultCcmFor(isCloudKind(cloud) ? cloud : DEFAULT_CLOUD).kind, command);
  } catch (err) {
    throw err instanceof CcmChoiceError ? new UsageError(err.message) : err;
  }
}

function validName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`--name "${name}" is invalid: use 1-32 lowercase letters, digits and '-', starting with a letter`);
  return name;
}

export function validRuntime(runtime: string): RuntimeChoice {
  if (!isRuntimeChoice(runtime)) throw new UsageError(`--runtime "${runtime}" is invalid: use auto, local, kind, vagrant or existing`);
  return runtime;
}

export function validInt(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} "${value}" is invalid: use a whole number from ${min} to ${max}`);
  return n;
}

function validStrategy(value: string): LbStrategy {
  if (!(LB_STRATEGIES as readonly string[]).includes(value)) throw new UsageError(`--lb-strategy "${value}" is invalid: use lb or ip-block`);
  return value as LbStrategy;
}

export function validKubeconfig(path: string | undefined, runtime: string): string | undefined {
  if (runtime === 'existing' && !path) throw new UsageError('--runtime existing needs --kubeconfig PATH');
  if (path && !existsSync(path)) throw new UsageError(`--kubeconfig ${path}: no such file`);
  return path;
}

/** The flags that reproduce these options for the daemon process. */
export function daemonArgs(o: CliOptions, runtime: string): string[] {
  return [
    'daemon',
    `--name=${o.name}`,
    `--runtime=${runtime}`,
    `--workers=${o.workers}`,
    `--lb-strategy=${o.lbStrategy}`,
    ...(o.kubeconfig ? [`--kubeconfig=${o.kubeconfig}`] : []),
    ...o.allowedHosts.map((h) => `--allowed-host=${h}`),
    ...ccmChoiceArgs(o.ccm),
    ...(o.cloud === DEFAULT_CLOUD ? [] : [`--cloud=${o.cloud}`]),
    ...o.runImages.map(runImageArg),
    ...(o.faults ? [`--faults=${o.faults.file}`] : []),
    ...(o.kubeletProviderId ? ['--kubelet-provider-id'] : []),
  ];
}
