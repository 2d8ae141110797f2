// The container's view of the file system: a shell script, run by `unshare --mount --propagation private`,
// that bind-mounts each volume at its absolute path inside a mount namespace of the container's own, then
// execs the container's command. The host's files are never written: a mount path that does not exist on the
// host (/var/run/secrets/..., /etc/kubernetes) is made inside an overlay of its deepest existing directory whose
// upper layer is a tmpfs of the namespace's, so the directory appears for this process alone and vanishes with it.
import { dirname } from 'node:path';
import { shellQuote } from '../../exec.ts';
import { ContainerSpecError } from './spec.ts';

export interface BindMount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
  /** The source is a file (a subPath naming one): the target is made as an empty file. */
  readonly file: boolean;
}

/** What the script needs to know of the host's file system (injected for tests). */
export interface HostPaths {
  exists(path: string): boolean;
  realpath(path: string): string;
}

/** The deepest existing ancestor of a missing path (its real path, symlinks such as /var/run resolved). */
function existingAncestor(path: string, host: HostPaths): string {
  let dir = dirname(path);
  while (!host.exists(dir)) dir = dirname(dir);
  return host.realpath(dir);
}

function within(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

/** The directories to overlay so every missing target can be made: the shallowest of each nested set. */
export function overlayRoots(binds: readonly BindMount[], host: HostPaths): string[] {
  const roots = [...new Set(binds.filter((b) => !host.exists(b.target)).map((b) => existingAncestor(b.target, host)))].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const r of roots) if (!kept.some((k) => within(r, k))) kept.push(r);
  const slash = kept.find((r) => r === '/');
  if (slash !== undefined) {
    const target = binds.find((b) => !host.exists(b.target) && existingAncestor(b.target, host) === '/')?.target ?? '';
    throw new ContainerSpecError('FailedMount', `mount path ${target}: its top directory does not exist on this machine, and / is not overlaid`);
  }
  return kept;
}

/**
 * The script: a tmpfs at `scratch` (a directory of the pod's), an overlay per root, then the binds (parents
 * before children), then `exec "$@"` (the container's argv follows the script's name on the command line).
 */
export function mountScript(binds: readonly BindMount[], scratch: string, host: HostPaths): string {
  const q = shellQuote;
  const lines = ['set -eu', `mount -t tmpfs -o mode=0700 ccm-sandbox-pod ${q(scratch)}`];
  overlayRoots(binds, host).forEach((root, i) => {
    const upper = `${scratch}/overlay-${i}/upper`;
    const work = `${scratch}/overlay-${i}/work`;
    lines.push(
      `mkdir -p ${q(upper)} ${q(work)}`,
      `mount -t overlay ccm-sandbox-overlay -o ${q(`lowerdir=${root},upperdir=${upper},workdir=${work}`)} ${q(root)}`,
    );
  });
  const ordered = [...binds].sort((a, b) => a.target.split('/').length - b.target.split('/').length);
  for (const b of ordered) {
    const t = q(b.target);
    lines.push(b.file ? `[ -e ${t} ] || { mkdir -p ${q(dirname(b.target))}; : > ${t}; }` : `mkdir -p ${t}`);
    lines.push(`mount --bind ${q(b.source)} ${t}`);
    if (b.readOnly) lines.push(`mount -o remount,bind,ro ${t}`);
  }
  lines.push('exec "$@"');
  return `${lines.join('\n')}\n`;
}
