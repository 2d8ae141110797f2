// The adversity capabilities' windows in CI: long enough for a CCM whose controllers run every second
// (ours and upstream's start with --node-monitor-period=1s) to meet each fault several times, short enough
// to keep the warm CI within its budget. `npm run conformance` defaults to 10 s a fault and a 60 s idle window.
import type { AdversityWindows } from '../../sandbox/conformance/context.ts';

export const CI_ADVERSITY_WINDOWS: AdversityWindows = { faultMs: 4000, idleMs: 15_000, idleBudgetPerSecond: 1 };
