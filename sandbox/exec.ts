// The only place in sandbox/ that starts processes, so timeouts, logs and clean-up are done once. Two shapes:
//   run(cmd, args)   a command that finishes (kind, docker, vagrant, go build): output captured;
//   spawn(cmd, args) a long-running process (etcd, kube-apiserver, simcloud, the CCM): output to a log file,
//                    tracked so it is stopped on stop(), on SIGINT/SIGTERM, and by the reaper when this
//                    process dies without cleaning up (even kill -9).
// In dry-run mode nothing runs: every command is recorded, `run` answers from an optional responder, and
// `formatRecords` prints the exact sequence (golden tests compare it).
import { spawn as spawnChild } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { execa } from 'execa';
import { reaper } from './reaper-client.ts';
import { waitFor } from './wait.ts';

export interface CommandRecord {
  readonly kind: 'run' | 'spawn';
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly input?: string;
  /** Resolve with the exit code instead of throwing on a non-zero exit. */
  readonly allowFailure?: boolean;
  readonly timeoutMs?: number;
  /** Receives output lines while the command runs (progress display). */
  readonly onLine?: (line: string) => void;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface SpawnOptions {
  /** Short name used in logs and errors, e.g. "kube-apiserver". */
  readonly name: string;
  /** File receiving stdout and stderr (appended). */
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /**
   * Run it as the leader of a process group of its own and signal the whole group (stop, reaper): a shell
   * command line's shell does not pass SIGTERM on to the command it runs.
   */
  readonly group?: boolean;
  /** `env` is the whole environment, not added to this process's (a container's own environment). */
  readonly cleanEnv?: boolean;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Settles when the process has exited, for whatever reason. */
  readonly exited: Promise<ExitInfo>;
  isRunning(): boolean;
  /** Sends one signal (to the whole group for a group) and does not wait: a crash test's SIGKILL. */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export class ExecError extends Error {
  readonly command: string;
  readonly exitCode: number;
  readonly stderr: string;

  constructor(command: string, exitCode: number, stderr: string) {
    const tail = stderr.trim().split('\n').slice(-5).join('\n');
    super(`${command} exited with code ${exitCode}${tail ? `: ${tail}` : ''}`);
    this.name = 'ExecError';
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export type Responder = (record: CommandRecord) => Partial<RunResult> | undefined;

export interface Exec {
  readonly dryRun: boolean;
  readonly records: readonly CommandRecord[];
  run(command: string, args: readonly string[], options?: RunOptions): Promise<RunResult>;
  spawn(command: string, args: readonly string[], options: SpawnOptions): ManagedProcess;
  /**
   * Starts a process that outlives this one (the sandbox daemon): its own session, not reaped, output
   * to the log file. Returns its pid.
   */
  spawnDetached(command: string, args: readonly string[], options: SpawnOptions): number;
}

export interface ExecOptions {
  readonly dryRun?: boolean;
  /** Dry-run answers for commands whose output drives later steps (e.g. `docker inspect`). */
  readonly responder?: Responder;
}

export function createExec(options: ExecOptions = {}): Exec {
  return options.dryRun ? new DryRunExec(options.responder) : new RealExec();
}

class RealExec implements Exec {
  readonly dryRun = false;
  readonly records: CommandRecord[] = [];

  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    this.records.push(record('run', command, args, options));
    const onLine = options.onLine;
    const sub = execa(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      input: options.input,
      reject: false,
      timeout: options.timeoutMs,
      all: onLine !== undefined,
      buffer: true,
    });
    if (onLine && sub.all) forEachLine(sub.all, onLine);
    const result = await sub;
    const exitCode = result.exitCode ?? (result.timedOut ? 124 : 1);
    const out: RunResult = { stdout: String(result.stdout), stderr: String(result.stderr), exitCode };
    if (exitCode !== 0 && !options.allowFailure) {
      throw new ExecError(formatCommand(command, args), exitCode, out.stderr || String(result.message));
    }
    return out;
  }

  spawn(command: string, args: readonly string[], options: SpawnOptions): ManagedProcess {
    this.records.push(record('spawn', command, args, options));
    closeSync(openSync(options.logFile, 'a', 0o600)); // logs may carry what a process prints: owner-only
    const sub = execa(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      extendEnv: options.cleanEnv !== true,
      stdin: 'ignore',
      stdout: { file: options.logFile, append: true },
      stderr: { file: options.logFile, append: true },
      reject: false,
      cleanup: true,
      detached: options.group === true,
    });
    const pid = sub.pid;
    if (pid === undefined) throw new ExecError(formatCommand(command, args), 127, `could not start ${options.name}`);
    const id = { name: options.name, pid, logFile: options.logFile };
    if (options.group) return new GroupHandle(id, sub);
    reaper().track(pid);
    return new ChildProcessHandle(id, (signal) => sub.kill(signal), sub);
  }

  spawnDetached(command: string, args: readonly string[], options: SpawnOptions): number {
    this.records.push(record('spawn', command, args, options));
    return startDetached(command, args, options);
  }
}

function startDetached(command: string, args: readonly string[], options: SpawnOptions): number {
  const out = openSync(options.logFile, 'a', 0o600);
  const child = spawnChild(command, [...args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  if (child.pid === undefined) throw new ExecError(formatCommand(command, args), 127, `could not start ${options.name}`);
  return child.pid;
}

type Subprocess = PromiseLike<{ exitCode?: number; signal?: string }>;
type Kill = (signal: NodeJS.Signals) => void;

class ChildProcessHandle implements ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<ExitInfo>;
  #running = true;
  #kill: Kill;

  constructor(id: { name: string; pid: number; logFile: string }, kill: Kill, sub: Subprocess, afterExit?: () => Promise<void>) {
    const { name, pid, logFile } = id;
    this.name = name;
    this.pid = pid;
    this.logFile = logFile;
    this.#kill = kill;
    this.exited = Promise.resolve(sub).then(async (r) => {
      if (afterExit) await afterExit();
      else reaper().untrack(pid);
      this.#running = false;
      return { code: r.exitCode ?? null, signal: r.signal ?? null };
    });
  }

  isRunning(): boolean {
    return this.#running;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.#running) this.#kill(signal);
  }

  async stop(graceMs = 5000): Promise<void> {
    if (!this.#running) return;
    this.#kill('SIGTERM');
    const timer = setTimeout(() => this.#kill('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A process group led by the spawned process: signals go to the whole group, the reaper knows it by its
 * negative id, and it has exited once every member has (members left behind by the leader get SIGTERM,
 * then SIGKILL after the grace period).
 */
class GroupHandle extends ChildProcessHandle {
  constructor(id: { name: string; pid: number; logFile: string }, sub: Subprocess) {
    const { name, pid } = id;
    reaper().track(-pid);
    super(
      id,
      (signal) => signalGroup(pid, signal),
      sub,
      async () => {
        if (signalGroup(pid, 'SIGTERM'))
          await waitFor(() => !signalGroup(pid, 0), { timeoutMs: 5000, description: `the rest of ${name}'s process group to exit` }).catch(() =>
            signalGroup(pid, 'SIGKILL'),
          );
        reaper().untrack(-pid);
      },
    );
  }
}

/** Signals process group `pid`; false when no member is left. Signal 0 only asks. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

class DryRunExec implements Exec {
  readonly dryRun = true;
  readonly records: CommandRecord[] = [];
  #responder: Responder | undefined;
  #nextPid = 100000;

  constructor(responder: Responder | undefined) {
    this.#responder = responder;
  }

  run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const rec = record('run', command, args, options);
    this.records.push(rec);
    const answer = this.#responder?.(rec) ?? {};
    return Promise.resolve({ stdout: answer.stdout ?? '', stderr: answer.stderr ?? '', exitCode: answer.exitCode ?? 0 });
  }

  spawn(command: string, args: readonly string[], options: SpawnOptions): ManagedProcess {
    this.records.push(record('spawn', command, args, options));
    let running = true;
    return {
      name: options.name,
      pid: this.#nextPid++,
      logFile: options.logFile,
      exited: new Promise<ExitInfo>(() => undefined),
      isRunning: () => running,
      kill: () => undefined,
      stop: () => {
        running = false;
        return Promise.resolve();
      },
    };
  }

  spawnDetached(command: string, args: readonly string[], options: SpawnOptions): number {
    this.records.push(record('spawn', command, args, options));
    return this.#nextPid++;
  }
}

function record(kind: CommandRecord['kind'], command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string> }): CommandRecord {
  return { kind, command, args: [...args], ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.env ? { env: { ...options.env } } : {}) };
}

function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer | string) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
}

const SAFE = /^[\w@%+=:,./-]+$/;

export function shellQuote(arg: string): string {
  return SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function formatCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellQuote).join(' ');
}

/** One line per command, `$ ` for commands that finish and `& ` for long-running ones. */
export function formatRecords(records: readonly CommandRecord[]): string {
  return records.map((r) => `${r.kind === 'run' ? '$' : '&'} ${r.cwd ? `(cd ${shellQuote(r.cwd)}) ` : ''}${formatCommand(r.command, r.args)}`).join('\n');
}

/** An AbortSignal that fires when the process exits, so a wait for its readiness ends at once. */
export function exitSignal(proc: ManagedProcess, describe: (info: ExitInfo) => string): AbortSignal {
  const controller = new AbortController();
  void proc.exited.then((info) => controller.abort(new ExecError(proc.name, info.code ?? -1, describe(info))));
  return controller.signal;
}
