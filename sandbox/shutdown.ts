// Cleanup on SIGINT/SIGTERM for everything this process started: each owner registers a cleanup and
// unregisters it once it has stopped normally. The first signal runs all cleanups (bounded in time) and
// exits with 128 + signal number; a second signal exits at once. Crashes and kill -9 are the reaper's job.
const cleanups = new Set<() => Promise<void>>();
let installed = false;
let shuttingDown = false;

const SIGNAL_CODES: Record<string, number> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

async function runAll(timeoutMs: number): Promise<void> {
  const all = Promise.allSettled([...cleanups].map((fn) => fn()));
  await Promise.race([all, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
}

function onSignal(signal: NodeJS.Signals): void {
  if (shuttingDown) process.exit(128 + (SIGNAL_CODES[signal] ?? 1));
  shuttingDown = true;
  void runAll(20_000).finally(() => process.exit(128 + (SIGNAL_CODES[signal] ?? 1)));
}

export function registerCleanup(fn: () => Promise<void>): () => void {
  if (!installed) {
    installed = true;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  }
  cleanups.add(fn);
  return () => {
    cleanups.delete(fn);
  };
}
