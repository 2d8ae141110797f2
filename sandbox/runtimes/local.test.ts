import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControlPlane, ControlPlaneOptions } from '../control-plane/control-plane.ts';
import { createExec } from '../exec.ts';
import type { StepRecord } from '../state.ts';
import { LocalRuntime } from './local.ts';
import type { MachineSpec, RegisteredServer, RuntimeContext } from './runtime.ts';

/** A control plane start the test settles: what it was asked, and a fake ControlPlane to hand back. */
function fakeStart(dir: string) {
  let resolve!: (cp: ControlPlane) => void;
  let reject!: (e: Error) => void;
  const calls: ControlPlaneOptions[] = [];
  const promise = new Promise<ControlPlane>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  let stops = 0;
  const kubeconfigPath = join(dir, 'admin.kubeconfig');
  // Nothing listens on port 1: the fleet's clients fail at once and are closed by down().
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: demo',
      'clusters: [{name: demo, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: demo, user: {token: t}}]',
      'contexts: [{name: demo, context: {cluster: demo, user: demo}}]',
      '',
    ].join('\n'),
  );
  const controlPlane = {
    kubeconfigPath,
    options: { clusterCidr: '10.244.0.0/16' },
    stop: () => {
      stops += 1;
      return Promise.resolve();
    },
  } as unknown as ControlPlane;
  return {
    start: (o: ControlPlaneOptions) => {
      calls.push(o);
      return promise;
    },
    calls,
    controlPlane,
    apiReady: () => calls[0]?.onApiReady?.(controlPlane),
    resolve: () => resolve(controlPlane),
    reject,
    stops: () => stops,
  };
}

/** A cloud whose machines are provisioned when the test says so. */
function fakeCloud() {
  const pending: { spec: MachineSpec; done: (s: RegisteredServer) => void }[] = [];
  return {
    pending,
    cloud: {
      registerServer: (spec: MachineSpec) => new Promise<RegisteredServer>((done) => pending.push({ spec, done })),
      onPowerEvent: () => () => undefined,
    },
    provisionAll: () => {
      for (const [i, p] of pending.entries()) p.done({ id: `srv-${i}`, name: p.spec.name, publicIPv4: null, privateIPv4: null });
    },
  };
}

const drain = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the local runtime start', () => {
  let stateDir: string;
  let phases: StepRecord[];
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'local-runtime-test-'));
    phases = [];
  });
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  function setup() {
    const cp = fakeStart(stateDir);
    const cloud = fakeCloud();
    const runtime = new LocalRuntime({
      cloud: () => {
        throw new Error('no cloud in this test');
      },
      subscribe: () => () => undefined,
      startControlPlane: cp.start,
      nodePortStandIns: false,
      kubeletApi: false,
    });
    const base = {
      exec: createExec({ dryRun: true }),
      stateDir,
      name: 'demo',
      workers: 2,
      progress: () => undefined,
      phase: (r: StepRecord) => phases.push(r),
    };
    const ctx: RuntimeContext = { ...base, cloud: cloud.cloud, cloudEndpoint: 'http://127.0.0.1:1' };
    return { cp, cloud, runtime, base, ctx };
  }

  it('creates every machine at once while the control plane boots, and announces the API with its kubeconfig', async () => {
    const { cp, cloud, runtime, base, ctx } = setup();
    const access = runtime.prestart(base);
    const up = runtime.up(ctx).catch((e: unknown) => e);
    await drain();
    // One control plane for prestart() and up(); the machines do not wait for it.
    expect(cp.calls).toHaveLength(1);
    expect(cloud.pending.map((p) => `${p.spec.name} ${p.spec.role}`)).toEqual([
      'demo-control-plane control-plane',
      'demo-worker-1 worker',
      'demo-worker-2 worker',
    ]);
    cp.apiReady();
    await expect(access).resolves.toEqual({ kubeconfigPath: join(stateDir, 'kubeconfig'), clusterCidr: '10.244.0.0/16' });
    expect(readFileSync(join(stateDir, 'kubeconfig'), 'utf8')).toContain('kind: Config');
    // The start fails after the API was announced: up() fails with it once the machines are in and their
    // kubelets started, and down() has no control plane to stop.
    cp.reject(new Error('kube-controller-manager failed to start'));
    cloud.provisionAll();
    expect(((await up) as Error).message).toBe('kube-controller-manager failed to start');
    expect(phases.map((p) => `${p.name}${p.detail ? ` (${p.detail})` : ''}`)).toEqual(['machines created (3 servers)', 'kubelets registered']);
    await runtime.down(base);
    expect(cp.stops()).toBe(0);
    expect(existsSync(join(stateDir, 'control-plane'))).toBe(false);
  });

  it('fails prestart() with the start error when the control plane fails before its API serves', async () => {
    const { cp, runtime, base } = setup();
    const access = runtime.prestart(base);
    cp.reject(new Error('etcd failed to start'));
    await expect(access).rejects.toThrow('etcd failed to start');
    await runtime.down(base);
  });

  it('stops a control plane still booting when down() follows a prestart() whose up() never ran (simcloud failed)', async () => {
    const { cp, runtime, base } = setup();
    void runtime.prestart(base);
    let down = false;
    const stopping = runtime.down(base).then(() => (down = true));
    await drain();
    expect(down).toBe(false);
    cp.apiReady();
    cp.resolve();
    await stopping;
    expect(cp.stops()).toBe(1);
  });
});
