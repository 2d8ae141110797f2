import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOYMENT_MANIFEST, DOCKERFILE, deploymentEnv, entrypointNodeFlags, idleRssMb, imageEnv } from './deployed-ccm.ts';

const manifest = (env: string): string => `apiVersion: v1
kind: ServiceAccount
metadata: { name: x }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: ccm }
spec:
  template:
    spec:
      containers:
        - name: ccm
          image: ccm
${env}`;

describe('deploymentEnv', () => {
  it('reads the memory variables of the Deployment in a multi-document manifest, and only those', () => {
    const env =
      '          env:\n            - name: A\n              value: b\n            - name: NODE_OPTIONS\n              value: --max-old-space-size=96\n            - name: MALLOC_ARENA_MAX\n              value: "2"\n';
    expect(deploymentEnv(manifest(env))).toEqual({ NODE_OPTIONS: '--max-old-space-size=96', MALLOC_ARENA_MAX: '2' });
  });

  it('is empty when the container sets none', () => {
    expect(deploymentEnv(manifest(''))).toEqual({});
  });

  it('fails when there is no Deployment', () => {
    expect(() => deploymentEnv('kind: Service\n')).toThrow('the manifest has no Deployment');
  });

  it('finds heap flags and the malloc arena limit in the shipped deploy/deployment.yaml', () => {
    const env = deploymentEnv(readFileSync(DEPLOYMENT_MANIFEST, 'utf8'));
    expect(env.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
    expect(env.MALLOC_ARENA_MAX).toMatch(/^\d+$/);
  });
});

describe('the image (deploy/Dockerfile)', () => {
  const dockerfile = readFileSync(DOCKERFILE, 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it("reads the final stage's ENV settings only", () => {
    expect(imageEnv('FROM a AS b\nENV X=1\nFROM c\nENV Y=2\nENV Z=/app/z\nRUN x\n')).toEqual({ Y: '2', Z: '/app/z' });
  });

  it('runs as a numeric user (runAsNonRoot cannot verify a name) and makes its compile cache as that user', () => {
    const user = /^USER\s+(\S+)/m.exec(finalStage)?.[1];
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(imageEnv(dockerfile).NODE_COMPILE_CACHE).toBe('/app/compile-cache');
    // ...and with the ENTRYPOINT's flags, or V8 rejects the cache.
    const warm = `RUN node ${[...entrypointNodeFlags(dockerfile), 'ccm.mjs'].join(' ')} --help`;
    expect(finalStage.indexOf(warm)).toBeGreaterThan(finalStage.indexOf('USER '));
  });

  it('reads the Node flags of an exec-form node ENTRYPOINT and refuses other forms', () => {
    expect(entrypointNodeFlags('FROM x\nENTRYPOINT ["node", "--optimize-for-size", "ccm.mjs"]\n')).toEqual(['--optimize-for-size']);
    expect(entrypointNodeFlags('ENTRYPOINT ["node", "ccm.mjs"]')).toEqual([]);
    expect(() => entrypointNodeFlags('ENTRYPOINT ["/bin/sh", "-c", "x"]')).toThrow('the ENTRYPOINT runs /bin/sh, not node');
    expect(() => entrypointNodeFlags('FROM x\n')).toThrow('the Dockerfile has no ENTRYPOINT');
  });

  it("ships the licence texts the bundle's comments moved to", () => {
    expect(finalStage).toMatch(/^COPY .*ccm\.mjs\.LEGAL\.txt/m);
  });
});

describe('idleRssMb', () => {
  it('reads the RSS a script holds once loaded, under the given flags and environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idle-rss-'));
    try {
      const main = join(dir, 'main.mjs');
      writeFileSync(main, 'globalThis.kept = new Array(2_000_000).fill(1);\n');
      const small = await idleRssMb({ main: join(dir, 'none.mjs'), nodeArgs: [], env: {} }).catch(() => undefined);
      expect(small).toBeUndefined();
      const big = await idleRssMb({ main, nodeArgs: ['--max-old-space-size=64'], env: {} });
      // Bare Node is ~40 MB; the array adds ~16 MB of heap.
      expect(big).toBeGreaterThan(45);
      expect(big).toBeLessThan(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
