// Runnable images: `--run-image REF=PATH` names a local binary the virtual kubelets run for containers of that
// image (any tag, one tag, or a tag pattern) instead of simulating them. Each becomes an entry of the image
// table with `run` (schema.ts), ahead of the user's and the built-in entries; what state.json keeps is the list
// as given, checked again when a daemon reads it.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { ImageEntry } from './schema.ts';

/** A registry host (with a port) and path components, as image references spell them; no tag, no digest. */
const REPOSITORY = /^(?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?(?::\d+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
/** A tag, with `*` allowed as a pattern. */
const TAG = /^[\w*][\w.*-]{0,127}$/;

export const RunImage = z.strictObject({
  /** The repository, as written (`linode/linode-cloud-controller-manager`). */
  repository: z.string().regex(REPOSITORY, 'an image repository such as linode/linode-cloud-controller-manager'),
  /** A tag or tag pattern; absent: any tag. */
  tag: z.string().regex(TAG, 'a tag or a pattern with *').optional(),
  /** The local executable that stands for the image (its entrypoint). */
  binary: z.string().startsWith('/', 'an absolute path'),
});
export type RunImage = z.infer<typeof RunImage>;

export class RunImageError extends Error {
  override name = 'RunImageError';
}

/** `REPOSITORY[:TAG]=PATH`, checked: a well-formed reference and an executable file (made absolute). */
export function parseRunImage(value: string, cwd = process.cwd()): RunImage {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1)
    throw new RunImageError(`--run-image "${value}" is invalid: use IMAGE[:TAG]=PATH, e.g. linode/linode-cloud-controller-manager=/usr/local/bin/linode-ccm`);
  const parsed = RunImage.safeParse({ ...splitReference(value.slice(0, eq)), binary: resolve(cwd, value.slice(eq + 1)) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunImageError(`--run-image "${value}" is invalid: ${issue?.path.join('.') ?? 'value'} must be ${issue?.message ?? 'valid'}`);
  }
  checkExecutable(parsed.data.binary, value);
  return parsed.data;
}

/** `repository[:tag]` (a colon before the last slash is a registry's port). */
function splitReference(ref: string): { repository: string; tag?: string } {
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? { repository: ref.slice(0, colon), tag: ref.slice(colon + 1) } : { repository: ref };
}

function checkExecutable(path: string, flag: string): void {
  let file: boolean;
  try {
    file = statSync(path).isFile();
    accessSync(path, constants.X_OK);
  } catch {
    throw new RunImageError(`--run-image "${flag}": ${path} is not an executable file`);
  }
  if (!file) throw new RunImageError(`--run-image "${flag}": ${path} is not an executable file`);
}

/** The image-table entries of the runnable images, in the order given (the first that matches a container wins). */
export function runnableEntries(list: readonly RunImage[]): ImageEntry[] {
  return list.map((r) => ({
    name: `run ${r.repository}${r.tag ? `:${r.tag}` : ''}`,
    images: [r.repository],
    ...(r.tag ? { tags: [r.tag] } : {}),
    run: { binary: r.binary },
  }));
}

/** The flag that gives the same runnable image again (the daemon's command line). */
export function runImageArg(r: RunImage): string {
  return `--run-image=${r.repository}${r.tag ? `:${r.tag}` : ''}=${r.binary}`;
}
