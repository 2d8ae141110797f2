// What `up` prints at the end (and `status` at the top): where everything is and what to try next, and
// for an empty CCM slot (`--ccm none`) exactly how to run a CCM of one's own against this sandbox.
import { dirname } from 'node:path';
import { shellQuote } from '../exec.ts';
import { commandCcmEnv, upstreamArgsFor } from '../ccm/launch.ts';
import {
  digitaloceanCcmCommand, digitaloceanCcmEnv, digitaloceanRegionOf, digitaloceanUrl, hcloudCcmCommand, hcloudEndpoint, linodeCcmCommand, linodeCcmEnv, linodeRegionOf, linodeUrl,
} from '../cloud/clouds.ts';
import { SANDBOX_DEFAULTS } from '../cloud/sandbox-cloud.ts';
import { commandLine } from '../ccm/slot.ts';
import type { SandboxState } from '../state.ts';

function endpoints(state: SandboxState): string[] {
  const sim = state.simcloud;
  return [
    `  console        ${state.consoleUrl ?? '-'}`,
    `  simcloud API   ${sim ? `${sim.url}  (SIMCLOUD_TOKEN=${sim.token})` : '-'}`,
    ...(state.cloud === 'hcloud' && sim ? [`  hcloud API     ${hcloudEndpoint(sim.url)}  (HCLOUD_TOKEN=${sim.token})`] : []),
    ...(state.cloud === 'linode' && sim ? [`  Linode API     ${linodeUrl(sim.url)}  (LINODE_API_TOKEN=${sim.token})`] : []),
    ...(state.cloud === 'digitalocean' && sim ? [`  DO API         ${digitaloceanUrl(sim.url)}v2  (DO_ACCESS_TOKEN=${sim.token})`] : []),
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
    network: state.name,
    lbStrategy: state.lbStrategy === 'ip-block' ? ('ip-block' as const) : ('lb' as const),
    cloud: state.cloud,
  };
  const env = Object.entries(commandCcmEnv(ctx, kubeconfig)).map(([k, v]) => `  export ${k}=${shellQuote(v)}`);
  const flags = upstreamArgsFor(ctx, kubeconfig, 10258).map((a) => `    ${shellQuote(a)}`);
  return [
    'Run your own CCM: its environment (KUBECONFIG is its own identity, the ServiceAccount',
    'kube-system/cloud-controller-manager with a deployed CCM\'s RBAC, not the admin):',
    ...env,
    'and, for the upstream CCM (`npm run go:build` prints its path), these flags:',
    `  upstream-ccm \\\n${flags.join(' \\\n')}`,
  ];
}

/** The Hetzner persona: its environment, and how to run Hetzner's own CCM in the slot. */
export function hcloudLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  if (state.cloud !== 'hcloud' || !sim) return [];
  const nameFlag = state.name === 'ccm-sandbox' ? '' : ` --name ${state.name}`;
  return [
    'Hetzner persona: the servers and the network were made through the hcloud API; any hcloud-go program',
    '(the hcloud CLI, Hetzner\'s CCM, the tutorial\'s CCM) works against it with:',
    `  export HCLOUD_ENDPOINT=${hcloudEndpoint(sim.url)} HCLOUD_TOKEN=${sim.token} HCLOUD_NETWORK=${state.name}`,
    'Hetzner\'s own CCM in the slot (hcloud-cloud-controller-manager on your PATH; the slot passes the',
    'HCLOUD_* variables above, its kubeconfig and the pod network):',
    `  npm run sandbox:up --${nameFlag} --cloud hcloud --ccm command --ccm-command ${shellQuote(hcloudCcmCommand())}`,
  ];
}

/** The Linode persona: the environment Linode's CCM reads, and how to run it in the slot. */
export function linodeLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  if (state.cloud !== 'linode' || !sim) return [];
  const nameFlag = state.name === 'ccm-sandbox' ? '' : ` --name ${state.name}`;
  const env = linodeCcmEnv({ simcloudUrl: sim.url, token: sim.token, region: linodeRegionOf(SANDBOX_DEFAULTS.zone) });
  return [
    'Linode persona: the machines are Linode instances made through the Linode API v4; any linodego program',
    '(linode-cli, Linode\'s CCM) works against it with:',
    `  export ${Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ')}`,
    'Linode\'s own CCM in the slot (linode-cloud-controller-manager on your PATH; the slot passes the',
    'LINODE_* variables above and its kubeconfig; its route controller off, as by default; docs/personas.md shows how to turn it on):',
    `  npm run sandbox:up --${nameFlag} --cloud linode --ccm command --ccm-command ${shellQuote(linodeCcmCommand())}`,
  ];
}

/** The DigitalOcean persona: the environment DigitalOcean's CCM reads, and how to run it in the slot. */
export function digitaloceanLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  if (state.cloud !== 'digitalocean' || !sim) return [];
  const nameFlag = state.name === 'ccm-sandbox' ? '' : ` --name ${state.name}`;
  const env = digitaloceanCcmEnv({ simcloudUrl: sim.url, token: sim.token, region: digitaloceanRegionOf(SANDBOX_DEFAULTS.zone) });
  return [
    'DigitalOcean persona: the machines are droplets made through the DigitalOcean API v2; any godo program',
    '(doctl, DigitalOcean\'s CCM) works against it with:',
    `  export ${Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ')}`,
    'DigitalOcean\'s own CCM in the slot (digitalocean-cloud-controller-manager on your PATH; the slot passes',
    'the variables above and its kubeconfig; no routes: DigitalOcean\'s CCM has no route controller):',
    `  npm run sandbox:up --${nameFlag} --cloud digitalocean --ccm command --ccm-command ${shellQuote(digitaloceanCcmCommand())}`,
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
    '  npm run sandbox:status',
    ...(sim ? [`  export SIMCLOUD_URL=${sim.url} SIMCLOUD_TOKEN=${sim.token}`, '  npm run simcloud -- server list'] : []),
  ];
}

export function renderSummary(state: SandboxState): string {
  const total = state.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const kc = state.kubeconfig ?? '(none)';
  const nameFlag = state.name === 'ccm-sandbox' ? '' : ` -- --name ${state.name}`;
  return [
    `ccm-sandbox "${state.name}" is ${state.status} (${state.runtime} runtime, ${state.cloud !== 'simcloud' ? `${state.cloud} persona` : `lb strategy ${state.lbStrategy}`}) after ${(total / 1000).toFixed(1)} s`,
    ...state.steps.map((s) => `  ${s.name.padEnd(28)} ${(s.durationMs / 1000).toFixed(1).padStart(6)} s${s.detail ? `  ${s.detail}` : ''}`),
    '',
    ...endpoints(state),
    `  kubeconfig     ${kc}`,
    '',
    `  export KUBECONFIG=${kc}`,
    '',
    ...tryLines(state),
    '',
    ...(state.ccm?.kind === 'none' ? [...ownCcmLines(state), ''] : []),
    ...(state.cloud === 'hcloud' ? [...hcloudLines(state), ''] : []),
    ...(state.cloud === 'linode' ? [...linodeLines(state), ''] : []),
    ...(state.cloud === 'digitalocean' ? [...digitaloceanLines(state), ''] : []),
    'Next: open the console, curl the EXTERNAL-IP of web (the reply names the pod that served); then power a',
    'worker off (`npm run simcloud -- server poweroff <id>` or the console) and watch the node go NotReady, get',
    'the shutdown taint, and its pods move to the other nodes.',
    `Logs: npm run sandbox:logs -- [ccm|simcloud|kube-apiserver|...]    Stop: npm run sandbox:down${nameFlag}`,
  ].join('\n');
}
