// The GitHub Action (action.yml) as a CCM repository uses it, on this machine: actionlint (built from the Go
// module proxy) on the workflow example of docs/ with the Action as a local one, then the Action's `run:`
// steps in order, with the example's own inputs (its `./bin/my-ccm` being the upstream Go CCM's hcloud
// provider) and `only: node-init`. The `uses:` steps (setup-node, setup-go, cache, upload-artifact) stand
// outside: this test's Node 24 and Go stand in for the first two. The Action's directory is a copy of this
// checkout's files, as GitHub downloads it; its `npm ci` runs offline from npm's cache.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { ConformanceReport } from '../../sandbox/conformance/report.ts';
import { pinnedVersions } from '../../sandbox/control-plane/binaries.ts';
import { createExec, type RunResult } from '../../sandbox/exec.ts';
import { REPO_ROOT } from '../../sandbox/state.ts';
import { userShellEnv } from '../helpers/user-shell.ts';

const ACTIONLINT = 'github.com/rhysd/actionlint/cmd/actionlint@v1.7.12';
const exec = createExec();
const dir = mkdtempSync(join(tmpdir(), 'ccm-action-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Step = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  shell: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
});
type Step = z.infer<typeof Step>;
const Action = z.object({
  inputs: z.record(z.string(), z.object({ required: z.boolean().optional(), default: z.string().optional() })),
  runs: z.object({ using: z.literal('composite'), steps: z.array(Step) }),
});
const Workflow = z.object({
  jobs: z.record(z.string(), z.object({ steps: z.array(z.object({ uses: z.string().optional(), with: z.record(z.string(), z.string()).optional() })) })),
});

const action = Action.parse(load(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')));
const exampleText = readFileSync(join(REPO_ROOT, 'docs', 'conformance-workflow.yml'), 'utf8');
const exampleUse = Object.values(Workflow.parse(load(exampleText)).jobs)
  .flatMap((j) => j.steps)
  .find((s) => s.uses?.includes('/ccm-sandbox@'));

type Context = Record<string, Record<string, unknown>>;

/** `${{ a.b.c }}` as GitHub expands it, for the plain property lookups the Action's run steps use. */
function expand(text: string, context: Context): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
    const value = path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), context);
    if (typeof value !== 'string') throw new Error(`${path} is not a string in this test's expression context`);
    return value;
  });
}

/** Runs one `run:` step as the runner does a composite's bash step; its GITHUB_OUTPUT lands in the context. */
async function runStep(step: Step, context: Context, base: Record<string, string>, cwd: string): Promise<RunResult> {
  const outputFile = join(dir, `output-${step.id ?? 'step'}`);
  writeFileSync(outputFile, '');
  const env = { ...base, GITHUB_OUTPUT: outputFile, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, context)])) };
  const r = await exec.run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', expand(step.run ?? '', context)], {
    cwd,
    env,
    allowFailure: true,
    timeoutMs: 300_000,
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  if (step.id) context.steps = { ...context.steps, [step.id]: { outputs } };
  return r;
}

/** The Action's directory as GitHub downloads it: this checkout's files (tracked and new, not ignored), no .git. */
async function actionCopy(to: string): Promise<void> {
  const listed = await exec.run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--deduplicate'], { cwd: REPO_ROOT });
  for (const file of listed.stdout.split('\n').filter((f) => f !== '')) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    try {
      copyFileSync(join(REPO_ROOT, file), join(to, file));
    } catch {
      // tracked but deleted in the working tree: not part of what would be pushed
    }
  }
}

describe('the GitHub Action', () => {
  it('passes actionlint, used as the workflow example in docs/ uses it', async () => {
    const repo = join(dir, 'lint');
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    await exec.run('git', ['init', '-q', repo]);
    copyFileSync(join(REPO_ROOT, 'action.yml'), join(repo, 'action.yml'));
    writeFileSync(join(repo, '.github', 'workflows', 'conformance.yml'), exampleText.replace(/uses: \S+\/ccm-sandbox@\S+/, 'uses: ./'));
    const r = await exec.run('go', ['run', ACTIONLINT, '.github/workflows/conformance.yml'], {
      cwd: repo,
      env: { ...process.env, GOFLAGS: '', GOTOOLCHAIN: 'local' },
      allowFailure: true,
      timeoutMs: 600_000,
    });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
  }, 660_000);

  it("runs its steps on a CCM repository's checkout: the example's CCM passes node-init, the reports land where asked, and a failing run fails the job", async () => {
    const actionPath = join(dir, 'action');
    const workspace = join(dir, 'my-ccm');
    await actionCopy(actionPath);
    mkdirSync(join(workspace, 'bin'), { recursive: true });
    symlinkSync(await ensureUpstreamCcmBinary({ exec }), join(workspace, 'bin', 'my-ccm'));
    const inputs = {
      ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])),
      ...exampleUse?.with,
      only: 'node-init',
      junit: 'reports/conformance.xml',
    };
    const context: Context = { inputs, steps: {}, github: { action_path: actionPath }, runner: { temp: join(dir, 'runner-temp'), os: 'Linux', arch: 'X64' } };
    const base = {
      ...userShellEnv(dir),
      GITHUB_ACTION_PATH: actionPath,
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: join(dir, 'runner-temp'),
      npm_config_offline: 'true',
    };
    const started = Date.now();
    const ran: string[] = [];
    for (const step of action.runs.steps.filter((s) => s.run !== undefined)) {
      const r = await runStep(step, context, base, workspace);
      ran.push(step.name ?? step.id ?? '?');
      expect(r.exitCode, `step "${ran.at(-1)}":\n${r.stdout}${r.stderr}`).toBe(0);
    }
    console.log(`[figures] the Action's run steps (npm ci, versions, conformance node-init, verdict): ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(ran).toEqual(["Install ccm-sandbox's runtime dependencies", 'Versions', 'Conformance', 'Verdict']);
    expect(context.steps).toMatchObject({ versions: { outputs: { kubernetes: pinnedVersions().kubernetes } }, run: { outputs: { 'exit-code': '0' } } });
    const report = ConformanceReport.parse(JSON.parse(readFileSync(join(workspace, 'ccm-conformance.json'), 'utf8')));
    expect(report).toMatchObject({ cloud: 'hcloud', ccm: 'command', kubernetesVersion: pinnedVersions().kubernetes });
    expect(report.results.map((r) => [r.capability, r.verdict])).toEqual([['node-init', 'pass']]);
    expect(readFileSync(join(workspace, 'reports', 'conformance.xml'), 'utf8')).toContain('<property name="cloud" value="hcloud"/>');

    // The verdict step of a run whose capability failed: the job fails with an annotation.
    const verdict = action.runs.steps.find((s) => s.name === 'Verdict')!;
    const failed = await runStep(verdict, { ...context, steps: { ...context.steps, run: { outputs: { 'exit-code': '1' } } } }, base, workspace);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toContain('::error title=ccm-sandbox conformance::a capability failed');
  }, 600_000);
});
