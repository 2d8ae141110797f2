import { describe, expect, it } from 'vitest';
import { mountScript, overlayRoots, type BindMount, type HostPaths } from './mounts.ts';
import { ContainerSpecError } from './spec.ts';

/** A host with these directories; /var/run is a link to /run, as on most distributions. */
function host(dirs: readonly string[]): HostPaths {
  const set = new Set(['/', ...dirs]);
  return { exists: (p) => set.has(p), realpath: (p) => p.replace(/^\/var\/run(?=\/|$)/, '/run') };
}

const bind = (target: string, more: Partial<BindMount> = {}): BindMount => ({ source: `/pods/p${target}`, target, readOnly: false, file: false, ...more });

describe('the mount namespace script', () => {
  const machine = host(['/etc', '/etc/ssl', '/run', '/var', '/var/run', '/tmp']);

  it('overlays the deepest existing directory of each missing path, the shallowest of nested ones once', () => {
    const binds = [bind('/var/run/secrets/kubernetes.io/serviceaccount'), bind('/etc/kubernetes'), bind('/etc/kubernetes/pki'), bind('/tmp')];
    expect(overlayRoots(binds, machine)).toEqual(['/run', '/etc']);
  });

  it('refuses a path whose top directory is missing rather than overlaying /', () => {
    expect(() => overlayRoots([bind('/nonexistent/x')], machine)).toThrow(ContainerSpecError);
  });

  it('mounts a tmpfs, the overlays, then binds parents before children (read-only remounted), and execs the command', () => {
    const script = mountScript(
      [bind('/etc/kubernetes/pki', { readOnly: true }), bind('/etc/kubernetes'), bind('/etc/ssl/x.pem', { file: true })],
      '/pods/p/c.ns',
      machine,
    );
    expect(script.split('\n')).toEqual([
      'set -eu',
      'mount -t tmpfs -o mode=0700 ccm-sandbox-pod /pods/p/c.ns',
      'mkdir -p /pods/p/c.ns/overlay-0/upper /pods/p/c.ns/overlay-0/work',
      'mount -t overlay ccm-sandbox-overlay -o lowerdir=/etc,upperdir=/pods/p/c.ns/overlay-0/upper,workdir=/pods/p/c.ns/overlay-0/work /etc',
      'mkdir -p /etc/kubernetes',
      'mount --bind /pods/p/etc/kubernetes /etc/kubernetes',
      'mkdir -p /etc/kubernetes/pki',
      'mount --bind /pods/p/etc/kubernetes/pki /etc/kubernetes/pki',
      'mount -o remount,bind,ro /etc/kubernetes/pki',
      '[ -e /etc/ssl/x.pem ] || { mkdir -p /etc/ssl; : > /etc/ssl/x.pem; }',
      'mount --bind /pods/p/etc/ssl/x.pem /etc/ssl/x.pem',
      'exec "$@"',
      '',
    ]);
  });
});
