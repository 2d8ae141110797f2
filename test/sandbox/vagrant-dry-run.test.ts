// The vagrant runtime end to end against fakes: the command sequence (with the Vagrantfile's settings as
// environment) of up, discovery, power actions, logs and down, compared with golden files.
import { describe, expect, it } from 'vitest';
import { createExec } from '../../sandbox/exec.ts';
import { DryRunCloud, vagrantResponder } from '../../sandbox/runtimes/dry-run-fakes.ts';
import { renderDryRunResult, runDryRun } from '../../sandbox/runtimes/dry-run.ts';
import type { RuntimeContext } from '../../sandbox/runtimes/runtime.ts';
import { createVagrantRuntime } from '../../sandbox/runtimes/vagrant.ts';
import { expectGolden, normalise, REPO_ROOT } from './golden.ts';

const STATE = '/tmp/ccm-sandbox-golden/state/golden';
const ALL_POWER = ['poweroff', 'poweron', 'reboot', 'delete'] as const;

async function render(provider: 'virtualbox' | 'libvirt', workers: number): Promise<string> {
  const result = await runDryRun('vagrant', { name: 'golden', workers, stateDir: STATE, powerActions: ALL_POWER, vagrant: { provider } });
  return normalise(renderDryRunResult('vagrant', result), { [STATE]: '<STATE>', [REPO_ROOT]: '<REPO>' });
}

describe('vagrant runtime dry run', () => {
  it('VirtualBox: vagrant up, machines discovered with their host-only IPs, power actions, logs, destroy', async () => {
    const text = await render('virtualbox', 2);
    expectGolden('vagrant-virtualbox.txt', text);
    expect(text).toContain('VAGRANT_DOTFILE_PATH=<STATE>/vagrant');
    expect(text).toContain('SIMCLOUD_ENDPOINT=http://192.168.56.1:8787');
    expect(createVagrantRuntime().cloudNetwork()).toEqual({ range: '192.168.56.0/24' });
  });

  it('libvirt with one worker', async () => {
    expectGolden('vagrant-libvirt.txt', await render('libvirt', 1));
  });

  it('addWorker brings up one more machine and registers it', async () => {
    const exec = createExec({ dryRun: true, responder: vagrantResponder({ name: 'golden', workers: 2, network: '192.168.56', provider: 'virtualbox' }) });
    const cloud = new DryRunCloud();
    const ctx: RuntimeContext = { exec, cloud, stateDir: STATE, name: 'golden', workers: 1, cloudEndpoint: 'http://127.0.0.1:1', progress: () => undefined };
    const runtime = createVagrantRuntime({ provider: 'virtualbox' });
    await runtime.up(ctx);
    const added = await runtime.addWorker(ctx);
    expect(added).toMatchObject({ name: 'golden-worker-2', privateIPv4: '192.168.56.12' });
    const up = exec.records.at(-2);
    expect([up?.command, ...(up?.args ?? [])]).toEqual(['vagrant', 'up', 'golden-worker-2', '--provider', 'virtualbox']);
    expect(up?.env?.CCM_SANDBOX_WORKERS).toBe('2');
  });

  it('down() succeeds without vagrant (nothing was created) and fails when vagrant cannot destroy', async () => {
    const ctxWith = (fail: 'all' | 'destroy'): RuntimeContext => ({
      exec: createExec({
        dryRun: true,
        responder: (r) =>
          fail === 'all' || r.args[0] === 'destroy'
            ? { exitCode: 1, stderr: 'The provider for this Vagrant-managed machine is reporting that it is not yet ready\n' }
            : {},
      }),
      cloud: new DryRunCloud(),
      stateDir: STATE,
      name: 'golden',
      workers: 1,
      cloudEndpoint: 'http://127.0.0.1:1',
      progress: () => undefined,
    });
    await expect(createVagrantRuntime({ provider: 'virtualbox' }).down(ctxWith('all'))).resolves.toBeUndefined();
    await expect(createVagrantRuntime({ provider: 'virtualbox' }).down(ctxWith('destroy'))).rejects.toThrow(/vagrant destroy -f failed: The provider/);
  });

  it('available() needs vagrant and a provider', async () => {
    const none = createExec({ dryRun: true, responder: () => ({ exitCode: 127 }) });
    expect((await createVagrantRuntime().available({ exec: none })).reason).toContain('vagrant is not installed');
    const noProvider = createExec({ dryRun: true, responder: (r) => (r.command === 'vagrant' ? { stdout: 'Vagrant 2.3.4\n' } : { exitCode: 127 }) });
    const env = process.env.VAGRANT_DEFAULT_PROVIDER;
    delete process.env.VAGRANT_DEFAULT_PROVIDER;
    try {
      expect((await createVagrantRuntime().available({ exec: noProvider })).reason).toContain('no Vagrant provider');
    } finally {
      if (env !== undefined) process.env.VAGRANT_DEFAULT_PROVIDER = env;
    }
  });
});
