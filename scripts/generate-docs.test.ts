import { describe, expect, it } from 'vitest';
import { annotationsDoc, envDoc, flagsDoc, staleFiles } from './generate-docs.ts';

describe('generated reference docs', () => {
  it('are up to date (run `npm run docs:generate` after changing a registry)', () => {
    expect(staleFiles()).toEqual([]);
  });

  it('list every registry entry', () => {
    expect(annotationsDoc()).toContain('`loadbalancer.simcloud.dev/port-<n>`');
    expect(flagsDoc()).toContain('`--load-balancer-class`');
    expect(flagsDoc()).toContain('`--secure-port` | int | `10258`');
    expect(envDoc()).toContain('`SIMCLOUD_TOKEN`');
  });
});
