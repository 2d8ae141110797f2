import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restartDelayMs, restarts } from '../containers/runtime.ts';
import { entryMatches } from './replies.ts';
import { parseRunImage, runImageArg, runnableEntries, RunImageError } from './runnable.ts';

const dir = mkdtempSync(join(tmpdir(), 'runnable-'));
const binary = join(dir, 'linode-ccm');
writeFileSync(binary, '#!/bin/sh\n');
chmodSync(binary, 0o755);
const plain = join(dir, 'not-executable');
writeFileSync(plain, '');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runnable images', () => {
  it('parses IMAGE[:TAG]=PATH, a relative path made absolute, a registry port not taken for a tag', () => {
    expect(parseRunImage(`linode/linode-cloud-controller-manager=${binary}`)).toEqual({ repository: 'linode/linode-cloud-controller-manager', binary });
    expect(parseRunImage('ghcr.io/acme/ccm:v0.*=linode-ccm', dir)).toEqual({ repository: 'ghcr.io/acme/ccm', tag: 'v0.*', binary });
    expect(parseRunImage(`localhost:5000/ccm=${binary}`)).toEqual({ repository: 'localhost:5000/ccm', binary });
  });

  it('refuses a malformed reference, a missing =, and a path that is not an executable file, naming what to fix', () => {
    expect(() => parseRunImage('linode/ccm')).toThrow(/use IMAGE\[:TAG\]=PATH/);
    expect(() => parseRunImage(`Linode/CCM=${binary}`)).toThrow(/repository must be an image repository/);
    expect(() => parseRunImage(`linode/ccm:bad/tag=${binary}`)).toThrow(RunImageError);
    expect(() => parseRunImage(`linode/ccm=${plain}`)).toThrow(/is not an executable file/);
    expect(() => parseRunImage(`linode/ccm=${dir}`)).toThrow(/is not an executable file/);
  });

  it('matches containers by repository (docker.io and library/ implied) and tag pattern, and round-trips as a flag', () => {
    const [any] = runnableEntries([{ repository: 'linode/linode-cloud-controller-manager', binary }]);
    const [v0] = runnableEntries([{ repository: 'linode/linode-cloud-controller-manager', tag: 'v0.*', binary }]);
    expect(entryMatches(any!, { image: 'docker.io/linode/linode-cloud-controller-manager:latest' })).toBe(true);
    expect(entryMatches(any!, { image: 'linode/linode-cloud-controller-manager@sha256:abc' })).toBe(true);
    expect(entryMatches(any!, { image: 'linode/other' })).toBe(false);
    expect(entryMatches(v0!, { image: 'linode/linode-cloud-controller-manager:v0.7.0' })).toBe(true);
    expect(entryMatches(v0!, { image: 'linode/linode-cloud-controller-manager' })).toBe(false);
    expect(runImageArg({ repository: 'linode/ccm', tag: 'v0.*', binary })).toBe(`--run-image=linode/ccm:v0.*=${binary}`);
  });

  it('restarts as the kubelet does: per restartPolicy, after 10 s doubling to 5 min', () => {
    expect([restarts('Always', 0), restarts('OnFailure', 0), restarts('OnFailure', 2), restarts('Never', 2)]).toEqual([true, false, true, false]);
    expect([1, 2, 3, 6, 10].map(restartDelayMs)).toEqual([10_000, 20_000, 40_000, 300_000, 300_000]);
  });
});
