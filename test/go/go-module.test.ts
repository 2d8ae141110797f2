// The Go module (go/): gofmt, go vet and go test, each failing with the tool's own output. Go tests that need
// a real simcloud start one themselves (go/internal/simcloudtest), so this file needs nothing running.
import { beforeAll, describe, expect, it } from 'vitest';
import { GO_MODULE_DIR } from '../../sandbox/ccm/upstream.ts';
import { createExec } from '../../sandbox/exec.ts';
import { goAvailable, goEnv } from '../../sandbox/go-build.ts';

const exec = createExec();
const env = goEnv(process.env);

async function go(args: readonly string[]): Promise<{ exitCode: number; output: string }> {
  const r = await exec.run('go', args, { cwd: GO_MODULE_DIR, env, allowFailure: true });
  return { exitCode: r.exitCode, output: `${r.stdout}${r.stderr}`.trim() };
}

describe('Go module go/', () => {
  beforeAll(async () => {
    if (!(await goAvailable(exec))) throw new Error('Go >= 1.26 is needed for the tests of the Go module (go/): install it (Debian: golang-go) and run again');
  });

  it('is gofmt-clean', async () => {
    const r = await exec.run('gofmt', ['-l', '.'], { cwd: GO_MODULE_DIR, env, allowFailure: true });
    expect(`${r.stderr}`.trim(), 'gofmt failed').toBe('');
    expect(r.stdout.trim(), 'files gofmt would change (run gofmt -w go/)').toBe('');
  });

  it('passes go vet', async () => {
    const r = await go(['vet', './...']);
    expect(r.exitCode, r.output).toBe(0);
  });

  it('passes go test', async () => {
    // -count=1: Go caches test results by the test binary's own inputs, and a change to simcloud (which the
    // provider tests run against) is not one of them.
    const r = await go(['test', '-count=1', './...']);
    expect(r.exitCode, r.output).toBe(0);
    console.log(`[figures] go test ./...:\n${r.output}`);
  });
});
