import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExec, type CommandRecord } from '../exec.ts';
import {
  cloudProviderVersion,
  ensureUpstreamCcmBinary,
  GO_MODULE_DIR,
  goFiles,
  kubernetesVersionOf,
  pruneOldBuilds,
  upstreamCcmArgs,
  upstreamCcmKey,
} from './upstream.ts';

const dir = mkdtempSync(join(tmpdir(), 'upstream-ccm-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const toolchain = { version: 'go1.26.8', goos: 'linux', goarch: 'amd64' };

describe('upstreamCcmArgs', () => {
  it('is the upstream command line for a local run, with the given lease, periods and controllers', () => {
    const args = upstreamCcmArgs({
      kubeconfig: '/s/kubeconfig',
      clusterName: 'sandbox',
      clusterCidr: '10.244.0.0/16',
      configureCloudRoutes: true,
      securePort: 10258,
      certDir: '/s/certs',
      leaseName: 'upstream-ccm',
      lease: { duration: '8s', renewDeadline: '6s', retryPeriod: '1s' },
      nodeMonitorPeriod: '1s',
      routeReconciliationPeriod: '2s',
      verbosity: 4,
      controllers: ['cloud-node', 'service'],
    });
    expect(args).toEqual([
      '--cloud-provider=simcloud',
      '--kubeconfig=/s/kubeconfig',
      '--authentication-kubeconfig=/s/kubeconfig',
      '--authorization-kubeconfig=/s/kubeconfig',
      '--authentication-skip-lookup=true',
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      '--cluster-name=sandbox',
      '--cluster-cidr=10.244.0.0/16',
      '--allocate-node-cidrs=false',
      '--configure-cloud-routes=true',
      '--bind-address=127.0.0.1',
      '--secure-port=10258',
      '--cert-dir=/s/certs',
      '--leader-elect=true',
      '--leader-elect-resource-name=upstream-ccm',
      '--leader-elect-resource-namespace=kube-system',
      '--leader-elect-lease-duration=8s',
      '--leader-elect-renew-deadline=6s',
      '--leader-elect-retry-period=1s',
      '--node-monitor-period=1s',
      '--route-reconciliation-period=2s',
      '--controllers=cloud-node,service',
      '--v=4',
    ]);
  });

  it("defaults to upstream's lease name, timings and periods, and every controller", () => {
    const args = upstreamCcmArgs({
      kubeconfig: 'k',
      clusterName: 'c',
      clusterCidr: '10.0.0.0/16',
      configureCloudRoutes: false,
      securePort: 0,
      certDir: 'd',
      leaderElect: false,
    });
    expect(args).toEqual(
      expect.arrayContaining([
        '--configure-cloud-routes=false',
        '--leader-elect=false',
        '--leader-elect-resource-name=cloud-controller-manager',
        '--leader-elect-lease-duration=15s',
        '--node-monitor-period=5s',
        '--route-reconciliation-period=10s',
        '--v=2',
      ]),
    );
    expect(args.some((a) => a.startsWith('--controllers'))).toBe(false);
  });
});

describe('versions', () => {
  it('reads k8s.io/cloud-provider from go.mod and maps a staging version to its Kubernetes release', () => {
    expect(cloudProviderVersion('require (\n\tk8s.io/api v0.37.1\n\tk8s.io/cloud-provider v0.37.1\n)\n')).toBe('v0.37.1');
    expect(() => cloudProviderVersion('module x\n')).toThrow(/cannot read the k8s.io\/cloud-provider version/);
    expect(kubernetesVersionOf('v0.37.1')).toBe('v1.37.1');
  });
});

describe('the cache key', () => {
  const mod = join(dir, 'mod');
  mkdirSync(join(mod, 'cmd', 'x'), { recursive: true });
  writeFileSync(join(mod, 'go.mod'), 'module m\n\nrequire k8s.io/cloud-provider v0.37.1\n');
  writeFileSync(join(mod, 'go.sum'), '');
  writeFileSync(join(mod, 'cmd', 'x', 'main.go'), 'package main\n');
  writeFileSync(join(mod, 'a.go'), 'package a\n');
  writeFileSync(join(mod, 'README.md'), 'docs\n');
  writeFileSync(join(mod, 'a_test.go'), 'package a\n');
  mkdirSync(join(mod, 'contract', 'sdk'), { recursive: true });
  writeFileSync(join(mod, 'contract', 'sdk', 'go.mod'), 'module sdk\n');
  writeFileSync(join(mod, 'contract', 'sdk', 'client.go'), 'package sdk\n');

  it('lists every .go file below the module but tests and nested modules, sorted', () => {
    expect(goFiles(mod)).toEqual(['a.go', 'cmd/x/main.go']);
    expect(goFiles(GO_MODULE_DIR)).toContain('cmd/upstream-ccm/main.go');
    expect(goFiles(GO_MODULE_DIR).filter((f) => f.startsWith('contract/') || f.endsWith('_test.go'))).toEqual([]);
  });

  it('changes with any source .go file, the toolchain and the target, and with nothing else (tests included)', () => {
    const key = upstreamCcmKey(mod, toolchain);
    expect(key).toMatch(/^upstream-ccm-v0\.37\.1-go1\.26\.8-linux-amd64-[0-9a-f]{12}$/);
    writeFileSync(join(mod, 'README.md'), 'other docs\n');
    writeFileSync(join(mod, 'a_test.go'), 'package a\n\nfunc TestA() {}\n');
    expect(upstreamCcmKey(mod, toolchain)).toBe(key);
    expect(upstreamCcmKey(mod, { ...toolchain, version: 'go1.26.9' })).not.toBe(key);
    expect(upstreamCcmKey(mod, { ...toolchain, goarch: 'arm64' })).not.toBe(key);
    writeFileSync(join(mod, 'cmd', 'x', 'main.go'), 'package main\n\nfunc main() {}\n');
    expect(upstreamCcmKey(mod, toolchain)).not.toBe(key);
  });
});

describe('ensureUpstreamCcmBinary', () => {
  /** A dry-run `go` whose build writes an executable where `-o` points. */
  const fakeGo = (builds: string[]) =>
    createExec({
      dryRun: true,
      responder: (r: CommandRecord) => {
        if (r.args[0] === 'env') return { stdout: 'go1.26.8\nlinux\namd64\n' };
        if (r.args[0] !== 'build') return undefined;
        const out = r.args[r.args.indexOf('-o') + 1]!;
        writeFileSync(out, '#!/bin/sh\necho Kubernetes v1.37.1\n');
        chmodSync(out, 0o755);
        builds.push(out);
        return undefined;
      },
    });

  it('builds into the cache once, then finds it there', async () => {
    const env = { ...process.env, CCM_SANDBOX_CACHE: join(dir, 'cache') };
    const builds: string[] = [];
    const progress: string[] = [];
    const first = await ensureUpstreamCcmBinary({ exec: fakeGo(builds), env, onProgress: (m) => progress.push(m) });
    expect(first).toMatch(new RegExp(`^${join(dir, 'cache', 'go')}/upstream-ccm-v0\\.37\\.1-go1\\.26\\.8-linux-amd64-[0-9a-f]{12}/upstream-ccm$`));
    expect(builds).toHaveLength(1);
    expect(progress.at(-1)).toMatch(/^built upstream-ccm into .* in \d+ s$/);
    expect(await ensureUpstreamCcmBinary({ exec: fakeGo(builds), env })).toBe(first);
    expect(builds).toHaveLength(1);
    await ensureUpstreamCcmBinary({ exec: fakeGo(builds), env, force: true });
    expect(builds).toHaveLength(2);
  });

  it('uses $UPSTREAM_CCM_BINARY as is, and refuses one that is not executable', async () => {
    const binary = join(dir, 'my-ccm');
    writeFileSync(binary, '#!/bin/sh\n');
    const env = { ...process.env, UPSTREAM_CCM_BINARY: binary };
    await expect(ensureUpstreamCcmBinary({ exec: fakeGo([]), env })).rejects.toThrow(`UPSTREAM_CCM_BINARY=${binary} is not an executable file`);
    chmodSync(binary, 0o755);
    expect(await ensureUpstreamCcmBinary({ exec: fakeGo([]), env })).toBe(binary);
  });

  it('says to install Go when there is neither a binary nor Go', async () => {
    const noGo = createExec({ dryRun: true, responder: () => ({ exitCode: 127 }) });
    await expect(ensureUpstreamCcmBinary({ exec: noGo, env: { ...process.env, CCM_SANDBOX_CACHE: join(dir, 'empty') } })).rejects.toThrow(
      /Go is not installed: install Go >= 1\.26, or set UPSTREAM_CCM_BINARY/,
    );
  });
});

describe('pruneOldBuilds', () => {
  it('keeps the most recent builds and never touches staging dirs or locks', () => {
    const cache = join(dir, 'prune');
    const names = [0, 1, 2].map((i) => `upstream-ccm-v0.37.1-go1.26.8-linux-amd64-00000000000${i}`);
    names.forEach((name, i) => {
      mkdirSync(join(cache, name), { recursive: true });
      utimesSync(join(cache, name), 1000 + i, 1000 + i);
    });
    mkdirSync(join(cache, `${names[0]}.tmp-123`));
    mkdirSync(join(cache, `${names[0]}.lock`));
    expect(pruneOldBuilds(cache, 2)).toEqual([names[0]]);
    expect(readdirSync(cache).sort()).toEqual([`${names[0]}.lock`, `${names[0]}.tmp-123`, names[1], names[2]].sort());
  });
});
