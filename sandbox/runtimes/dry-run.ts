// Dry runs of the kind and vagrant runtimes: every command up() and down() would run, in order, with
// the files they would write, answered by realistic fakes (dry-run-fakes.ts) instead of Docker, kind
// or a hypervisor. `ccm-sandbox up --runtime kind --dry-run` prints renderDryRun(); the golden tests in
// test/sandbox compare it (with paths normalised) to test/sandbox/golden/.
import { createExec, formatCommand, shellQuote, type CommandRecord } from '../exec.ts';
import { DryRunCloud, kindResponder, vagrantResponder } from './dry-run-fakes.ts';
import { createKindRuntime, KIND_IMAGE_ENV, KIND_TARGET_KUBERNETES, type GeneratedFile, type KindRuntimeOptions } from './kind.ts';
import { loopbackNodeAddress } from './kind-network.ts';
import type { CloudNetwork, MachineSpec, PowerAction, Runtime, RuntimeContext } from './runtime.ts';
import { createVagrantRuntime, type VagrantRuntimeOptions } from './vagrant.ts';

export interface DryRunOptions {
  readonly name: string;
  readonly workers: number;
  readonly stateDir: string;
  readonly cloudEndpoint?: string;
  readonly kind?: KindRuntimeOptions;
  readonly vagrant?: VagrantRuntimeOptions;
  /** Power actions to play on the first worker after up (shows the docker/vagrant mapping). */
  readonly powerActions?: readonly PowerAction[];
}

export interface DryRunPhase {
  readonly title: string;
  readonly records: readonly CommandRecord[];
}

export interface DryRunResult {
  readonly phases: readonly DryRunPhase[];
  readonly files: readonly GeneratedFile[];
  readonly registered: readonly MachineSpec[];
  readonly progress: readonly string[];
  readonly notes: readonly string[];
  readonly cloudNetwork: CloudNetwork | undefined;
}

const PLACEHOLDER_IMAGE = `kindest/node:${KIND_TARGET_KUBERNETES}`;

function kindSetup(
  o: DryRunOptions,
  notes: string[],
): { runtime: Runtime & { generatedFiles?: readonly GeneratedFile[] }; responder: ReturnType<typeof kindResponder> } {
  let options = o.kind ?? {};
  if (!options.image && !process.env[KIND_IMAGE_ENV]) {
    notes.push(`${KIND_IMAGE_ENV} is not set: a real run stops before the first command; ${PLACEHOLDER_IMAGE} stands in for the image below`);
    options = { ...options, image: PLACEHOLDER_IMAGE };
  }
  const runtime = createKindRuntime(options);
  const plan = runtime.networkPlan;
  const prefix = plan.subnet.split('.').slice(0, 3).join('.');
  const published =
    plan.mode === 'port-mapping'
      ? { addresses: Array.from({ length: o.workers + 1 }, (_, i) => loopbackNodeAddress(plan, i)), ports: plan.mappedPorts }
      : undefined;
  return {
    runtime,
    responder: kindResponder({ name: o.name, workers: o.workers, dockerNetwork: plan.dockerNetwork, prefix, ...(published ? { published } : {}) }),
  };
}

function vagrantSetup(o: DryRunOptions): { runtime: Runtime; responder: ReturnType<typeof vagrantResponder> } {
  // No probing in a dry run: the option, else $VAGRANT_DEFAULT_PROVIDER=libvirt, else VirtualBox.
  const provider = o.vagrant?.provider ?? (process.env.VAGRANT_DEFAULT_PROVIDER === 'libvirt' ? 'libvirt' : 'virtualbox');
  const runtime = createVagrantRuntime({ ...o.vagrant, provider });
  return { runtime, responder: vagrantResponder({ name: o.name, workers: o.workers, network: runtime.network, provider }) };
}

/** Runs available(), up(), optional power actions, collectLogs() and down() against fakes. */
export async function runDryRun(runtimeName: 'kind' | 'vagrant', o: DryRunOptions): Promise<DryRunResult> {
  const notes: string[] = [];
  const { runtime, responder } = runtimeName === 'kind' ? kindSetup(o, notes) : vagrantSetup(o);
  const exec = createExec({ dryRun: true, responder });
  const cloud = new DryRunCloud();
  const progress: string[] = [];
  const ctx: RuntimeContext = {
    exec,
    cloud,
    stateDir: o.stateDir,
    name: o.name,
    workers: o.workers,
    cloudEndpoint: o.cloudEndpoint ?? 'http://127.0.0.1:8787',
    progress: (m) => progress.push(m),
  };
  const phases: DryRunPhase[] = [];
  const phase = async (title: string, fn: () => Promise<unknown>): Promise<void> => {
    const start = exec.records.length;
    await fn();
    phases.push({ title, records: exec.records.slice(start) });
  };
  await phase('available', () => runtime.available(ctx));
  await phase('up', () => runtime.up(ctx));
  const worker = cloud.registered.find((m) => m.role === 'worker')?.name;
  for (const action of worker ? (o.powerActions ?? []) : []) {
    await phase(`power ${action} ${worker ?? ''}`, async () => {
      cloud.emit(worker ?? '', action);
      await (runtime as Runtime & { whenIdle?: () => Promise<void> }).whenIdle?.();
    });
  }
  await phase('collect logs', () => runtime.collectLogs(ctx, `${o.stateDir}/artifacts/cluster`));
  await phase('down', () => runtime.down(ctx));
  const files = 'generatedFiles' in runtime ? (runtime as { generatedFiles: readonly GeneratedFile[] }).generatedFiles : [];
  return { phases, files, registered: cloud.registered, progress, notes, cloudNetwork: runtime.cloudNetwork?.() };
}

/** Commands one per line; when a command's environment differs from the one before, a `# env:` line first. */
export function renderRecords(records: readonly CommandRecord[]): string {
  const lines: string[] = [];
  let lastEnv = '';
  for (const r of records) {
    const env = Object.entries(r.env ?? {})
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(' ');
    if (env !== lastEnv && env !== '') lines.push(`# env: ${env}`);
    lastEnv = env;
    lines.push(`${r.kind === 'run' ? '$' : '&'} ${r.cwd ? `(cd ${shellQuote(r.cwd)}) ` : ''}${formatCommand(r.command, r.args)}`);
  }
  return lines.join('\n');
}

export function renderDryRunResult(runtimeName: string, result: DryRunResult): string {
  const out = [`# ccm-sandbox dry run: --runtime ${runtimeName}; nothing below was run`];
  for (const n of result.notes) out.push(`# note: ${n}`);
  for (const p of result.phases) out.push('', `## ${p.title}`, renderRecords(p.records) || '(no commands)');
  for (const f of result.files) out.push('', `## file ${f.path}`, f.content.trimEnd());
  const net = result.cloudNetwork;
  out.push(
    '',
    '## simcloud cluster network',
    net ? `range ${net.range}${net.vipPool ? `, LB VIP pool ${net.vipPool}` : ''}` : 'the sandbox defaults (loopback)',
  );
  out.push(
    '',
    '## servers registered with simcloud',
    ...result.registered.map((m) => `${m.name} ${m.role} private=${m.privateIPv4 ?? '-'} public=${m.publicIPv4 ?? '-'}`),
  );
  out.push('', '## progress', ...result.progress);
  return `${out.join('\n')}\n`;
}

/** The CLI's `up --dry-run`: the whole up and down sequence as text. */
export async function renderDryRun(runtimeName: 'kind' | 'vagrant', o: DryRunOptions): Promise<string> {
  return renderDryRunResult(runtimeName, await runDryRun(runtimeName, o));
}
