// The choices a sandbox is brought up with (SandboxOptions) and what the CLI checks of them before anything
// else loads: the LB strategies and which CCM goes with which cloud. Kept free of the sandbox's machinery (the Kubernetes
// client, the console, the runtimes) so that `sandbox:up` parses its arguments and hands over to its
// daemon without loading them twice.
import type { AddressPlan } from './cloud/address-plan.ts';
import { cloudOf, type CloudKind } from './cloud/registry.ts';
import type { CcmChoice } from './ccm/slot.ts';
import type { Exec } from './exec.ts';
import type { RunImage } from './kubelet/images/runnable.ts';
import type { RuntimeName } from './runtimes/runtime.ts';

export const LB_STRATEGIES = ['lb', 'ip-block'] as const;
export type LbStrategy = (typeof LB_STRATEGIES)[number];

export interface SandboxOptions {
  readonly name: string;
  readonly runtime: RuntimeName;
  readonly workers: number;
  readonly lbStrategy: LbStrategy;
  readonly stateDir: string;
  readonly kubeconfig?: string;
  readonly exec?: Exec;
  readonly progress?: (message: string) => void;
  /** Extra CCM flags (benchmarks, tests). */
  readonly ccmArgs?: readonly string[];
  /** Extra `simcloud serve` flags. */
  readonly simcloudArgs?: readonly string[];
  /** Loopback pools of this sandbox's own (see cloud/address-plan.ts); default: simcloud's defaults. */
  readonly addressPlan?: AddressPlan;
  /** Wait for every node to be initialised before up() resolves (default true). */
  readonly waitForNodes?: boolean;
  /** Host names the console, simcloud and the CCM accept besides loopback (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
  /** Which CCM fills the slot (sandbox/ccm/slot.ts); default our TypeScript CCM. */
  readonly ccm?: CcmChoice;
  /** The API the cluster is made through and the CCM is given (cloud/registry.ts); default simcloud. */
  readonly cloud?: CloudKind;
  /**
   * A running simcloud to join instead of starting one: a second cluster on the same cloud account (the
   * conformance run's neighbours). It is left running when this sandbox goes down.
   */
  readonly joinSimcloud?: JoinedSimcloud;
  /** Images whose containers the local runtime's kubelets run as local processes (`--run-image`). */
  readonly runImages?: readonly RunImage[];
  /**
   * The local runtime's kubelets register with `--provider-id`, the cloud's `<cloud>://<id>` as its CCM would
   * write it (`--kubelet-provider-id`), as on clouds whose kubelets are configured so (DigitalOcean's DOKS);
   * default: none, left to the CCM, unless the cloud's machines need one (Brightbox).
   */
  readonly kubeletProviderId?: boolean;
}

/** What a sandbox needs of a simcloud it joins: where it is, the account's token, the admin token for its events. */
export interface JoinedSimcloud {
  readonly url: string;
  readonly token: string;
  readonly adminToken: string;
}

export class SandboxOptionsError extends Error {
  override name = 'SandboxOptionsError';
}

/** Our TypeScript CCM speaks simcloud's /v1 only: a persona needs another CCM in the slot. */
export function checkCloudAndCcm(cloud: CloudKind, ccm: CcmChoice): void {
  const unavailable = cloudOf(cloud).upstream.unavailable;
  if (unavailable !== undefined && ccm.kind === 'upstream')
    throw new SandboxOptionsError(`--cloud ${cloud} cannot use --ccm upstream: ${unavailable}; use --ccm command or none`);
  if (!cloudOf(cloud).builtinCcm && ccm.kind === 'builtin') {
    throw new SandboxOptionsError(`--cloud ${cloud} needs --ccm upstream, command or none: the builtin CCM speaks simcloud's /v1 API only`);
  }
}

/** The CCM a cloud gets when none is chosen: ours where it speaks the cloud's API, else the upstream Go CCM's provider. */
export function defaultCcmFor(cloud: CloudKind): CcmChoice {
  const { ownCcm, upstream } = cloudOf(cloud);
  if (!cloudOf(cloud).builtinCcm && upstream.unavailable !== undefined) {
    throw new SandboxOptionsError(
      `--cloud ${cloud} has no default CCM (${upstream.unavailable}): give --ccm command --ccm-command '${ownCcm?.command() ?? '<command>'}' or --ccm none`,
    );
  }
  return cloudOf(cloud).builtinCcm ? { kind: 'builtin' } : { kind: 'upstream' };
}
