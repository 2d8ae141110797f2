// `vagrant validate` of the top-level Vagrantfile (runs in CI, where .ci/run installs Debian's vagrant).
// Without VirtualBox installed, vagrant refuses to validate for the virtualbox provider ("could not detect
// VirtualBox"), so the VirtualBox case then runs with --ignore-provider (everything but the provider
// block). The libvirt case is a full validation when the vagrant-libvirt plugin is present (Debian
// recommends it), where unknown libvirt settings are errors. Skipped only when vagrant is not installed.
import { accessSync, constants, copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExec, type RunResult } from '../../sandbox/exec.ts';
import { REPO_ROOT } from './golden.ts';

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const HAS_VAGRANT = onPath('vagrant');
if (!HAS_VAGRANT)
  console.warn('test/sandbox/vagrant-validate: the vagrant binary is not on PATH; skipping `vagrant validate` (CI installs it: apt-get install vagrant)');

const exec = createExec();
const dotDir = mkdtempSync(join(tmpdir(), 'ccm-vagrant-validate-'));
afterAll(() => rmSync(dotDir, { recursive: true, force: true }));

async function validate(env: Record<string, string>, args: string[] = [], cwd = REPO_ROOT): Promise<RunResult> {
  return exec.run('vagrant', ['validate', '--no-color', ...args], {
    allowFailure: true,
    timeoutMs: 90_000,
    env: { VAGRANT_CWD: cwd, VAGRANT_DOTFILE_PATH: join(dotDir, 'dot'), CCM_SANDBOX_WORKERS: '2', ...env },
  });
}

const VALID = 'Vagrantfile validated successfully.';

describe.skipIf(!HAS_VAGRANT)('vagrant validate (Vagrantfile)', { timeout: 120_000 }, () => {
  it('validates for VirtualBox, the default provider (provider block ignored when VirtualBox is not installed)', async () => {
    const args = onPath('VBoxManage') ? [] : ['--ignore-provider'];
    const out = await validate({ VAGRANT_DEFAULT_PROVIDER: 'virtualbox' }, args);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain(VALID);
    expect(out.exitCode).toBe(0);
  });

  it('validates for libvirt (fully, provider block included, when the vagrant-libvirt plugin is installed)', async () => {
    const plugins = await exec.run('vagrant', ['plugin', 'list'], { allowFailure: true, timeoutMs: 60_000 });
    const args = plugins.stdout.includes('vagrant-libvirt') ? [] : ['--ignore-provider'];
    const out = await validate({ VAGRANT_DEFAULT_PROVIDER: 'libvirt' }, args);
    expect(out.stdout).toContain(VALID);
    expect(out.exitCode).toBe(0);
  });

  it('validates with no workers and with five', async () => {
    for (const workers of ['0', '5']) {
      const out = await validate({ VAGRANT_DEFAULT_PROVIDER: 'virtualbox', CCM_SANDBOX_WORKERS: workers }, ['--ignore-provider']);
      expect(out.stdout, `CCM_SANDBOX_WORKERS=${workers}`).toContain(VALID);
    }
  });

  it('rejects a bad setting with a message naming it', async () => {
    const out = await validate({ CCM_SANDBOX_NAME: 'Not_A_DNS_Label' }, ['--ignore-provider']);
    expect(out.exitCode).not.toBe(0);
    expect(out.stdout + out.stderr).toContain('CCM_SANDBOX_NAME must be a DNS label');
  });

  it('fails when the provisioning scripts are missing (validate checks them)', async () => {
    const bare = mkdtempSync(join(dotDir, 'bare-'));
    copyFileSync(join(REPO_ROOT, 'Vagrantfile'), join(bare, 'Vagrantfile'));
    const out = await validate({}, ['--ignore-provider'], bare);
    expect(out.exitCode).not.toBe(0);
    expect(out.stdout + out.stderr).toContain('sandbox/vagrant/');
  });
});

describe('provisioning scripts', () => {
  it('parse as bash', async () => {
    const dir = join(REPO_ROOT, 'sandbox', 'vagrant');
    for (const script of readdirSync(dir).filter((f) => f.endsWith('.sh'))) {
      const out = await exec.run('bash', ['-n', join(dir, script)], { allowFailure: true });
      expect(out.stderr, script).toBe('');
      expect(out.exitCode, script).toBe(0);
    }
  });
});
