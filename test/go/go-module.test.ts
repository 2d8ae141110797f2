// The Go modules: go/ (the upstream CCM) and each SDK contract module go/contract/<sdk>/ (a module of its own,
// docs/adr/0005-go-modules.md): gofmt, go vet and go test, each failing with the tool's own output. Go tests
// that need a real simcloud start one themselves (go/internal/simcloudtest), so this file needs nothing running.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GO_MODULE_DIR } from '../../sandbox/ccm/upstream.ts';
import { createExec } from '../../sandbox/exec.ts';
import { goAvailable, goEnv } from '../../sandbox/go-build.ts';

const exec = createExec();
const env = goEnv(process.env);

const contractDir = join(GO_MODULE_DIR, 'contract');
const modules = [
  GO_MODULE_DIR,
  ...readdirSync(contractDir)
    .map((name) => join(contractDir, name))
    .filter((dir) => existsSync(join(dir, 'go.mod'))),
];

async function go(cwd: string, args: readonly string[]): Promise<{ exitCode: number; output: string }> {
  const r = await exec.run('go', args, { cwd, env, allowFailure: true });
  return { exitCode: r.exitCode, output: `${r.stdout}${r.stderr}`.trim() };
}

beforeAll(async () => {
  if (!(await goAvailable(exec))) throw new Error('Go >= 1.26 is needed for the tests of the Go modules (go/): install it (Debian: golang-go) and run again');
});

describe('Go module go/', () => {
  it('is gofmt-clean (nested modules included)', async () => {
    const r = await exec.run('gofmt', ['-l', '.'], { cwd: GO_MODULE_DIR, env, allowFailure: true });
    expect(`${r.stderr}`.trim(), 'gofmt failed').toBe('');
    expect(r.stdout.trim(), 'files gofmt would change (run gofmt -w go/)').toBe('');
  });
});

describe.each(modules.map((dir) => ({ dir, name: `go/${relative(GO_MODULE_DIR, dir)}` })))('Go module $name', ({ dir, name }) => {
  it('passes go vet', async () => {
    const r = await go(dir, ['vet', './...']);
    expect(r.exitCode, r.output).toBe(0);
  });

  it('passes go test', async () => {
    // -count=1: Go caches test results by the test binary's own inputs, and a change to simcloud (which the
    // provider and contract tests run against) is not one of them.
    const r = await go(dir, ['test', '-count=1', './...']);
    expect(r.exitCode, r.output).toBe(0);
    console.log(`[figures] go test ./... in ${name}:\n${r.output}`);
  });
});
