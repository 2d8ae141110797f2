// Fills the sandbox's CCM slot with the chosen kind (slot.ts) and keeps it filled: the process under the
// supervisor, its identity for the kinds that get one, and the slot's state for state.json.
import { privateDir } from '../state.ts';
import { cloudOf, DEFAULT_CLOUD } from '../cloud/registry.ts';
import type { Clock } from '../../src/kube/clock.ts';
import { createCcmIdentity } from './identity.ts';
import { ccmDir, ccmLogFile, launchBuiltinCcm, launchCommandCcm, launchUpstreamCcm, type CcmContext } from './launch.ts';
import type { CcmChoice, CcmState } from './slot.ts';
import { CcmSupervisor, type LaunchedCcm, type SupervisedCcm } from './supervisor.ts';
import { ensureUpstreamCcmBinary } from './upstream.ts';

export interface CcmSlotOptions extends CcmContext {
  readonly choice: CcmChoice;
  /** The cluster's admin kubeconfig: our CCM's and the upstream CCM's (as today); it creates the others' identity. */
  readonly adminKubeconfig: string;
  /** `--allowed-host` for our CCM. */
  readonly allowedHostArgs: readonly string[];
  readonly progress?: (message: string) => void;
  /** Each change of the slot's state (a restart, an exit). */
  readonly onChange?: (state: CcmState) => void;
  readonly clock?: Clock;
}

export interface CcmSlot {
  readonly state: CcmState;
  /** The CCM's log (`sandbox:logs -- ccm`); none for an empty slot. */
  readonly logFile: string | null;
  stop(): Promise<void>;
}

/** How to start the chosen CCM, and the identity kubeconfig it gets (null: the admin's). */
async function prepare(o: CcmSlotOptions): Promise<{ launch?: () => Promise<LaunchedCcm>; kubeconfig: string | null }> {
  const choice = o.choice;
  if (choice.kind === 'builtin') return { launch: () => launchBuiltinCcm(o, o.adminKubeconfig, o.allowedHostArgs), kubeconfig: null };
  if (choice.kind === 'upstream') {
    const binary = await ensureUpstreamCcmBinary({ exec: o.exec, ...(o.progress ? { onProgress: o.progress } : {}) });
    return { launch: () => launchUpstreamCcm(o, binary, o.adminKubeconfig), kubeconfig: null };
  }
  const identity = await createCcmIdentity(o.adminKubeconfig, privateDir(ccmDir(o.stateDir)), cloudOf(o.cloud ?? DEFAULT_CLOUD).ccmRbacRules ?? []);
  if (choice.kind === 'none') return { kubeconfig: identity.kubeconfig };
  return { launch: () => launchCommandCcm(o, choice.command, identity.kubeconfig), kubeconfig: identity.kubeconfig };
}

export async function startCcmSlot(o: CcmSlotOptions): Promise<CcmSlot> {
  const { launch, kubeconfig } = await prepare(o);
  const base = { kind: o.choice.kind, ...(o.choice.kind === 'command' ? { command: o.choice.command } : {}), kubeconfig };
  const toState = (s: SupervisedCcm): CcmState => ({ ...base, ...s });
  if (!launch) {
    const state = toState({ pid: null, url: null, restarts: 0, lastExit: null });
    return { state, logFile: null, stop: () => Promise.resolve() };
  }
  const supervisor = await CcmSupervisor.start({
    launch,
    ...(o.clock ? { clock: o.clock } : {}),
    onChange: (s) => o.onChange?.(toState(s)),
    log: (m) => o.progress?.(m),
  });
  return {
    get state() {
      return toState(supervisor.state);
    },
    logFile: ccmLogFile(o.stateDir),
    stop: () => supervisor.stop(),
  };
}
