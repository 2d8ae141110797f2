// The sandbox's CCM slot: which cloud-controller-manager a sandbox runs, and what state.json records of it.
//   builtin   our TypeScript CCM (src/main.ts);
//   upstream  the Go CCM on upstream k8s.io/cloud-provider (go/cmd/upstream-ccm);
//   command   any CCM, as a shell command line, run with an identity of its own and supervised;
//   none      nothing: the slot is left for a CCM run by hand (a terminal, a debugger).
import { z } from 'zod';

export const CCM_KINDS = ['builtin', 'upstream', 'command', 'none'] as const;
export type CcmKind = (typeof CCM_KINDS)[number];

export type CcmChoice = { kind: 'builtin' } | { kind: 'upstream' } | { kind: 'command'; command: string } | { kind: 'none' };

export const DEFAULT_CCM: CcmChoice = { kind: 'builtin' };

/**
 * The kinds whose CCM may start as soon as the cluster's API serves admin clients (ControlPlane's
 * onApiReady), before RBAC's bootstrap is done: ours, with the admin kubeconfig (system:masters, never put
 * to RBAC). The upstream CCM waits for /healthz, which includes that bootstrap, for 10 s and then exits; a
 * command CCM's identity of its own needs the bootstrap roles (discovery): both start with the whole cluster.
 */
export const EARLY_CCM_KINDS: ReadonlySet<CcmKind> = new Set(['builtin'] as const);

export class CcmChoiceError extends Error {
  override name = 'CcmChoiceError';
}

export function isCcmKind(value: string): value is CcmKind {
  return (CCM_KINDS as readonly string[]).includes(value);
}

/** The choice from `--ccm` and `--ccm-command`; every inconsistent pair is one line saying what to fix. */
export function ccmChoiceFrom(kind: string, command: string | undefined): CcmChoice {
  if (!isCcmKind(kind)) throw new CcmChoiceError(`--ccm "${kind}" is invalid: use ${CCM_KINDS.join(', ')}`);
  if (kind === 'command') {
    if (command === undefined || command.trim() === '') throw new CcmChoiceError('--ccm command needs --ccm-command "<command line>"');
    return { kind, command };
  }
  if (command !== undefined) throw new CcmChoiceError(`--ccm-command applies to --ccm command only (got --ccm ${kind})`);
  return { kind };
}

/** A command line as one display line (continuation backslashes and newlines folded into spaces). */
export function commandLine(command: string): string {
  return command.replace(/\s*\\?\n\s*/g, ' ').trim();
}

/** The flags that reproduce a choice (for the daemon's command line). */
export function ccmChoiceArgs(choice: CcmChoice): string[] {
  return [`--ccm=${choice.kind}`, ...(choice.kind === 'command' ? [`--ccm-command=${choice.command}`] : [])];
}

export const CcmExit = z.object({ code: z.number().int().nullable(), signal: z.string().nullable(), at: z.string() });
export type CcmExit = z.infer<typeof CcmExit>;

/** state.json's `ccm`: the slot's kind and, while a CCM runs, where and as which process. */
export const CcmState = z.object({
  kind: z.enum(CCM_KINDS),
  url: z.string().nullable(),
  pid: z.number().int().nullable(),
  command: z.string().optional(),
  /** How often the supervisor restarted the CCM after it exited. */
  restarts: z.number().int().default(0),
  lastExit: CcmExit.nullable().default(null),
  /** The kubeconfig of the CCM's own identity (command and none). */
  kubeconfig: z.string().nullable().default(null),
});
export type CcmState = z.infer<typeof CcmState>;

/** state.json written before the slot existed: `{ url, pid }` of our CCM. */
const LegacyCcmState = z.object({ url: z.string(), pid: z.number().int() }).strict();

export const CcmStateField = z.union([
  CcmState,
  LegacyCcmState.transform((old): CcmState => ({ kind: 'builtin', ...old, restarts: 0, lastExit: null, kubeconfig: null })),
]);
