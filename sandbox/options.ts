// The choices a sandbox is brought up with that the CLI checks before anything else loads: the LB
// strategies and which CCM goes with which cloud. Kept free of the sandbox's machinery (the Kubernetes
// client, the console, the runtimes) so that `sandbox:up` parses its arguments and hands over to its
// daemon without loading them twice.
import { cloudOf, type CloudKind } from './cloud/registry.ts';
import type { CcmChoice } from './ccm/slot.ts';

export const LB_STRATEGIES = ['lb', 'ip-block'] as const;
export type LbStrategy = (typeof LB_STRATEGIES)[number];

export class SandboxOptionsError extends Error {
  override name = 'SandboxOptionsError';
}

/** Our TypeScript CCM speaks simcloud's /v1 only: a persona needs another CCM in the slot. */
export function checkCloudAndCcm(cloud: CloudKind, ccm: CcmChoice): void {
  const unavailable = cloudOf(cloud).upstream.unavailable;
  if (unavailable !== undefined && ccm.kind === 'upstream') throw new SandboxOptionsError(`--cloud ${cloud} cannot use --ccm upstream: ${unavailable}; use --ccm command or none`);
  if (!cloudOf(cloud).builtinCcm && ccm.kind === 'builtin') {
    throw new SandboxOptionsError(`--cloud ${cloud} needs --ccm upstream, command or none: the builtin CCM speaks simcloud's /v1 API only`);
  }
}

/** The CCM a cloud gets when none is chosen: ours where it speaks the cloud's API, else the upstream Go CCM's provider. */
export function defaultCcmFor(cloud: CloudKind): CcmChoice {
  const { ownCcm, upstream } = cloudOf(cloud);
  if (!cloudOf(cloud).builtinCcm && upstream.unavailable !== undefined) {
    throw new SandboxOptionsError(`--cloud ${cloud} has no default CCM (${upstream.unavailable}): give --ccm command --ccm-command '${ownCcm?.command() ?? '<command>'}' or --ccm none`);
  }
  return cloudOf(cloud).builtinCcm ? { kind: 'builtin' } : { kind: 'upstream' };
}
