// A cross-process lock made of a directory (mkdir is atomic). It records the holder's pid so a lock
// left behind by a dead process is taken over instead of waited on forever.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function holderAlive(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tryAcquire(lockDir: string): boolean {
  try {
    mkdirSync(lockDir);
    writeFileSync(join(lockDir, 'pid'), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  }
}

/**
 * One attempt, without waiting: takes the lock when it is free or its holder is dead. The caller releases
 * it with releaseDirLock (or it goes stale when the process dies).
 */
export function tryDirLock(lockDir: string): boolean {
  mkdirSync(dirname(lockDir), { recursive: true });
  if (tryAcquire(lockDir)) return true;
  // Only a lock whose pid file names a dead process is stale: a fresh one may not have its pid file yet.
  if (!existsSync(join(lockDir, 'pid')) || holderAlive(lockDir)) return false;
  rmSync(lockDir, { recursive: true, force: true });
  return tryAcquire(lockDir);
}

export function releaseDirLock(lockDir: string): void {
  rmSync(lockDir, { recursive: true, force: true });
}

export async function withDirLock<T>(lockDir: string, fn: () => Promise<T>, pollMs = 1000): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  while (!tryAcquire(lockDir)) {
    // A freshly created lock may not have its pid file yet; only a lock with a dead holder is stale.
    await sleep(pollMs);
    if (!holderAlive(lockDir)) rmSync(lockDir, { recursive: true, force: true });
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
