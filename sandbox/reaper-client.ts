// Parent side of the reaper (see reaper.ts): started lazily on first use, detached in its own process
// group so an interrupt aimed at us does not kill it first, and unref'd so it never keeps us alive.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface Reaper {
  track(pid: number): void;
  untrack(pid: number): void;
  trackDir(path: string): void;
  untrackDir(path: string): void;
}

let instance: Reaper | undefined;

export function reaper(): Reaper {
  instance ??= startReaper();
  return instance;
}

function startReaper(): Reaper {
  const script = fileURLToPath(new URL('./reaper.ts', import.meta.url));
  const child = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  const stdin = child.stdin as Socket;
  stdin.unref();
  // If the reaper itself is gone, writes fail; nothing to do but carry on.
  stdin.on('error', () => undefined);
  const send = (line: string): void => {
    if (!stdin.destroyed) stdin.write(`${line}\n`);
  };
  return {
    track: (pid) => send(`+pid ${pid}`),
    untrack: (pid) => send(`-pid ${pid}`),
    trackDir: (path) => send(`+dir ${path}`),
    untrackDir: (path) => send(`-dir ${path}`),
  };
}
