import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { inClusterEndpoint, KubeConfigError, loadKubeEndpoint, parseKubeConfig } from './kubeconfig.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  dirs.push(d);
  return d;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function config(user: Record<string, unknown>, cluster: Record<string, unknown> = { server: 'https://127.0.0.1:6443/' }): string {
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'other', cluster: { server: 'https://127.0.0.9:1' } },
      { name: 'c', cluster },
    ],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

describe('parseKubeConfig', () => {
  it("resolves the current context's cluster and user, inline data decoded", () => {
    const e = parseKubeConfig(
      config(
        { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
        { server: 'https://127.0.0.1:6443/', 'certificate-authority-data': b64('CA'), 'tls-server-name': 'kubernetes' },
      ),
      '/etc/kc',
    );
    expect(e).toEqual({
      server: 'https://127.0.0.1:6443',
      source: '/etc/kc',
      ca: { data: 'CA' },
      clientCert: { data: 'CERT' },
      clientKey: { data: 'KEY' },
      insecureSkipTlsVerify: false,
      tlsServerName: 'kubernetes',
      credentials: { kind: 'none' },
    });
  });

  it('resolves relative file paths against the kubeconfig directory, as clientcmd does', () => {
    const e = parseKubeConfig(
      config(
        { 'client-certificate': 'pki/c.crt', 'client-key': '/abs/c.key', tokenFile: 'token' },
        { server: 'https://h:1', 'certificate-authority': 'ca.crt' },
      ),
      '/etc/kube/config',
    );
    expect(e.ca).toEqual({ file: '/etc/kube/ca.crt' });
    expect(e.clientCert).toEqual({ file: '/etc/kube/pki/c.crt' });
    expect(e.clientKey).toEqual({ file: '/abs/c.key' });
    expect(e.credentials).toEqual({ kind: 'token', token: { file: '/etc/kube/token' } });
  });

  it('prefers a token over basic auth and reads an exec plugin', () => {
    expect(parseKubeConfig(config({ token: 't', username: 'a', password: 'b' }), 'kc').credentials).toEqual({ kind: 'token', token: { data: 't' } });
    expect(parseKubeConfig(config({ username: 'a', password: 'b' }), 'kc').credentials).toEqual({ kind: 'basic', username: 'a', password: 'b' });
    const exec = parseKubeConfig(
      config({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token', args: ['--x'], env: [{ name: 'A', value: '1' }] } }),
      '/k/config',
    ).credentials;
    expect(exec).toEqual({
      kind: 'exec',
      exec: { command: 'get-token', args: ['--x'], env: { A: '1' }, apiVersion: 'client.authentication.k8s.io/v1', cwd: '/k' },
    });
  });

  it.each([
    ['not YAML', ': : :\n\t- [', /kc: not YAML/],
    ['no current context', dump({ clusters: [] }), /kc: current-context is not set/],
    ['an unknown context', dump({ 'current-context': 'x', contexts: [] }), /current-context "x" is not among contexts\[\]\.name/],
    ['a server that is not a URL', config({}, { server: 'localhost:6443' }), /kc: clusters\[1\]\.cluster\.server: must be an http\(s\) URL/],
    ['a certificate without its key', config({ 'client-certificate-data': b64('C') }), /needs both client-certificate\(-data\) and client-key\(-data\)/],
    ['an auth-provider plugin', config({ 'auth-provider': { name: 'gcp' } }), /users\[u\]\.user\.auth-provider: auth-provider plugins are not supported/],
    ['a user with half of basic auth', config({ username: 'a' }), /basic auth needs both username and password/],
  ])('refuses %s, naming the field', (_what, text, message) => {
    expect(() => parseKubeConfig(text, 'kc')).toThrow(KubeConfigError);
    expect(() => parseKubeConfig(text, 'kc')).toThrow(message);
  });
});

describe('loadKubeEndpoint', () => {
  it('uses the in-cluster service account when there is no --kubeconfig', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), 'sa-token');
    const inCluster = {
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      tokenFile: join(dir, 'token'),
      caFile: join(dir, 'ca.crt'),
    };
    expect(loadKubeEndpoint('', { inCluster, env: {}, home: dir })).toEqual({
      server: 'https://[fd00::1]:443',
      source: 'in-cluster',
      ca: { file: join(dir, 'ca.crt') },
      insecureSkipTlsVerify: false,
      credentials: { kind: 'token', token: { file: join(dir, 'token') } },
    });
  });

  it('skips $KUBECONFIG files that do not exist, and reads ~/.kube/config only when KUBECONFIG is unset', () => {
    const dir = tempDir();
    const noPod = { env: {}, tokenFile: join(dir, 'none'), caFile: join(dir, 'none') };
    writeFileSync(join(dir, 'b'), config({ token: 'from-b' }));
    mkdirSync(join(dir, '.kube'));
    writeFileSync(join(dir, '.kube', 'config'), config({ token: 'from-home' }));
    expect(loadKubeEndpoint('', { inCluster: noPod, env: { KUBECONFIG: `${join(dir, 'a')}:${join(dir, 'b')}` }, home: dir }).credentials).toEqual({
      kind: 'token',
      token: { data: 'from-b' },
    });
    expect(loadKubeEndpoint('', { inCluster: noPod, env: {}, home: dir }).credentials).toEqual({ kind: 'token', token: { data: 'from-home' } });
    expect(() => loadKubeEndpoint('', { inCluster: noPod, env: { KUBECONFIG: join(dir, 'a') }, home: dir })).toThrow('no kubeconfig');
  });

  it('merges the files of $KUBECONFIG as client-go does: the first to name an entry or the current context wins', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'one'));
    mkdirSync(join(dir, 'two'));
    const noPod = { env: {}, tokenFile: join(dir, 'none'), caFile: join(dir, 'none') };
    // The first file holds the current context and a user; the second the cluster (with a relative CA path),
    // a user of the same name that must lose, and a current-context that must lose.
    writeFileSync(
      join(dir, 'one', 'config'),
      dump({
        users: [{ name: 'u', user: { tokenFile: 'token' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'ctx',
      }),
    );
    writeFileSync(
      join(dir, 'two', 'config'),
      dump({
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.2:6443', 'certificate-authority': 'ca.crt' } }],
        users: [{ name: 'u', user: { token: 'from-two' } }],
        contexts: [{ name: 'other', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'other',
      }),
    );
    const endpoint = loadKubeEndpoint('', { inCluster: noPod, env: { KUBECONFIG: `${join(dir, 'one', 'config')}:${join(dir, 'two', 'config')}` }, home: dir });
    expect(endpoint).toMatchObject({
      server: 'https://127.0.0.2:6443',
      ca: { file: join(dir, 'two', 'ca.crt') },
      credentials: { kind: 'token', token: { file: join(dir, 'one', 'token') } },
    });
    expect(endpoint.source).toContain(join(dir, 'two', 'config'));
  });

  it('says what to do when there is nothing to load, and names a missing --kubeconfig', () => {
    const dir = tempDir();
    const noPod = { env: {}, tokenFile: join(dir, 'none'), caFile: join(dir, 'none') };
    expect(() => loadKubeEndpoint('', { inCluster: noPod, env: {}, home: dir })).toThrow(
      'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a Pod with a service account',
    );
    expect(() => loadKubeEndpoint(join(dir, 'missing'))).toThrow(`--kubeconfig ${join(dir, 'missing')}: no such file`);
  });

  it('is outside a Pod when the service host or the token is missing', () => {
    expect(inClusterEndpoint({ env: { KUBERNETES_SERVICE_HOST: 'h' }, tokenFile: '/nonexistent', caFile: '/x' })).toBeUndefined();
  });
});
