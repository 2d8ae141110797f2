import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pinnedVersions } from './control-plane/binaries.ts';
import { REPO_ROOT } from './state.ts';
import { SANDBOX_VERSION, versionLine } from './version.ts';

const Manifest = z.object({
  version: z.string(),
  bin: z.record(z.string(), z.string()),
  files: z.array(z.string()),
  dependencies: z.record(z.string(), z.string()),
  optionalDependencies: z.record(z.string(), z.string()),
  bundleDependencies: z.boolean(),
});
const manifest = Manifest.parse(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')));

describe('the version', () => {
  it("is package.json's, with the pinned Kubernetes and etcd releases beside it", () => {
    expect(SANDBOX_VERSION).toBe(manifest.version);
    expect(versionLine()).toBe(`ccm-sandbox ${manifest.version} (Kubernetes ${pinnedVersions().kubernetes}, etcd ${pinnedVersions().etcd})`);
  });
});

describe('the npm package manifest', () => {
  it('bundles every runtime dependency, so the tarball installs offline and alone, but not the optional Node binary', () => {
    expect(manifest.bundleDependencies).toBe(true);
    expect(Object.keys(manifest.optionalDependencies)).toEqual(['node']);
    expect(manifest.dependencies).not.toHaveProperty('node');
  });

  it('names only files and directories that exist', () => {
    expect(Object.values(manifest.bin).filter((f) => !existsSync(join(REPO_ROOT, f)))).toEqual([]);
    const plain = manifest.files.filter((f) => !f.startsWith('!') && !f.includes('*'));
    expect(plain.filter((f) => !existsSync(join(REPO_ROOT, f)))).toEqual([]);
  });
});
