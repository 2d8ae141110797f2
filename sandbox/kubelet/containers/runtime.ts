// The virtual kubelets' container runtime for runnable images (images/runnable.ts): a container whose image
// the table maps to a local binary runs as a real process, started through the sandbox's one launcher
// (processes.ts) as a container runtime would start it: its volumes made in a directory of the pod's (Secrets
// and tokens 0600), its mounts at the container's absolute paths in a mount namespace of its own (mounts.ts),
// its command line and environment from the pod spec (spec.ts) plus what the kubelet sets (the apiserver as
// KUBERNETES_SERVICE_HOST/PORT on loopback, so client-go's in-cluster config works) and the sandbox's network
// (the interception proxy, so a cloud's real API hostname reaches its persona). It reports each container as
// a kubelet does (running, ready by its readiness probe, terminated with its exit code, CrashLoopBackOff while
// a restart waits out its back-off) and stops the process on deletion (SIGTERM, the grace period, SIGKILL).
// Its stdout and stderr go to <stateDir>/logs/pods/<namespace>_<pod>_<container>.log, each run appended; the
// byte ranges of its current and previous run are what the kubelet API serves as its log (logs.ts).
import { existsSync, mkdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import type { CoreV1Api, V1Container, V1ContainerStateTerminated, V1ContainerStatus, V1ObjectReference, V1Pod } from '@kubernetes/client-node';
import { EventType, type EventRecorder } from '../../../src/kube/events.ts';
import { realClock } from '../../../src/kube/clock.ts';
import { objectKey } from '../../../src/kube/keys.ts';
import type { Logger } from '../../../src/kube/logger.ts';
import type { Exec, ExitInfo, ManagedProcess } from '../../exec.ts';
import { launchProcess, SPAWNED } from '../../processes.ts';
import { privateDir } from '../../state.ts';
import { entryMatches } from '../images/replies.ts';
import type { ImageEntry } from '../images/schema.ts';
import { type BindMount, mountScript } from './mounts.ts';
import { fetchPodObjects } from './fetch.ts';
import { LogIndex, startRun, type LogRun } from './logs.ts';
import { probeOnce } from './probe.ts';
import { containerArgv, containerEnv, ContainerSpecError, mountPlans, volumePlans, type VolumePlan } from './spec.ts';

/** The kubelet's restart back-off: 10 s doubling to 5 min; a container that ran 10 min starts again at 10 s. */
export const BACKOFF = { initialMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 } as const;

export function restartDelayMs(crashes: number): number {
  return Math.min(BACKOFF.maxMs, BACKOFF.initialMs * 2 ** Math.max(0, crashes - 1));
}

/** Whether a container that exited with `exitCode` is started again under the pod's restartPolicy. */
export function restarts(policy: string | undefined, exitCode: number): boolean {
  return policy === 'Never' ? false : policy === 'OnFailure' ? exitCode !== 0 : true;
}

/** The image's default PATH and HOME, as most images set them. */
const IMAGE_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root' } as const;

export interface ContainerRuntimeOptions {
  readonly exec: Exec;
  /** The runnable entries of the image table (the first that matches a container wins). */
  readonly images: readonly ImageEntry[];
  /** One directory per pod under here (0700). */
  readonly podsDir: string;
  /** The containers' logs. */
  readonly logsDir: string;
  /** Reads Secrets and ConfigMaps and requests tokens, as the kubelet does. */
  readonly core: CoreV1Api;
  /** The apiserver as a pod reaches it (loopback): KUBERNETES_SERVICE_HOST and _PORT. */
  readonly apiServer: { readonly host: string; readonly port: string };
  /** The sandbox's network for a container: the interception proxy's variables (read at each start). */
  readonly networkEnv: () => Readonly<Record<string, string>>;
  /** A container's state changed: the pod's status is due again. */
  readonly onChange: (podKey: string) => void;
  readonly recorder?: EventRecorder;
  readonly logger?: Logger;
  /** Whether processes can have a mount namespace (root with unshare); default: checked once. */
  readonly canIsolate?: () => Promise<boolean>;
}

interface ContainerRun {
  readonly name: string;
  readonly image: string;
  readonly binary: string;
  process: ManagedProcess | undefined;
  startedAt: Date | undefined;
  ready: boolean;
  restartCount: number;
  /** Exits in a row without a 10-minute run between them (the back-off's exponent). */
  crashes: number;
  waiting: { reason: string; message: string } | undefined;
  last: V1ContainerStatus['lastState'];
  terminated: NonNullable<V1ContainerStatus['state']>['terminated'];
  timer: NodeJS.Timeout | undefined;
  probe: NodeJS.Timeout | undefined;
  /** Its log file's index, from its first start. */
  log: LogIndex | undefined;
  /** Its last two runs' parts of the log (the previous one, then the current one). */
  runs: (LogRun & { finish(): void })[];
}

interface PodRun {
  readonly key: string;
  /** The pod as last synced (its spec is fixed; its restartPolicy and names are read from here). */
  pod: V1Pod;
  readonly uid: string;
  readonly dir: string;
  readonly ref: V1ObjectReference;
  readonly containers: Map<string, ContainerRun>;
  /** The volumes once made (retried on the next sync until they are); kept across container restarts. */
  volumes: VolumePlan[] | undefined;
  stopping: boolean;
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class ContainerRuntime {
  readonly #opts: ContainerRuntimeOptions;
  readonly #pods = new Map<string, PodRun>();
  #isolation: Promise<boolean> | undefined;

  constructor(options: ContainerRuntimeOptions) {
    this.#opts = options;
  }

  /** The runnable entry for a container, if its image is one. */
  entryFor(container: V1Container): ImageEntry | undefined {
    return this.#opts.images.find((e) => e.run && entryMatches(e, container));
  }

  /** Whether any container of the pod runs as a process here. */
  runs(pod: V1Pod): boolean {
    return (pod.spec?.containers ?? []).some((c) => this.entryFor(c) !== undefined);
  }

  /** Whether the pod has processes (or a directory) here. */
  has(key: string): boolean {
    return this.#pods.has(key);
  }

  /**
   * Starts what is not running yet (first sync, or a new pod with the same name) and answers the statuses
   * of the runnable containers, by name.
   */
  async sync(pod: V1Pod): Promise<Map<string, V1ContainerStatus>> {
    const run = await this.#runFor(pod);
    if (!run.stopping && !run.volumes) await this.#prepare(pod, run);
    const due = [...run.containers.values()].filter((c) => !run.stopping && run.volumes && !c.process && !c.timer && !c.terminated);
    for (const c of due) await this.#start(run, c);
    return new Map([...run.containers.values()].map((c) => [c.name, status(run, c)]));
  }

  /** The pod's run; a pod of the same name with another uid replaces the old one's. */
  async #runFor(pod: V1Pod): Promise<PodRun> {
    const key = objectKey(pod);
    const run = this.#pods.get(key);
    if (run?.uid === pod.metadata?.uid && run) {
      run.pod = pod;
      return run;
    }
    if (run) await this.stop(key, 0);
    return this.#newRun(pod, key);
  }

  /** Stops the pod's processes (SIGTERM, then SIGKILL after `graceMs`) and removes its directory. Idempotent. */
  async stop(key: string, graceMs: number): Promise<void> {
    const run = this.#pods.get(key);
    if (!run) return;
    run.stopping = true;
    await Promise.all(
      [...run.containers.values()].map(async (c) => {
        clearTimeout(c.timer);
        clearInterval(c.probe);
        c.timer = undefined;
        if (c.process?.isRunning()) {
          this.#event(run, EventType.Normal, 'Killing', `Stopping container ${c.name}`);
          await c.process.stop(graceMs);
        }
      }),
    );
    for (const c of run.containers.values()) {
      for (const part of c.runs) part.finish();
      c.log?.close();
    }
    this.#pods.delete(key);
    rmSync(run.dir, { recursive: true, force: true });
  }

  /** The part of its log file one run of the container wrote (by the container ID its status gave), if this runtime ran it. */
  logOf(podKey: string, uid: string, container: string, containerId: string): { index: LogIndex; run: LogRun } | undefined {
    const run = this.#pods.get(podKey);
    const c = run?.uid === uid ? run.containers.get(container) : undefined;
    const part = c?.runs.find((r) => r.containerId === containerId);
    return c?.log && part ? { index: c.log, run: part } : undefined;
  }

  /** Stops every process (sandbox down). */
  async stopAll(graceMs = 5_000): Promise<void> {
    await Promise.all([...this.#pods.keys()].map((k) => this.stop(k, graceMs)));
  }

  #newRun(pod: V1Pod, key: string): PodRun {
    const { namespace = '', name = '', uid = '' } = pod.metadata ?? {};
    const dir = join(this.#opts.podsDir, `${namespace}_${name}_${uid}`);
    const containers = this.#containersOf(pod);
    const ref: V1ObjectReference = { kind: 'Pod', apiVersion: 'v1', namespace, name, uid };
    const run: PodRun = { key, pod, uid, dir, ref, containers, volumes: undefined, stopping: false };
    this.#pods.set(key, run);
    return run;
  }

  /** The pod's containers that run as processes, each with its binary. */
  #containersOf(pod: V1Pod): Map<string, ContainerRun> {
    const containers = new Map<string, ContainerRun>();
    for (const c of pod.spec?.containers ?? []) {
      const binary = this.entryFor(c)?.run?.binary;
      if (binary !== undefined) containers.set(c.name, newContainer(c, binary));
    }
    return containers;
  }

  /** Fetches what the pod names and makes its volumes; a failure is the containers' waiting reason, retried. */
  async #prepare(pod: V1Pod, run: PodRun): Promise<void> {
    try {
      const volumes = volumePlans(pod, await fetchPodObjects(this.#opts.core, pod, true));
      privateDir(run.dir);
      for (const v of volumes) this.#makeVolume(run, v);
      run.volumes = volumes;
    } catch (err) {
      this.#failed(run, [...run.containers.values()], err, 'FailedMount');
    }
  }

  #retryLater(run: PodRun): void {
    const t = setTimeout(() => this.#opts.onChange(run.key), 5_000);
    t.unref();
  }

  #makeVolume(run: PodRun, v: VolumePlan): void {
    if (v.kind === 'host') return;
    const dir = join(run.dir, 'volumes', v.name);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (v.kind === 'files')
      for (const f of v.files) {
        const path = join(dir, f.path);
        mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
        writeFileSync(path, f.content, { mode: f.mode });
      }
  }

  /** The host path a volume (and subPath) is bound from; a hostPath missing on this machine is an empty directory of the pod's. */
  #source(run: PodRun, v: VolumePlan, subPath: string): string {
    let base = join(run.dir, 'volumes', v.name);
    if (v.kind === 'host') {
      if (existsSync(v.path)) base = v.path;
      else if (v.type === '' || v.type === 'DirectoryOrCreate') mkdirSync(base, { recursive: true, mode: 0o755 });
      else throw new ContainerSpecError('FailedMount', `hostPath ${v.path} (type ${v.type}) does not exist on this machine`);
    }
    return subPath ? join(base, subPath) : base;
  }

  async #start(run: PodRun, c: ContainerRun): Promise<void> {
    const pod = run.pod;
    const spec = (pod.spec?.containers ?? []).find((s) => s.name === c.name);
    if (!spec) return;
    let part: (LogRun & { finish(): void }) | undefined;
    try {
      const env = containerEnv(pod, spec, await fetchPodObjects(this.#opts.core, pod, false), this.#baseEnv(pod));
      const [command, ...args] = await this.#commandLine(run, spec, containerArgv(spec, c.binary, env));
      part = this.#newLogRun(run, c);
      const { process: proc } = await launchProcess({
        exec: this.#opts.exec,
        name: `pod ${run.key}/${c.name}`,
        command: command!,
        args,
        env,
        cleanEnv: true,
        logFile: c.log!.file,
        cwd: spec.workingDir ?? '/',
        ...SPAWNED,
      });
      // Deleted while it started (the informer's delete and back-off restarts run beside the pod's sync): no leftover.
      if (run.stopping) {
        await proc.stop(0);
        part.finish();
        return;
      }
      Object.assign(c, { process: proc, startedAt: new Date(), waiting: undefined, ready: spec.readinessProbe === undefined });
      this.#event(run, EventType.Normal, 'Started', `Started container ${c.name}`);
      this.#probe(run, c, spec);
      void proc.exited.then((info) => this.#exited(run, c, proc, info));
    } catch (err) {
      // A run that never started has no log of its own.
      if (part) c.runs = c.runs.filter((r) => r !== part);
      this.#failed(run, [c], err, 'CreateContainerError');
    }
    this.#opts.onChange(run.key);
  }

  /** Where this run's part of the log begins (the file's end now); the container keeps its last two. */
  #newLogRun(run: PodRun, c: ContainerRun): LogRun & { finish(): void } {
    if (!c.log) {
      const logFile = join(privateDir(this.#opts.logsDir), `${run.ref.namespace ?? ''}_${run.ref.name ?? ''}_${c.name}.log`);
      c.log = new LogIndex(logFile, realClock);
      // The file exists from here (owner-only, as the launcher makes it), so it can be watched before the process writes.
      writeFileSync(logFile, '', { flag: 'a', mode: 0o600 });
      c.log.watch();
    }
    const part = startRun(c.log, containerId(run, c));
    c.runs = [...c.runs, part].slice(-2);
    return part;
  }

  /**
   * A container that could not be made: waiting with the kubelet's reason (ContainerCreating while a mount
   * fails), an Event (FailedMount or Failed), and another try in a few seconds.
   */
  #failed(run: PodRun, containers: readonly ContainerRun[], err: unknown, fallback: string): void {
    const reason = err instanceof ContainerSpecError ? err.reason : fallback;
    const mount = reason === 'FailedMount';
    for (const c of containers) c.waiting = { reason: mount ? 'ContainerCreating' : reason, message: errText(err) };
    this.#event(run, EventType.Warning, mount ? reason : 'Failed', mount ? errText(err) : `Error: ${errText(err)}`);
    this.#retryLater(run);
  }

  /**
   * The argv to spawn: the container's own, or, with volume mounts, the same behind `unshare` and the mount
   * script (mounts.ts), which needs a mount namespace: without one the container is not started at all.
   */
  async #commandLine(run: PodRun, spec: V1Container, argv: string[]): Promise<string[]> {
    const volumes = run.volumes ?? [];
    const binds: BindMount[] = mountPlans(spec, volumes).map((m) => {
      const source = this.#source(
        run,
        volumes.find((v) => v.name === m.volume)!,
        m.subPath,
      );
      return { source, target: m.target, readOnly: m.readOnly, file: existsSync(source) && !statSync(source).isDirectory() };
    });
    if (binds.length === 0) return argv;
    if (!(await this.#canIsolate()))
      throw new ContainerSpecError(
        'CreateContainerError',
        'its volume mounts need a mount namespace (root and unshare); this machine offers none, and nothing is mounted over the host',
      );
    const script = join(run.dir, `${spec.name}.mounts.sh`);
    const scratch = join(run.dir, `${spec.name}.ns`);
    mkdirSync(scratch, { recursive: true, mode: 0o700 });
    writeFileSync(script, mountScript(binds, scratch, { exists: existsSync, realpath: realpathSync }), { mode: 0o700 });
    return ['unshare', '--mount', '--propagation', 'private', '/bin/sh', script, ...argv];
  }

  /** What the kubelet and the sandbox set before the container's own environment. */
  #baseEnv(pod: V1Pod): Record<string, string> {
    const { host, port } = this.#opts.apiServer;
    const hostname = pod.spec?.hostNetwork ? (pod.spec.nodeName ?? '') : (pod.spec?.hostname ?? pod.metadata?.name ?? '');
    return {
      ...IMAGE_ENV,
      HOSTNAME: hostname,
      KUBERNETES_SERVICE_HOST: host,
      KUBERNETES_SERVICE_PORT: port,
      KUBERNETES_SERVICE_PORT_HTTPS: port,
      KUBERNETES_PORT: `tcp://${host}:${port}`,
      KUBERNETES_PORT_443_TCP: `tcp://${host}:${port}`,
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_ADDR: host,
      KUBERNETES_PORT_443_TCP_PORT: port,
      ...this.#opts.networkEnv(),
    };
  }

  #exited(run: PodRun, c: ContainerRun, proc: ManagedProcess, info: ExitInfo): void {
    if (c.process !== proc) return;
    c.runs.find((r) => r.containerId === containerId(run, c))?.finish();
    clearInterval(c.probe);
    const terminated = terminatedState(run, c, info, new Date());
    Object.assign(c, { process: undefined, ready: false });
    if (run.stopping) return;
    const ranLong = terminated.finishedAt.getTime() - terminated.startedAt.getTime() >= BACKOFF.resetAfterMs;
    c.crashes = ranLong ? 1 : c.crashes + 1;
    if (!restarts(run.pod.spec?.restartPolicy, terminated.exitCode)) {
      c.terminated = terminated;
      this.#opts.onChange(run.key);
      return;
    }
    c.last = { terminated };
    this.#restartLater(run, c);
  }

  /** CrashLoopBackOff: the container starts again once its back-off has passed. */
  #restartLater(run: PodRun, c: ContainerRun): void {
    const delay = restartDelayMs(c.crashes);
    c.waiting = {
      reason: 'CrashLoopBackOff',
      message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${run.ref.name}_${run.ref.namespace}(${run.uid})`,
    };
    this.#event(run, EventType.Warning, 'BackOff', 'Back-off restarting failed container');
    c.timer = setTimeout(() => {
      c.timer = undefined;
      c.restartCount += 1;
      if (!run.stopping) void this.#start(run, c);
    }, delay);
    c.timer.unref();
    this.#opts.onChange(run.key);
  }

  /** The readiness probe (httpGet or tcpSocket on loopback): ready after successThreshold passes, not after failureThreshold fails. */
  #probe(run: PodRun, c: ContainerRun, spec: V1Container): void {
    const probe = spec.readinessProbe;
    if (!probe) return;
    let passes = 0;
    let fails = 0;
    const proc = c.process;
    const [successes, failures] = [probe.successThreshold ?? 1, probe.failureThreshold ?? 3];
    const tick = async (): Promise<void> => {
      const ok = await probeOnce(probe, spec);
      // An answer that arrives after its process ended says nothing of the next one.
      if (c.process !== proc) return;
      [passes, fails] = ok ? [passes + 1, 0] : [0, fails + 1];
      const ready = passes >= successes ? true : fails >= failures ? false : c.ready;
      if (ready !== c.ready) {
        c.ready = ready;
        this.#opts.onChange(run.key);
      }
    };
    const first = setTimeout(
      () => {
        void tick();
        c.probe = setInterval(() => void tick(), (probe.periodSeconds ?? 10) * 1000);
        c.probe.unref();
      },
      (probe.initialDelaySeconds ?? 0) * 1000,
    );
    first.unref();
    c.probe = first;
  }

  #event(run: PodRun, type: EventType, reason: string, message: string): void {
    this.#opts.recorder?.event(run.ref, type, reason, message);
    this.#opts.logger?.info({ pod: run.key, reason }, message);
  }

  #canIsolate(): Promise<boolean> {
    this.#isolation ??= this.#opts.canIsolate?.() ?? mountNamespaceAvailable(this.#opts.exec);
    return this.#isolation;
  }
}

/** One id per run of a container (its restarts are new containers, as with a container runtime). */
function containerId(run: PodRun, c: ContainerRun): string {
  return `process://${run.uid}/${c.name}/${c.restartCount}`;
}

function signalNumber(signal: string | null): number {
  return signal ? (constants.signals[signal as NodeJS.Signals] ?? 0) : 0;
}

/** How a run of the container ended: its exit code (128 + the signal's number when a signal ended it), as a runtime reports it. */
function terminatedState(run: PodRun, c: ContainerRun, info: ExitInfo, finishedAt: Date): V1ContainerStateTerminated & { startedAt: Date; finishedAt: Date } {
  const exitCode = info.code ?? 128 + signalNumber(info.signal);
  return {
    exitCode,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    ...(info.signal ? { signal: signalNumber(info.signal) } : {}),
    startedAt: c.startedAt ?? finishedAt,
    finishedAt,
    containerID: containerId(run, c),
  };
}

function newContainer(c: V1Container, binary: string): ContainerRun {
  return {
    name: c.name,
    image: c.image ?? '',
    binary,
    process: undefined,
    startedAt: undefined,
    ready: false,
    restartCount: 0,
    crashes: 0,
    waiting: { reason: 'ContainerCreating', message: '' },
    last: undefined,
    terminated: undefined,
    timer: undefined,
    probe: undefined,
    log: undefined,
    runs: [],
  };
}

/** A container's status as the kubelet reports it: terminated for good, running, or waiting (creating, backing off). */
function status(run: PodRun, c: ContainerRun): V1ContainerStatus {
  const base = { name: c.name, image: c.image, imageID: '', restartCount: c.restartCount, ...(c.last ? { lastState: c.last } : {}) };
  if (c.terminated) return { ...base, containerID: containerId(run, c), ready: false, started: false, state: { terminated: c.terminated } };
  if (c.process && c.startedAt)
    return { ...base, containerID: containerId(run, c), ready: c.ready, started: true, state: { running: { startedAt: c.startedAt } } };
  return { ...base, ready: false, started: false, state: { waiting: c.waiting ?? { reason: 'ContainerCreating' } } };
}

/** Whether this machine lets a process have a mount namespace of its own (root, with unshare). */
export async function mountNamespaceAvailable(exec: Exec): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  try {
    return (await exec.run('unshare', ['--mount', '--propagation', 'private', 'true'], { allowFailure: true, timeoutMs: 10_000 })).exitCode === 0;
  } catch {
    return false;
  }
}
