// One real control plane per test worker, shared by every test file the worker runs (the integration
// and e2e projects run with isolate: false). Tests keep out of each other's way with unique names.
// The control plane stops when the worker exits: on SIGTERM through sandbox/shutdown.ts, otherwise
// through the reaper.
import type { KubeConfig } from '@kubernetes/client-node';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { PooledKubeConfig } from '../../sandbox/kube/pooled-kubeconfig.ts';
import { ControlPlane, type ControlPlaneOptions } from '../../sandbox/control-plane/control-plane.ts';

export interface TestCluster {
  readonly controlPlane: ControlPlane;
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
}

let shared: Promise<TestCluster> | undefined;

export async function startTestCluster(options: ControlPlaneOptions = {}): Promise<TestCluster> {
  const controlPlane = await ControlPlane.start(options);
  const kubeConfig = new PooledKubeConfig();
  kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
  return {
    controlPlane,
    kubeconfigPath: controlPlane.kubeconfigPath,
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
  };
}

/** The worker's control plane, started on first use. */
export function sharedControlPlane(): Promise<TestCluster> {
  shared ??= startTestCluster().catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

let counter = 0;

/** A name unique within the run, valid as a Kubernetes object name. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`.toLowerCase();
}
