// The learning track (docs/learn/) as a learner follows it: examples/minimal-ccm copied out of the repository
// and built there (a module of its own, nothing from go/), once per stage with that stage's build tags, gofmt
// clean; then each stage's conformance command, exactly as its page prints it, run on that
// stage's binary. Stages 1 and 2 are one program, so the lifecycle command (which checks node-init first)
// checks both. Last, --profile cloud on the same program fails node-init within seconds of every Node being
// initialised, naming the label only Hetzner's own CCM adds.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../sandbox/conformance/checks/nodes.ts';
import { ConformanceReport } from '../../sandbox/conformance/report.ts';
import { createExec } from '../../sandbox/exec.ts';
import { goEnv } from '../../sandbox/go-build.ts';
import { REPO_ROOT } from '../../sandbox/state.ts';

const exec = createExec();
const work = mkdtempSync(join(tmpdir(), 'ccm-learn-track-'));
const module = join(work, 'minimal-ccm');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The path the pages build to and run from, in a ccm-sandbox checkout. */
const DOC_BINARY = '$PWD/examples/minimal-ccm/bin/minimal-ccm';
const COMMON = '--cloud-provider=hcloud --leader-elect=false --bind-address=127.0.0.1 --secure-port=0 --webhook-secure-port=0';

interface Stage {
  readonly page: string;
  readonly tags: string;
  readonly only: string;
  readonly flags: string;
}

const NO_ROUTES = '--configure-cloud-routes=false';
const ROUTES = '--configure-cloud-routes=true --allocate-node-cidrs=false --cluster-cidr=$CCM_SANDBOX_CLUSTER_CIDR';

/** One conformance run per program: stage 1's command is a subset of stage 2's, on the same binary. */
const STAGES: readonly Stage[] = [
  { page: '03-lifecycle.md', tags: '', only: 'lifecycle', flags: NO_ROUTES },
  { page: '04-load-balancer.md', tags: 'loadbalancer', only: 'lb-basic', flags: NO_ROUTES },
  { page: '05-routes.md', tags: 'loadbalancer,routes', only: 'routes', flags: ROUTES },
];

/** The CCM command line of a stage, for `binary`. */
const ccmCommand = (binary: string, s: Stage): string => `${binary} ${COMMON} ${s.flags}`;

/** The conformance command as a page prints it (`$` of the slot's variables escaped for the shell). */
const pageCommand = (s: Pick<Stage, 'only' | 'flags'>, profile = ''): string =>
  `npm run conformance -- --cloud hcloud --ccm command --only ${s.only}${profile} --ccm-command "${ccmCommand(DOC_BINARY, s as Stage).replace('$CCM_SANDBOX', '\\$CCM_SANDBOX')}"`;

const binaryOf = (s: Pick<Stage, 'tags'>): string => join(work, `minimal-ccm-${s.tags || 'instances'}`);

async function conformance(s: Stage, ...extra: string[]): Promise<{ report: ConformanceReport; output: string; exitCode: number }> {
  const json = join(work, `report-${s.only}${extra.join('')}.json`);
  const res = await exec.run(
    process.execPath,
    [
      join(REPO_ROOT, 'sandbox/conformance/main.ts'),
      '--cloud',
      'hcloud',
      '--ccm',
      'command',
      '--only',
      s.only,
      ...extra,
      '--ccm-command',
      ccmCommand(binaryOf(s), s),
      '--json',
      json,
    ],
    { cwd: REPO_ROOT, env: { ...process.env, INIT_CWD: work }, allowFailure: true, timeoutMs: 300_000 },
  );
  return { report: ConformanceReport.parse(JSON.parse(readFileSync(json, 'utf8'))), output: res.stdout + res.stderr, exitCode: res.exitCode };
}

beforeAll(async () => {
  cpSync(join(REPO_ROOT, 'examples/minimal-ccm'), module, { recursive: true, filter: (src) => !src.includes('/bin') });
  const env = goEnv(process.env);
  // -trimpath and goEnv's CGO_ENABLED=0 as the upstream CCM's build (e2e's global setup) compiles k8s.io/* and
  // hcloud-go: every dependency comes from the Go build cache, and the three builds are mostly linking.
  for (const s of STAGES) {
    const tags = s.tags ? ['-tags', s.tags] : [];
    await exec.run('go', ['build', '-trimpath', ...tags, '-o', binaryOf(s), '.'], { cwd: module, env });
  }
}, 600_000);

describe('the learning track: examples/minimal-ccm outside the repository', () => {
  it('is gofmt-clean and imports nothing of ccm-sandbox', async () => {
    expect((await exec.run('gofmt', ['-l', '.'], { cwd: module })).stdout.trim()).toBe('');
    const imports = await exec.run('go', ['list', '-tags', 'loadbalancer,routes', '-deps', '.'], { cwd: module, env: goEnv(process.env) });
    expect(imports.stdout.split('\n').filter((p) => p.startsWith('ccm-sandbox'))).toEqual([]);
  });

  it("prints stage 1's check on its page: node-init, which stage 2's lifecycle run checks first on the same program", () => {
    expect(readFileSync(join(REPO_ROOT, 'docs/learn/02-instances.md'), 'utf8')).toContain(pageCommand({ only: 'node-init', flags: NO_ROUTES }));
  });

  it.each(STAGES)(
    'passes the check $page prints (--only $only)',
    async (s) => {
      expect(readFileSync(join(REPO_ROOT, 'docs/learn', s.page), 'utf8')).toContain(pageCommand(s));
      const { report, output, exitCode } = await conformance(s);
      expect(exitCode, output).toBe(0);
      expect(
        report.results.every((r) => r.verdict === 'pass'),
        output,
      ).toBe(true);
    },
    300_000,
  );

  it("fails node-init under --profile cloud as soon as the outcome is known, naming the label only Hetzner's CCM adds", async () => {
    const stage = STAGES[0]!;
    const { report, output, exitCode } = await conformance({ ...stage, only: 'node-init' }, '--profile', 'cloud');
    expect(exitCode, output).toBe(1);
    const [init] = report.results;
    expect(init?.message).toContain("label instance.hetzner.cloud/provided-by is null, want cloud (added by hcloud's own CCM, checked with --profile cloud)");
    // Decided once every Node was initialised and SETTLE_MS had passed, not by the timeout.
    expect(init?.message).toMatch(new RegExp(`^all 3 Nodes initialised, and ${SETTLE_MS / 1000} s later still: `));
  }, 300_000);
});
