// A throwaway sandbox: its own temporary state directory and loopback address plan, torn down and removed
// by `stop` (once), and by the reaper if the owning process dies first. The conformance run and the e2e
// suites bring theirs up this way, so several run side by side on one machine without sharing a VIP, a
// node address or a state file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimLoopbackAddressPlan } from './cloud/address-plan.ts';
import { reaper } from './reaper-client.ts';
import { Sandbox, type SandboxOptions } from './sandbox.ts';
import { registerCleanup } from './shutdown.ts';

export interface ThrowawaySandbox {
  readonly sandbox: Sandbox;
  /** Stops the sandbox, releases its addresses and removes its state directory; idempotent. */
  readonly stop: () => Promise<void>;
}

/** A sandbox not yet up (its `stop` cleans up whatever `up` got to, e.g. after a failed start). */
export function createThrowawaySandbox(options: Omit<SandboxOptions, 'stateDir' | 'addressPlan'>, prefix = 'ccm-sandbox-'): ThrowawaySandbox {
  const stateDir = mkdtempSync(join(tmpdir(), prefix));
  // If the owning process dies, the reaper removes the directory with the processes.
  reaper().trackDir(stateDir);
  const addresses = claimLoopbackAddressPlan();
  const sandbox = new Sandbox({ ...options, stateDir, addressPlan: addresses.plan });
  // Once only: a second release could free an address plan another sandbox has claimed since.
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await sandbox.down();
      addresses.release();
      rmSync(stateDir, { recursive: true, force: true });
      reaper().untrackDir(stateDir);
    })());
  registerCleanup(stop);
  return { sandbox, stop };
}
