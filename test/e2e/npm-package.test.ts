// The npm package as a CCM author gets it: `npm pack` of this checkout, installed offline from the tarball
// alone into an empty directory (every runtime dependency travels in it: bundleDependencies; the optional
// `node` package, whose 126 MB binary the Node running this test stands in for, is left out), then
// `npx ccm-sandbox` from there: --version, and the conformance run's node-init on the upstream Go CCM. The run
// must find the control plane and the upstream CCM in the cache (the package carries exactly the Go sources
// the cache key hashes, so no build) and write nothing into this checkout or into the installed package.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedVersions } from '../../sandbox/control-plane/binaries.ts';
import { ConformanceReport } from '../../sandbox/conformance/report.ts';
import { createExec } from '../../sandbox/exec.ts';
import { REPO_ROOT } from '../../sandbox/state.ts';
import { SANDBOX_VERSION } from '../../sandbox/version.ts';
import { userShellEnv } from '../helpers/user-shell.ts';

const exec = createExec();
const dir = mkdtempSync(join(tmpdir(), 'ccm-npm-package-'));
const project = join(dir, 'my-ccm');
const installed = join(project, 'node_modules', 'ccm-sandbox');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = userShellEnv(dir);

/** Every file below `root` with its size and mtime: what a run must leave as it found it. */
function tree(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((f) => `${relative(root, f)} ${statSync(f).size} ${statSync(f).mtimeMs}`)
    .sort();
}

/** What a run could write into the checkout: changed or new files git sees, and anything under .sandbox/. */
async function checkoutWrites(): Promise<string[]> {
  const status = await exec.run('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: REPO_ROOT });
  const sandboxDir = join(REPO_ROOT, '.sandbox');
  let sandbox: string[] = [];
  try {
    sandbox = tree(sandboxDir);
  } catch {
    // no .sandbox/ in this checkout
  }
  return [...status.stdout.split('\n').filter((l) => l !== ''), ...sandbox];
}

let tarball = '';

beforeAll(async () => {
  const packed = await exec.run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: REPO_ROOT, env, timeoutMs: 240_000 });
  const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; entryCount: number }[];
  tarball = join(dir, info!.filename);
  console.log(`[figures] npm pack: ${info!.filename}, ${(info!.size / 1e6).toFixed(1)} MB, ${info!.entryCount} files`);
  mkdirSync(project);
  const started = Date.now();
  await exec.run('npm', ['install', '--offline', '--omit=optional', '--no-audit', '--no-fund', tarball], { cwd: project, env, timeoutMs: 240_000 });
  console.log(`[figures] npm install --offline of the tarball: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 600_000);

describe('the npm package, installed from its tarball alone', () => {
  it('carries the runtime and nothing of the tests, benches or docs', () => {
    const files = tree(installed)
      .map((l) => l.split(' ')[0]!)
      .filter((f) => !f.startsWith('node_modules/'));
    expect(files).toContain('bin/ccm-sandbox.mjs');
    expect(files).toContain('go/cmd/upstream-ccm/main.go');
    expect(files).toContain('sandbox/control-plane/gomod/go.mod');
    expect(files).toContain('sandbox/console/static/index.html');
    expect(files).toContain('deploy/rbac.yaml');
    expect(files).toContain('sandbox/kubelet/images/builtin.yaml');
    expect(files.filter((f) => /\.test\.ts$|_test\.go$|^test\/|^docs\/|^scripts\/bench|test-support/.test(f))).toEqual([]);
  });

  it('says its version and the Kubernetes release of its control plane, and names its own commands in its hints', async () => {
    const r = await exec.run('npx', ['ccm-sandbox', '--version'], { cwd: project, env });
    expect(r.stdout.trim()).toBe(`ccm-sandbox ${SANDBOX_VERSION} (Kubernetes ${pinnedVersions().kubernetes}, etcd ${pinnedVersions().etcd})`);
    const status = await exec.run('npx', ['ccm-sandbox', 'status', '--name', 'absent'], { cwd: project, env, allowFailure: true });
    expect({ exit: status.exitCode, stderr: status.stderr.trim() }).toEqual({
      exit: 2,
      stderr: 'ccm-sandbox: sandbox "absent" is not running: start it with `ccm-sandbox up`',
    });
  });

  it('passes node-init on the upstream Go CCM from the cached binaries, writing only where it was asked to', async () => {
    const before = { checkout: await checkoutWrites(), installed: tree(installed) };
    const started = Date.now();
    const res = await exec.run(
      'npx',
      ['ccm-sandbox', 'conformance', '--ccm', 'upstream', '--only', 'node-init', '--junit', 'junit.xml', '--json', 'report.json'],
      {
        cwd: project,
        env,
        allowFailure: true,
        timeoutMs: 300_000,
      },
    );
    console.log(`[figures] packed conformance run (node-init, upstream CCM): ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(res.exitCode, res.stdout + res.stderr).toBe(0);
    expect(res.stdout, 'the packed run built what the checkout had cached: the package does not carry what the cache key hashes').not.toMatch(
      /building (upstream-ccm|Kubernetes)/,
    );
    const report = ConformanceReport.parse(JSON.parse(readFileSync(join(project, 'report.json'), 'utf8')));
    expect(report.results.map((r) => [r.capability, r.verdict])).toEqual([['node-init', 'pass']]);
    expect(report).toMatchObject({ ccm: 'upstream', sandboxVersion: SANDBOX_VERSION, kubernetesVersion: pinnedVersions().kubernetes });
    expect(readFileSync(join(project, 'junit.xml'), 'utf8')).toContain(`<property name="kubernetes-version" value="${pinnedVersions().kubernetes}"/>`);
    expect(await checkoutWrites()).toEqual(before.checkout);
    expect(tree(installed)).toEqual(before.installed);
  }, 360_000);
});
