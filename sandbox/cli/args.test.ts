import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { daemonArgs, parseCli, UsageError } from './args.ts';

describe('ccm-sandbox arguments', () => {
  it('applies the documented defaults', () => {
    expect(parseCli(['up'])).toMatchObject({
      command: 'up',
      name: 'ccm-sandbox',
      runtime: 'auto',
      workers: 2,
      lbStrategy: 'lb',
      foreground: false,
      dryRun: false,
    });
  });

  it.each([
    [['bogus'], /unknown command "bogus"/],
    [[], /unknown command ""/],
    [['up', '--workers', 'two'], /--workers "two" is invalid: use a whole number from 0 to 50/],
    [['up', '--workers', '51'], /--workers "51" is invalid/],
    [['up', '--runtime', 'docker'], /--runtime "docker" is invalid: use auto, local, kind, vagrant or existing/],
    [['up', '--lb-strategy', 'nlb'], /--lb-strategy "nlb" is invalid: use lb or ip-block/],
    [['up', '--name', 'Bad_Name'], /--name "Bad_Name" is invalid/],
    [['up', '--runtime', 'existing'], /--runtime existing needs --kubeconfig PATH/],
    [['up', '--kubeconfig', '/nonexistent/kc'], /--kubeconfig \/nonexistent\/kc: no such file/],
    [['up', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['up', '--allowed-host', '*'], /--allowed-host takes a host name or NAME:PORT \(no scheme, no wildcard\), got "\*"/],
    [['up', '--allowed-host', 'http://vm.test'], /--allowed-host takes a host name/],
    [['up', '--ccm', 'aws'], /--ccm "aws" is invalid: use builtin, upstream, command, none/],
    [['up', '--ccm', 'command'], /--ccm command needs --ccm-command "<command line>"/],
    [['up', '--ccm', 'command', '--ccm-command', '  '], /--ccm command needs --ccm-command/],
    [['up', '--ccm-command', './my-ccm'], /--ccm-command applies to --ccm command only \(got --ccm builtin\)/],
    [['up', '--ccm', 'none', '--ccm-command', './my-ccm'], /--ccm-command applies to --ccm command only \(got --ccm none\)/],
    [['up', '--cloud', 'aws'], /--cloud "aws" is invalid: use simcloud or hcloud or linode or digitalocean/],
    [
      ['up', '--cloud', 'digitalocean', '--ccm', 'builtin'],
      /--cloud digitalocean needs --ccm upstream, command or none: the builtin CCM speaks simcloud's \/v1 API only/,
    ],
    [['up', '--cloud', 'digitalocean', '--ccm', 'upstream', '--runtime', 'kind'], /--cloud digitalocean runs on --runtime local, not kind/],
    [['up', '--cloud', 'linode', '--ccm', 'builtin'], /--cloud linode needs --ccm upstream, command or none: the builtin CCM speaks simcloud's \/v1 API only/],
    [['up', '--cloud', 'linode', '--ccm', 'upstream', '--runtime', 'vagrant'], /--cloud linode runs on --runtime local, not vagrant/],
    [['up', '--cloud', 'hcloud', '--ccm', 'upstream', '--runtime', 'kind'], /--cloud hcloud runs on --runtime local, not kind/],
    [['up', '--cloud', 'hcloud', '--ccm', 'builtin'], /--cloud hcloud needs --ccm upstream, command or none: the builtin CCM speaks simcloud's \/v1 API only/],
    [['up', '--run-image', 'linode/ccm'], /--run-image "linode\/ccm" is invalid: use IMAGE\[:TAG\]=PATH/],
    [['up', '--run-image', 'linode/ccm=/nonexistent/ccm'], /\/nonexistent\/ccm is not an executable file/],
    [['up', '--runtime', 'kind', '--run-image', `linode/ccm=${process.execPath}`], /--run-image needs --runtime local/],
    [['up', '--runtime', 'kind', '--kubelet-provider-id'], /--kubelet-provider-id needs --runtime local \(the virtual kubelets take it\), not kind/],
  ])('rejects %j with one line saying what to fix', (argv, message) => {
    expect(() => parseCli(argv)).toThrow(UsageError);
    expect(() => parseCli(argv)).toThrow(message);
  });

  it('hands the daemon exactly the chosen options', () => {
    const o = parseCli(['up', '--name', 'demo', '--workers', '3', '--lb-strategy', 'ip-block']);
    expect(daemonArgs(o, 'local')).toEqual(['daemon', '--name=demo', '--runtime=local', '--workers=3', '--lb-strategy=ip-block', '--ccm=builtin']);
  });

  it('passes --run-image (repeatable) to the daemon, the path made absolute', () => {
    const o = parseCli(['up', '--run-image', `linode/linode-cloud-controller-manager=${process.execPath}`, '--run-image', `acme/ccm:v1.*=${process.execPath}`]);
    expect(o.runImages).toEqual([
      { repository: 'linode/linode-cloud-controller-manager', binary: process.execPath },
      { repository: 'acme/ccm', tag: 'v1.*', binary: process.execPath },
    ]);
    expect(daemonArgs(o, 'local').slice(-2)).toEqual([
      `--run-image=linode/linode-cloud-controller-manager=${process.execPath}`,
      `--run-image=acme/ccm:v1.*=${process.execPath}`,
    ]);
    expect(parseCli(daemonArgs(o, 'local')).runImages).toEqual(o.runImages);
  });

  it('passes --kubelet-provider-id to the daemon, and leaves it off by default', () => {
    expect(parseCli(['up']).kubeletProviderId).toBe(false);
    const o = parseCli(['up', '--cloud', 'digitalocean', '--ccm', 'none', '--kubelet-provider-id']);
    expect(o.kubeletProviderId).toBe(true);
    expect(daemonArgs(o, 'local')).toContain('--kubelet-provider-id');
    expect(parseCli(daemonArgs(o, 'local')).kubeletProviderId).toBe(true);
  });

  describe('--faults FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-args-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };

    it('reads the rules now and hands the daemon the absolute path, which it gives simcloud', () => {
      const path = file('slow.json', JSON.stringify({ faults: [{ kind: 'latency', match: { path: '/v4*/**' }, latency_ms: 100, jitter_ms: 50 }] }));
      const o = parseCli(['up', '--faults', path]);
      expect(o.faults?.rules).toEqual([{ kind: 'latency', match: { path: '/v4*/**' }, latency_ms: 100, jitter_ms: 50 }]);
      expect(daemonArgs(o, 'local').at(-1)).toBe(`--faults=${path}`);
      expect(parseCli(daemonArgs(o, 'local')).faults?.file).toBe(path);
    });

    it.each([
      ['missing.json', null, /^--faults: /],
      ['bad.json', '{"faults": [{"kind": "latency", "latency_ms": -1}]}', /^--faults: .*latency_ms/],
      ['text.json', 'not json', /^--faults: /],
    ])('refuses %s with one line naming the flag', (name, text, message) => {
      const path = text === null ? join(dir, name) : file(name, text);
      expect(() => parseCli(['up', '--faults', path])).toThrow(UsageError);
      expect(() => parseCli(['up', '--faults', path])).toThrow(message);
    });
  });

  it('passes --allowed-host names (repeatable, comma lists) to the daemon', () => {
    const o = parseCli(['up', '--allowed-host', 'VM.test', '--allowed-host', 'a.test:8080,b.test']);
    expect(o.allowedHosts).toEqual(['vm.test', 'a.test:8080', 'b.test']);
    expect(daemonArgs(o, 'local')).toEqual([
      'daemon',
      '--name=ccm-sandbox',
      '--runtime=local',
      '--workers=2',
      '--lb-strategy=lb',
      '--allowed-host=vm.test',
      '--allowed-host=a.test:8080',
      '--allowed-host=b.test',
      '--ccm=builtin',
    ]);
  });

  it('defaults the CCM slot to builtin and hands the daemon the chosen CCM and its command line as one argument', () => {
    expect(parseCli(['up']).ccm).toEqual({ kind: 'builtin' });
    expect(parseCli(['up', '--ccm', 'none']).ccm).toEqual({ kind: 'none' });
    const o = parseCli(['up', '--ccm', 'command', '--ccm-command', 'my-ccm --v=2 --cluster-name="$CCM_SANDBOX_CLUSTER_NAME"']);
    expect(o.ccm).toEqual({ kind: 'command', command: 'my-ccm --v=2 --cluster-name="$CCM_SANDBOX_CLUSTER_NAME"' });
    const args = daemonArgs(o, 'local');
    expect(args.slice(-2)).toEqual(['--ccm=command', '--ccm-command=my-ccm --v=2 --cluster-name="$CCM_SANDBOX_CLUSTER_NAME"']);
    expect(parseCli(args).ccm).toEqual(o.ccm);
  });

  it("runs the upstream Go CCM's provider for a persona when no --ccm is given", () => {
    for (const cloud of ['hcloud', 'linode', 'digitalocean']) expect(parseCli(['up', '--cloud', cloud]).ccm).toEqual({ kind: 'upstream' });
    expect(() => parseCli(['up', '--cloud', 'hcloud', '--ccm-command', './my-ccm'])).toThrow(
      '--ccm-command applies to --ccm command only (got --ccm upstream)',
    );
  });

  it('defaults the cloud to simcloud and hands the daemon --cloud hcloud with its CCM', () => {
    expect(parseCli(['up']).cloud).toBe('simcloud');
    const o = parseCli(['up', '--cloud', 'hcloud', '--ccm', 'upstream']);
    expect(o).toMatchObject({ cloud: 'hcloud', ccm: { kind: 'upstream' } });
    const args = daemonArgs(o, 'local');
    expect(args.slice(-2)).toEqual(['--ccm=upstream', '--cloud=hcloud']);
    expect(parseCli(args)).toMatchObject({ cloud: 'hcloud', ccm: { kind: 'upstream' } });
  });
});
