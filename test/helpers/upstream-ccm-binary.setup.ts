// Global setup of the levels that run the upstream Go CCM: finds or builds its binary into the cache once,
// before any worker starts (with progress lines; minutes on an empty Go build cache), so no test hook
// spends its timeout on a build; workers then find it in the cache. (Not through UPSTREAM_CCM_BINARY: an
// environment variable set here would reach every project's workers, the lookup's own unit tests too.)
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { createExec } from '../../sandbox/exec.ts';

export async function setup(): Promise<void> {
  await ensureUpstreamCcmBinary({ exec: createExec(), onProgress: (m) => console.log(`[upstream ccm] ${m}`) });
}
