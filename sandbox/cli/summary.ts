// What `up` prints at the end (and `status` at the top): where everything is and what to try next, and
// for an empty CCM slot (`--ccm none`) exactly how to run a CCM of one's own against this sandbox.
import { dirname } from 'node:path';
import { shellQuote } from '../exec.ts';
import { cloudCcmEnv, commandCcmEnv, upstreamArgsFor } from '../ccm/launch.ts';
import { cloudOf, DEFAULT_CLOUD, isCloudKind } from '../cloud/registry.ts';
import type { CloudDescriptor } from '../cloud/descriptor.ts';
import { commandLine } from '../ccm/slot.ts';
import { commandHint } from './hint.ts';
import { managementLines } from './env.ts';
import type { SandboxState, StepRecord } from '../state.ts';
import { spanMs } from '../startup.ts';

/** The persona the sandbox presents, if it presents one. */
function personaOf(state: SandboxState): CloudDescriptor | undefined {
  return state.cloud === DEFAULT_CLOUD || !isCloudKind(state.cloud) ? undefined : cloudOf(state.cloud);
}

function endpoints(state: SandboxState): string[] {
  const sim = state.simcloud;
  const persona = personaOf(state);
  return [
    `  console        ${state.consoleUrl ?? '-'}`,
    `  simcloud API   ${sim ? `${sim.url}  (SIMCLOUD_TOKEN=${sim.token})` : '-'}`,
    ...(persona && sim ? [`  ${`${persona.title} API`.padEnd(14)} ${persona.apiUrl(sim.url)}  (${persona.tokenVariable}=${sim.token})`] : []),
    `  CCM            ${ccmLine(state)}`,
  ];
}

function ccmLine(state: SandboxState): string {
  const ccm = state.ccm;
  if (!ccm) return '-';
  if (ccm.kind === 'none') return 'none: the slot is empty, nodes stay tainted until your CCM runs (below)';
  const where = ccm.url ? `${ccm.url}/healthz  ${ccm.url}/metrics` : `pid ${ccm.pid ?? '-'}`;
  return `${ccm.kind}${ccm.command ? ` \`${commandLine(ccm.command)}\`` : ''}  ${where}`;
}

/** The environment and upstream command line for a CCM run by hand against this sandbox. */
export function ownCcmLines(state: SandboxState): string[] {
  const kubeconfig = state.ccm?.kubeconfig;
  const sim = state.simcloud;
  if (!kubeconfig || !sim || !state.clusterCidr) return [];
  const ctx = {
    stateDir: dirname(dirname(kubeconfig)),
    clusterName: state.name,
    clusterCidr: state.clusterCidr,
    simcloud: sim,
    intercept: state.intercept,
    network: state.name,
    lbStrategy: state.lbStrategy === 'ip-block' ? ('ip-block' as const) : ('lb' as const),
    cloud: state.cloud,
  };
  const env = Object.entries(commandCcmEnv(ctx, kubeconfig)).map(([k, v]) => `  export ${k}=${shellQuote(v)}`);
  const flags = upstreamArgsFor(ctx, kubeconfig, 10258).map((a) => `    ${shellQuote(a)}`);
  return [
    'Run your own CCM: its environment (KUBECONFIG is its own identity, the ServiceAccount',
    "kube-system/cloud-controller-manager with a deployed CCM's RBAC, not the admin):",
    ...env,
    'and, for the upstream CCM (`npm run go:build` prints its path), these flags:',
    `  upstream-ccm \\\n${flags.join(' \\\n')}`,
  ];
}

/** A persona: the environment its SDKs and CCM read, and how to run the cloud's own CCM in the slot. */
export function personaLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  const persona = personaOf(state);
  if (!persona || !sim) return [];
  const nameFlag = state.name === 'ccm-sandbox' ? '' : `--name ${state.name} `;
  const env = cloudCcmEnv({ simcloud: sim, intercept: state.intercept, network: state.name, lbStrategy: 'lb', cloud: state.cloud });
  const own = persona.ownCcm;
  return [
    `${persona.title} persona: the machines were made through its API; ${persona.clients} works against it with:`,
    `  export ${Object.entries(env)
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(' ')}`,
    ...(own
      ? [
          `${persona.title}'s own CCM in the slot (${own.binary} on your PATH; ${own.note}):`,
          `  ${commandHint('sandbox:up', `${nameFlag}--cloud ${persona.kind} --ccm command --ccm-command ${shellQuote(own.command())}`)}`,
          `and its conformance run: ${commandHint('conformance', `--cloud ${persona.kind} --ccm command --ccm-command ${shellQuote(own.command())}`)}`,
        ]
      : []),
  ];
}

function tryLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  return [
    'Try:',
    '  kubectl get nodes -o wide',
    "  kubectl get nodes -o custom-columns='NAME:.metadata.name,PROVIDER-ID:.spec.providerID,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,ZONE:.metadata.labels.topology\\.kubernetes\\.io/zone,TAINTS:.spec.taints[*].key'",
    '  kubectl create deployment web --image=nginx --replicas=2 && kubectl get pods -o wide',
    '  kubectl expose deployment web --type=LoadBalancer --port=80 && kubectl get service web -w',
    `  ${commandHint('sandbox:status')}`,
    ...(sim ? [`  export SIMCLOUD_URL=${sim.url} SIMCLOUD_TOKEN=${sim.token}`, `  ${commandHint('simcloud', 'server list')}`] : []),
  ];
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * The steps in the order they started, each with when (steps run side by side where they can) and how
 * long; then the phases inside them on one line. "after" is the wall time to ready, not a sum.
 */
export function stepLines(state: SandboxState): string[] {
  const origin = Date.parse(state.startedAt);
  const at = (s: StepRecord): number => (s.startedAt ? Date.parse(s.startedAt) : Number.NaN);
  const byStart = (a: StepRecord, b: StepRecord): number => (at(a) || 0) - (at(b) || 0);
  const steps = [...state.steps].sort(byStart);
  const phases = [...(state.phases ?? [])].sort(byStart);
  return [
    ...steps.map((s) => {
      const start = Number.isNaN(origin) || Number.isNaN(at(s)) ? '' : ` at +${seconds(at(s) - origin)} s`;
      return `  ${s.name.padEnd(28)} ${seconds(s.durationMs).padStart(6)} s${start.padEnd(12)}${s.detail ? `  ${s.detail}` : ''}`.trimEnd();
    }),
    ...(phases.length > 0 ? [`  (within: ${phases.map((p) => `${p.name} ${seconds(p.durationMs)} s`).join(', ')})`] : []),
  ];
}

function readyAfterMs(state: SandboxState): number {
  const wall = Date.parse(state.readyAt ?? '') - Date.parse(state.startedAt);
  return Number.isNaN(wall) ? spanMs(state.steps) : wall;
}

export function renderSummary(state: SandboxState): string {
  const kc = state.kubeconfig ?? '(none)';
  const nameFlag = state.name === 'ccm-sandbox' ? '' : `--name ${state.name}`;
  return [
    `ccm-sandbox "${state.name}" is ${state.status} (${state.runtime} runtime, ${state.cloud !== DEFAULT_CLOUD ? `${state.cloud} persona` : `lb strategy ${state.lbStrategy}`}) after ${seconds(readyAfterMs(state))} s`,
    ...stepLines(state),
    '',
    ...endpoints(state),
    `  kubeconfig     ${kc}`,
    '',
    `  export KUBECONFIG=${kc}`,
    ...managementLines(state).map((l) => `  ${l}`),
    '',
    ...tryLines(state),
    '',
    ...(state.ccm?.kind === 'none' ? [...ownCcmLines(state), ''] : []),
    ...(personaOf(state) ? [...personaLines(state), ''] : []),
    'Next: open the console, curl the EXTERNAL-IP of web (the reply names the pod that served); then power a',
    `worker off (\`${commandHint('simcloud', 'server poweroff <id>')}\` or the console) and watch the node go NotReady, get`,
    'the shutdown taint, and its pods move to the other nodes.',
    `Logs: ${commandHint('sandbox:logs', '[ccm|simcloud|kube-apiserver|...]')}    Stop: ${commandHint('sandbox:down', nameFlag)}`,
  ].join('\n');
}
