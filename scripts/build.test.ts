import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { buildCcmBundle } from './build.ts';

const dir = mkdtempSync(join(tmpdir(), 'ccm-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CCM bundle (npm run build)', () => {
  it('runs on its own, from a directory without node_modules, and rejects a bad flag in one line', async () => {
    const out = join(dir, 'ccm.mjs');
    expect(await buildCcmBundle(out)).toBeGreaterThan(0);
    // ASCII only, or V8 keeps the source as a two-byte string; the licence comments are beside it.
    expect(readFileSync(out).every((byte) => byte < 0x80)).toBe(true);
    expect(readFileSync(`${out}.LEGAL.txt`, 'utf8')).toContain('MIT License');
    const help = await execa(process.execPath, [out, '--help'], { cwd: dir, reject: false });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: simcloud-ccm');
    const bad = await execa(process.execPath, [out, '--no-such-flag'], { cwd: dir, reject: false, env: { SIMCLOUD_ENDPOINT: '', SIMCLOUD_TOKEN: '' } });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toEqual(['simcloud-ccm: unknown flag --no-such-flag; see --help']);
  }, 60_000);
});
