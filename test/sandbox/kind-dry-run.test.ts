// The kind runtime end to end against fakes: the exact command sequence of up, power actions, logs and
// down, the generated kind config, and what gets registered with the cloud, compared with golden files.
import { describe, expect, it } from 'vitest';
import { createExec, type Responder } from '../../sandbox/exec.ts';
import { DryRunCloud, kindResponder } from '../../sandbox/runtimes/dry-run-fakes.ts';
import { renderDryRunResult, runDryRun } from '../../sandbox/runtimes/dry-run.ts';
import { createKindRuntime, KIND_IMAGE_ENV } from '../../sandbox/runtimes/kind.ts';
import type { RuntimeContext } from '../../sandbox/runtimes/runtime.ts';
import { expectGolden, normalise } from './golden.ts';

const STATE = '/tmp/ccm-sandbox-golden/state/golden';
const IMAGE_137 = 'kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5';
const ALL_POWER = ['poweroff', 'poweron', 'reboot', 'delete'] as const;

async function golden(kind: Parameters<typeof runDryRun>[1]['kind'], workers: number): Promise<{ text: string; config: string }> {
  const result = await runDryRun('kind', { name: 'golden', workers, stateDir: STATE, powerActions: ALL_POWER, ...(kind ? { kind } : {}) });
  const text = normalise(renderDryRunResult('kind', result), { [STATE]: '<STATE>' });
  return { text, config: result.files.find((f) => f.path.endsWith('kind-config.yaml'))?.content ?? '' };
}

describe('kind runtime dry run', () => {
  it('Linux: dedicated docker network, kind create, node containers registered with their IPs, docker power actions, delete', async () => {
    const { text, config } = await golden({ image: IMAGE_137, platform: 'linux' }, 2);
    expectGolden('kind-linux.txt', text);
    expectGolden('kind-config-v1beta4.yaml', config);
    expect(text).toContain('--kubeconfig <STATE>/kubeconfig --wait 0s');
    expect(text).toContain('$ docker stop golden-worker');
    expect(createKindRuntime({ platform: 'linux' }).cloudNetwork()).toEqual({ range: '172.30.0.0/16', vipPool: '172.30.255.0/24' });
  });

  it('macOS: port mapping to loopback, servers registered with the loopback listen addresses', async () => {
    const { text } = await golden({ image: IMAGE_137, platform: 'darwin' }, 1);
    expectGolden('kind-macos.txt', text);
    expect(text).not.toContain('docker network create');
    expect(text).toContain('golden-worker worker private=127.10.0.11');
    expect(createKindRuntime({ platform: 'darwin' }).cloudNetwork()).toBeUndefined();
  });

  it('a Kubernetes 1.30 image gets kubeadm v1beta3 patches (kubeletExtraArgs as a map)', async () => {
    const { config } = await golden({ image: 'kindest/node:v1.30.13', platform: 'linux' }, 1);
    expectGolden('kind-config-v1beta3.yaml', config);
  });

  it('registers every node before up() resolves and stops mirroring power actions after down()', async () => {
    const exec = createExec({ dryRun: true, responder: kindResponder({ name: 'golden', workers: 2, dockerNetwork: 'ccm-sandbox-kind', prefix: '172.30.0' }) });
    const cloud = new DryRunCloud();
    const ctx: RuntimeContext = { exec, cloud, stateDir: STATE, name: 'golden', workers: 2, cloudEndpoint: 'http://127.0.0.1:1', progress: () => undefined };
    const runtime = createKindRuntime({ image: IMAGE_137, platform: 'linux' });
    const info = await runtime.up(ctx);
    expect(info.machines.map((m) => [m.name, m.privateIPv4])).toEqual([
      ['golden-control-plane', '172.30.0.2'],
      ['golden-worker', '172.30.0.3'],
      ['golden-worker2', '172.30.0.4'],
    ]);
    expect(info.clusterCidr).toBe('10.244.0.0/16');
    expect(cloud.subscribers).toBe(1);
    cloud.emit('not-a-node-of-this-cluster', 'poweroff');
    await runtime.whenIdle();
    expect(exec.records.some((r) => r.args.includes('not-a-node-of-this-cluster'))).toBe(false);
    await runtime.down(ctx);
    await runtime.down(ctx);
    expect(cloud.subscribers).toBe(0);
  });

  it('reuses a kind cluster that already exists instead of creating it', async () => {
    const base = kindResponder({ name: 'golden', workers: 0, dockerNetwork: 'ccm-sandbox-kind', prefix: '172.30.0' });
    const exec = createExec({ dryRun: true, responder: (r) => (r.args.join(' ') === 'get clusters' ? { stdout: 'other\ngolden\n' } : base(r)) });
    const ctx: RuntimeContext = {
      exec,
      cloud: new DryRunCloud(),
      stateDir: STATE,
      name: 'golden',
      workers: 0,
      cloudEndpoint: 'http://127.0.0.1:1',
      progress: () => undefined,
    };
    await createKindRuntime({ image: IMAGE_137, platform: 'linux' }).up(ctx);
    const lines = exec.records.map((r) => `${r.command} ${r.args.join(' ')}`);
    expect(lines).toContain(`kind export kubeconfig --name golden --kubeconfig ${STATE}/kubeconfig`);
    expect(lines.some((l) => l.startsWith('kind create cluster'))).toBe(false);
  });

  it('down() after a failed up() succeeds when there is no cluster, and fails loudly when one is left', async () => {
    const ctxWith = (responder: Responder): RuntimeContext => ({
      exec: createExec({ dryRun: true, responder }),
      cloud: new DryRunCloud(),
      stateDir: STATE,
      name: 'golden',
      workers: 1,
      cloudEndpoint: 'http://127.0.0.1:1',
      progress: () => undefined,
    });
    const noKind = ctxWith(() => ({ exitCode: 127, stderr: 'kind: command not found\n' }));
    await expect(createKindRuntime().down(noKind)).resolves.toBeUndefined();
    const stuck = ctxWith((r) =>
      r.args[0] === 'delete' ? { exitCode: 1, stderr: 'ERROR: failed to delete cluster "golden": permission denied\n' } : { stdout: 'golden\n' },
    );
    await expect(createKindRuntime().down(stuck)).rejects.toThrow(/still exists: ERROR: failed to delete cluster/);
  });

  it('without an image, up() fails before running anything and says how to get one', async () => {
    const exec = createExec({ dryRun: true });
    const ctx: RuntimeContext = {
      exec,
      cloud: new DryRunCloud(),
      stateDir: STATE,
      name: 'golden',
      workers: 1,
      cloudEndpoint: 'http://127.0.0.1:1',
      progress: () => undefined,
    };
    await expect(createKindRuntime({ env: {} }).up(ctx)).rejects.toThrow(new RegExp(`${KIND_IMAGE_ENV}.*\\n.*kind build node-image`));
    expect(exec.records).toEqual([]);
  });

  it('available() reports a missing engine or kind binary in one line', async () => {
    const noEngine = createExec({
      dryRun: true,
      responder: (r) =>
        r.command === 'docker'
          ? { exitCode: 1, stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n' }
          : {},
    });
    const r1 = await createKindRuntime().available({ exec: noEngine });
    expect(r1.ok).toBe(false);
    expect(r1.reason).toContain('Cannot connect to the Docker daemon');
    const noKind = createExec({ dryRun: true, responder: (r) => (r.command === 'docker' ? { stdout: '29.1.2\n' } : { exitCode: 127 }) });
    const r2 = await createKindRuntime().available({ exec: noKind });
    expect(r2.ok).toBe(false);
    expect(r2.reason).toContain('kind binary');
  });
});
