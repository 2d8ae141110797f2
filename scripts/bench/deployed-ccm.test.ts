import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEPLOYMENT_MANIFEST, deploymentEnv } from './deployed-ccm.ts';

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
    const env = '          env:\n            - name: A\n              value: b\n            - name: NODE_OPTIONS\n              value: --max-old-space-size=96\n            - name: MALLOC_ARENA_MAX\n              value: "2"\n';
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
