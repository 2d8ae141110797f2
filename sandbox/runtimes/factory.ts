// Chooses and constructs a runtime. `auto` picks kind when a Docker engine and the kind binary are both
// available, else local (which needs neither).
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import type { SimcloudSandboxCloud } from '../cloud/sandbox-cloud.ts';
import type { Exec } from '../exec.ts';
import type { RunImage } from '../kubelet/images/runnable.ts';
import { RUNTIME_NAMES, type Runtime, type RuntimeName } from './runtime.ts';

export type RuntimeChoice = RuntimeName | 'auto';

export interface RuntimeDeps {
  /** The sandbox's cloud, available once simcloud runs (runtimes are created before it starts). */
  readonly cloud: () => SimcloudSandboxCloud;
  readonly subscribe: (handler: (event: SimEvent) => void) => () => void;
  readonly progress?: ((message: string) => void) | undefined;
  /** The cloud's load balancers are addresses a node announces (kube-vip): the local runtime stands in for it. */
  readonly kubeVip?: boolean;
  /** Images whose containers the local runtime runs as processes, and the network they get. */
  readonly runImages?: readonly RunImage[];
  readonly containerNetworkEnv?: () => Readonly<Record<string, string>>;
}

export async function resolveRuntime(choice: RuntimeChoice, exec: Exec): Promise<RuntimeName> {
  if (choice !== 'auto') return choice;
  const { kindAvailable } = await import('./kind.ts');
  return (await kindAvailable(exec)).ok ? 'kind' : 'local';
}

export async function createRuntime(name: RuntimeName, deps: RuntimeDeps): Promise<Runtime> {
  const onError = (m: string): void => deps.progress?.(`warning: ${m}`);
  switch (name) {
    case 'local': {
      // Loaded on demand like the others: the CLI resolves a runtime without loading the control plane.
      const { LocalRuntime } = await import('./local.ts');
      return new LocalRuntime({
        cloud: deps.cloud,
        subscribe: deps.subscribe,
        onError,
        ...(deps.kubeVip === true ? { kubeVip: true } : {}),
        ...(deps.runImages?.length ? { runImages: deps.runImages } : {}),
        ...(deps.containerNetworkEnv ? { containerNetworkEnv: deps.containerNetworkEnv } : {}),
      });
    }
    case 'kind':
      return (await import('./kind.ts')).createKindRuntime();
    case 'vagrant':
      return (await import('./vagrant.ts')).createVagrantRuntime();
    case 'existing':
      return (await import('./existing.ts')).createExistingRuntime();
  }
}

export function isRuntimeChoice(value: string): value is RuntimeChoice {
  return value === 'auto' || (RUNTIME_NAMES as readonly string[]).includes(value);
}
