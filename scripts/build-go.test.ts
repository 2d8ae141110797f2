import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'build-go-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const script = new URL('./build-go.ts', import.meta.url).pathname;

describe('npm run go:build', () => {
  it('prints the binary and the version it reports', async () => {
    const binary = join(dir, 'upstream-ccm');
    writeFileSync(binary, '#!/bin/sh\necho Kubernetes v1.37.1\n');
    chmodSync(binary, 0o755);
    const r = await execa(process.execPath, [script], { env: { UPSTREAM_CCM_BINARY: binary }, reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`upstream-ccm ${binary}  (Kubernetes v1.37.1)`);
  });

  it('fails in one line naming what to fix', async () => {
    const r = await execa(process.execPath, [script], { env: { UPSTREAM_CCM_BINARY: join(dir, 'missing') }, reject: false });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`go:build: UPSTREAM_CCM_BINARY=${join(dir, 'missing')} is not an executable file`]);
  });
});
