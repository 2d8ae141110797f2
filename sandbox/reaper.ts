// A watchdog process, one per parent, that stops whatever the parent started if the parent dies without
// cleaning up (crash, kill -9, a test worker torn down). The parent holds the write end of this
// process's stdin; the kernel closes it when the parent dies, however it dies, so EOF means "clean up".
// Protocol, one command per line: `+pid N`, `-pid N`, `+dir PATH`, `-dir PATH`.
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

const pids = new Set<number>();
const dirs = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalAll(signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      pids.delete(pid);
    }
  }
}

async function cleanUp(): Promise<void> {
  signalAll('SIGTERM');
  const deadline = Date.now() + 5000;
  while ([...pids].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  signalAll('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

// The terminal's Ctrl-C goes to the parent's process group, not here; ignore stray signals so the
// cleanup still runs when the parent is interrupted.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [op, ...rest] = line.split(' ');
  const value = rest.join(' ');
  if (op === '+pid') pids.add(Number(value));
  else if (op === '-pid') pids.delete(Number(value));
  else if (op === '+dir') dirs.add(value);
  else if (op === '-dir') dirs.delete(value);
});
lines.on('close', () => {
  void cleanUp().finally(() => process.exit(0));
});
