import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { z } from 'zod';
import { buildCcmBundle } from './build.ts';

const dir = mkdtempSync(join(tmpdir(), 'ccm-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CCM bundle (npm run build)', () => {
  it('runs on its own, from a directory without node_modules, and rejects a bad flag in one line', async () => {
    const out = join(dir, 'ccm.mjs');
    expect(await buildCcmBundle(out)).toBeGreaterThan(0);
    // ASCII only, or V8 keeps the source as a two-byte string; the licence comments are beside it.
    expect(readFileSync(out).every((byte) => byte < 0x80)).toBe(true);
    expect(readFileSync(`${out}.LEGAL.txt`, 'utf8')).toContain('@license MIT');
    const help = await execa(process.execPath, [out, '--help'], { cwd: dir, reject: false });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: simcloud-ccm');
    const bad = await execa(process.execPath, [out, '--no-such-flag'], { cwd: dir, reject: false, env: { SIMCLOUD_ENDPOINT: '', SIMCLOUD_TOKEN: '' } });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toEqual(['simcloud-ccm: unknown flag --no-such-flag; see --help']);
    // A kubeconfig it cannot use is named before the cloud is probed (nothing listens on port 9), in one line, exit 2.
    const missing = join(dir, 'no-such-kubeconfig');
    const badKube = await execa(process.execPath, [out, '--kubeconfig', missing], {
      cwd: dir,
      reject: false,
      env: { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:9', SIMCLOUD_TOKEN: 'sc-test-token' },
    });
    expect(badKube.exitCode).toBe(2);
    expect(badKube.stderr.trim().split('\n')).toEqual([`simcloud-ccm: --kubeconfig ${missing}: no such file`]);
  }, 60_000);

  it('carries no Kubernetes client, HTTP library or certificate library, and loads Node built-ins with require()', async () => {
    const out = join(dir, 'lean.mjs');
    await buildCcmBundle(out);
    const sources = z.object({ sources: z.array(z.string()) }).parse(JSON.parse(readFileSync(`${out}.map`, 'utf8'))).sources;
    // Types from @kubernetes/client-node are fine; its runtime (and undici's, and a certificate library's)
    // cost the CCM tens of MB of resident memory (docs/adr/0014).
    const heavy = sources.filter((s) => /node_modules\/(@kubernetes\/client-node|undici|@peculiar|reflect-metadata)\//.test(s));
    expect(heavy).toEqual([]);
    expect(sources.some((s) => s.endsWith('src/kube/transport.ts'))).toBe(true);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toMatch(/from\s*["']node:(?!module)/);
  }, 60_000);
});
