// `env --cloud X`: the export lines that point any program at a running sandbox as cloud X: the cloud's own
// variables (its token, and the persona's URLs for tools that take them) and, for a cloud with real API
// hostnames, the interception proxy's (HTTPS_PROXY, SSL_CERT_FILE, NO_PROXY), so a tool that knows nothing of
// the sandbox reaches the persona at the cloud's real URLs: `eval "$(npm run -s sandbox:env -- --cloud hcloud)"`.
import { shellQuote } from '../exec.ts';
import { cloudCcmEnv } from '../ccm/launch.ts';
import { processAlive, readState, stateDir, type SandboxState } from '../state.ts';
import { UsageError, type CliOptions } from './args.ts';
import { commandHint } from './hint.ts';

/** The state of the running sandbox `name`; a usage error naming how to start it otherwise. */
export function runningState(name: string): SandboxState {
  const state = readState(stateDir(name));
  if (!state || !processAlive(state.pid)) throw new UsageError(`sandbox "${name}" is not running: start it with \`${commandHint('sandbox:up')}\``);
  return state;
}

export function envLines(state: SandboxState, cloud: CliOptions['cloud']): string[] {
  if (!state.simcloud) throw new UsageError(`sandbox "${state.name}" has no simcloud yet: wait for \`${commandHint('sandbox:up')}\` to finish`);
  const lbStrategy = state.lbStrategy === 'ip-block' ? 'ip-block' : 'lb';
  const env = cloudCcmEnv({ simcloud: state.simcloud, intercept: state.intercept, network: state.name, lbStrategy, cloud });
  return [...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`), ...managementLines(state)];
}

/**
 * The local runtime's cluster is its own Cluster API management cluster (sandbox/capi/): tools that scale
 * its MachineDeployment, as Linode's e2e suite does, take its kubeconfig as MGMT_KUBECONFIG.
 */
export function managementLines(state: Pick<SandboxState, 'runtime' | 'kubeconfig'>): string[] {
  return state.runtime === 'local' && state.kubeconfig ? [`export MGMT_KUBECONFIG=${shellQuote(state.kubeconfig)}`] : [];
}

export function env(o: CliOptions): number {
  for (const line of envLines(runningState(o.name), o.cloud)) console.log(line);
  return 0;
}
